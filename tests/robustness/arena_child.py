"""An arena in a process of its own, so that a test can set its descriptor limits.

    python arena_child.py MODE --dir DIR [--limit N] [--hello-timeout S]

Modes (each prints JSON lines on stdout):

* ``siege``: limit the process to N open files (soft and hard: raising it cannot help),
  start a gateway on TCP and a Unix socket, print their addresses, wait for ``go`` on
  stdin, then play a match of honest example bots while sampling the open descriptors;
  print the games and the most descriptors seen open.
* ``exhaust-start``: start a gateway, then use up every free descriptor, then play a
  match with a process bot (which cannot be started); print the games.
* ``exhaust-connect``: the same, but just after the bot process has started the soft
  limit is lowered below every descriptor number in use, so that the arena can open no
  descriptor at all (not even one it frees later): the bot's connection cannot be
  accepted, whatever the timing. (Opening descriptors until none is left took a quarter
  of a second, time enough for a quick bot to be accepted first.)
* ``raise``: set the soft limit to N below a hard limit of 4 N, start a gateway, print the
  soft limit in force.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
from pathlib import Path

from arena import descriptors
from arena.bots import Command, Policy
from arena.faults import FaultPolicy
from arena.gateway.server import Gateway
from arena.match import BotEntry, MatchResult, MatchSpec, run_match
from arena.runtime.process import ProcessBot

LOWERED = 3  # a soft limit no new descriptor fits under (0, 1 and 2 stay open)
EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples" / "python"


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def example(name: str) -> BotEntry:
    return BotEntry(name, Command(f"{sys.executable} {EXAMPLES / name / 'bot.py'}"))


def games_of(result: MatchResult) -> list[dict[str, object]]:
    return [{"status": g.status, "faults": [f.as_dict() for f in g.faults]} for g in result.games]


def use_up_descriptors() -> list[int]:
    """Open /dev/null until the process may open nothing more."""
    held = []
    while True:
        try:
            held.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            return held


async def siege(args: argparse.Namespace) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (args.limit, args.limit))
    gw = Gateway(
        tcp="127.0.0.1:0", unix=Path(args.dir) / "a.sock", hello_timeout=args.hello_timeout
    )
    await gw.start()
    say(tcp=gw.tcp_address, unix=str(gw.unix), limit=descriptors.limit(),
        max_connections=gw.max_connections)  # fmt: skip
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    assert line.strip() == "go", line
    most = 0

    async def sample() -> None:
        nonlocal most
        while True:
            most = max(most, descriptors.open_count() or 0)
            await asyncio.sleep(0.02)

    sampler = asyncio.create_task(sample())
    spec = MatchSpec(
        bots=[example("ev"), example("threshold"), example("random")],
        games=6,
        seed=2,
        concurrency=6,
        faults=FaultPolicy(deadline=1.0, time_bank=5.0, start_timeout=30.0),
    )
    result = await run_match(spec, gateway=gw)
    sampler.cancel()
    await gw.stop()
    say(games=games_of(result), most_open=most, limit=descriptors.limit())


async def exhaust(args: argparse.Namespace) -> None:
    gw = Gateway(tcp=None, unix=Path(args.dir) / "a.sock")
    await gw.start()
    held: list[int] = []
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    if args.mode == "exhaust-start":
        held = use_up_descriptors()
    else:
        start = ProcessBot.start

        async def start_then_exhaust(self: ProcessBot, *a: object, **kw: object) -> None:
            await start(self, *a, **kw)  # type: ignore[arg-type]
            resource.setrlimit(resource.RLIMIT_NOFILE, (LOWERED, hard))

        ProcessBot.start = start_then_exhaust  # type: ignore[method-assign]
    spec = MatchSpec(
        bots=[example("threshold"), BotEntry("random", Policy("random"))],
        games=3,
        seed=2,
        faults=FaultPolicy(start_timeout=3.0),
    )
    try:
        result = await run_match(spec, gateway=gw)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        for fd in held:
            os.close(fd)
    await gw.stop()
    say(games=games_of(result), held=len(held), lowered=args.mode == "exhaust-connect")


async def raise_limit(args: argparse.Namespace) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (args.limit, 4 * args.limit))
    async with Gateway(tcp=None, unix=Path(args.dir) / "a.sock") as gw:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        say(soft=soft, hard=hard, max_connections=gw.max_connections)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["siege", "exhaust-start", "exhaust-connect", "raise"])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--limit", type=int, default=1024)
    parser.add_argument("--hello-timeout", type=float, default=2.0)
    args = parser.parse_args()
    run = {"siege": siege, "raise": raise_limit}.get(args.mode, exhaust)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
