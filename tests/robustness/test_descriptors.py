"""Running the arena out of file descriptors.

Before, a stranger holding 1,100 idle TCP connections, or a bot opening 1,100 connections
on its Unix socket, used up the arena's 1,024 descriptors, and honest bots forfeited with
INIT_FAIL. Now:

* each listener holds a bounded number of connections (more are closed as soon as they
  are accepted), a connection that sends nothing is closed after the hello timeout, and
  streams waiting for a hello are capped (per TCP host and overall);
* the arena raises its own soft descriptor limit towards the hard limit at start;
* when the arena itself runs out of descriptors (starting a bot, accepting its
  connection) the games are void as INFRA and no bot is blamed.

The arena runs in a child process (tests/robustness/arena_child.py) so that its limits can
be set; the stranger is another process (tests/robustness/stranger.py) with real sockets.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import grpc
import pytest
from robustkit import HERE

from arena.gateway.server import ConnectionLimits, Gateway
from arena.protocol import PROTOCOL_VERSION, pb

pytestmark = pytest.mark.timeout(300)

HELLO_TIMEOUT = 2.0
STRANGER_CONNECTIONS = 1100


def read_json(stream: IO[str], proc: subprocess.Popen[str]) -> dict[str, Any]:
    line = stream.readline()
    if not line:
        err = proc.stderr.read() if proc.stderr else ""
        raise AssertionError(f"no output (exit {proc.wait(10)}): {err[-3000:]}")
    return json.loads(line)


def arena(mode: str, sock_dir: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(HERE / "arena_child.py"), mode, "--dir", str(sock_dir), *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> None:
    try:
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("transport", ["tcp", "unix"], ids=["tcp-stranger", "unix-socket"])
def test_1100_idle_connections_do_not_make_honest_bots_fail(sock_dir: Path, transport: str) -> None:
    """The arena is held to 1,024 descriptors (soft and hard, so raising the limit cannot
    help); a stranger opens 1,100 idle connections on the TCP listener, or on the Unix
    socket the arena's own bots use (as a hostile process or container bot could), and
    holds them while a match of honest process bots plays."""
    proc = arena("siege", sock_dir, "--limit", "1024", "--hello-timeout", str(HELLO_TIMEOUT))
    stranger = None
    try:
        assert proc.stdout is not None and proc.stdin is not None
        where = read_json(proc.stdout, proc)
        assert where["limit"] == 1024
        assert where["max_connections"] < 1024 // 2  # both listeners fit, with room to spare
        target = where["tcp"] if transport == "tcp" else where["unix"]
        stranger = subprocess.Popen(
            [sys.executable, str(HERE / "stranger.py"), target,
             "--count", str(STRANGER_CONNECTIONS), "--seconds", "40"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert stranger.stdout is not None
        assert read_json(stranger.stdout, stranger) == {"opened": STRANGER_CONNECTIONS}
        proc.stdin.write("go\n")
        proc.stdin.flush()
        played = read_json(proc.stdout, proc)
        held = read_json(stranger.stdout, stranger)
    finally:
        finish(proc)
        if stranger is not None:
            finish(stranger)
    print(f"arena: at most {played['most_open']} of {played['limit']} descriptors open; "
          f"stranger: {held['closed']} of {held['opened']} connections closed by the arena, "
          f"the last after {held['last_close']:.1f} s")  # fmt: skip
    # honest bots: every game played, nobody blamed
    assert [g["status"] for g in played["games"]] == ["completed"] * 6
    assert all(g["faults"] == [] for g in played["games"]), played["games"]
    # the arena never came near its limit, and kept none of the stranger's connections
    # much past the hello timeout
    assert played["most_open"] < played["limit"] - 100, played
    assert held["closed"] == held["opened"], held
    assert held["last_close"] < HELLO_TIMEOUT + 15, held


def test_the_arena_out_of_descriptors_starting_a_bot_voids_the_games_as_infra(
    sock_dir: Path,
) -> None:
    proc = arena("exhaust-start", sock_dir)
    try:
        assert proc.stdout is not None
        out = read_json(proc.stdout, proc)
    finally:
        finish(proc)
    assert out["held"] > 0
    assert [g["status"] for g in out["games"]] == ["void"] * 3
    for g in out["games"]:
        (fault,) = g["faults"]
        assert fault["kind"] == "INFRA" and fault["seat"] is None and fault["bot"] is None
        assert "out of file descriptors" in fault["detail"], fault


def test_the_arena_out_of_descriptors_while_a_bot_connects_voids_the_games_as_infra(
    sock_dir: Path,
) -> None:
    """The bot process started, but the arena could accept no connection: not the bot's
    INIT_FAIL."""
    proc = arena("exhaust-connect", sock_dir)
    try:
        assert proc.stdout is not None
        out = read_json(proc.stdout, proc)
    finally:
        finish(proc)
    assert out["lowered"]
    assert [g["status"] for g in out["games"]] == ["void"] * 3
    for g in out["games"]:
        (fault,) = g["faults"]
        assert fault["kind"] == "INFRA" and fault["seat"] is None, fault
        assert "did not connect" in fault["detail"], fault
        assert "out of file descriptors" in fault["detail"], fault


def test_the_arena_raises_its_descriptor_limit_at_start(sock_dir: Path) -> None:
    proc = arena("raise", sock_dir, "--limit", "1024")
    try:
        assert proc.stdout is not None
        out = read_json(proc.stdout, proc)
    finally:
        finish(proc)
    assert out == {"soft": 4096, "hard": 4096, "max_connections": (4096 - 256) // 2}


def test_streams_without_a_hello_are_capped_per_peer_and_closed_after_the_hello_timeout() -> None:
    """A stranger opens streams and never says hello: past the per-peer cap they are
    refused at once (RESOURCE_EXHAUSTED); the others get BAD_HELLO after the hello timeout;
    then a bot with a valid hello is welcomed."""
    cap, tries, timeout = 4, 10, 1.5

    async def main() -> None:
        limits = ConnectionLimits(max_unauthenticated_per_peer=cap, max_unauthenticated=64)
        async with Gateway(tcp="127.0.0.1:0", hello_timeout=timeout, limits=limits) as gw:
            token, _ = gw.register("honest")
            silent = asyncio.Event()

            async def nothing():  # type: ignore[no-untyped-def]
                await silent.wait()
                yield pb.BotMessage()

            async with grpc.aio.insecure_channel(gw.tcp_address) as channel:
                play = channel.stream_stream(
                    "/arena.v1.Arena/Play",
                    request_serializer=pb.BotMessage.SerializeToString,
                    response_deserializer=pb.ArenaMessage.FromString,
                )
                loop = asyncio.get_running_loop()
                t0 = loop.time()
                calls = []
                for _ in range(tries):
                    calls.append(play(nothing()))
                    await asyncio.sleep(0)
                outcomes: list[tuple[str, float]] = []

                async def first(call) -> None:  # type: ignore[no-untyped-def]
                    try:
                        msg = await call.read()
                        what = pb.Error.Code.Name(msg.error.code)
                    except grpc.aio.AioRpcError as e:
                        what = e.code().name
                    outcomes.append((what, loop.time() - t0))

                await asyncio.wait_for(asyncio.gather(*(first(c) for c in calls)), 30)
                refused = [t for what, t in outcomes if what == "RESOURCE_EXHAUSTED"]
                timed_out = [t for what, t in outcomes if what == "BAD_HELLO"]
                assert len(refused) == tries - cap and len(timed_out) == cap, outcomes
                assert max(refused) < timeout <= min(timed_out) < timeout + 5, outcomes
                assert gw.waiting.total() == 0
                for c in calls:
                    c.cancel()
                silent.set()
                hello = pb.BotMessage(
                    hello=pb.Hello(token=token, bot_name="x", protocol_version=PROTOCOL_VERSION)
                )

                async def say_hello():  # type: ignore[no-untyped-def]
                    yield hello
                    await asyncio.Event().wait()

                call = play(say_hello())
                msg = await asyncio.wait_for(call.read(), 10)
                assert msg.WhichOneof("msg") == "welcome"
                call.cancel()

    asyncio.run(main())
