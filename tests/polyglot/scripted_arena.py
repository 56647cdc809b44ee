"""A scripted arena for the starter bots: a real gRPC server on a Unix socket that plays one
fixed conversation with a real bot process and records every message the bot sends, so a
test can check the shape of its replies (which the arena's gateway accepts in any form).

The conversation: the bot's hello; a welcome that grants batches if the hello asked for
them; a game start for each of ``games`` + 1 real games (engine states at a decision, of
several kinds); then, to a bot that takes batches, all their requests in one
ArenaMessage{batch} and one reply read, else each request alone and its reply read; then
one more request alone and its reply; then goodbye, and the bot must end the stream and exit.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import tempfile
from dataclasses import dataclass, field

import grpc

from arena.protocol import PROTOCOL_VERSION, messages, pb, pb_grpc
from arena.protocol.convert import KIND_TO_PB, events_pb, observation_pb, options_pb, ruleset_pb
from engine import DecisionKind, Game, get_ruleset

STEP = 30.0  # seconds allowed for each message from the bot (a JVM starts in about 1 s)


@dataclass
class Transcript:
    """What the bot sent and how it ended."""

    hello: pb.Hello
    requests: list[pb.DecisionRequest]  # every request sent, in order
    batched: bool  # the requests but the last went out in one batch
    replies: list[pb.BotMessage] = field(default_factory=list)  # after the hello, in order
    exit_code: int | None = None
    output: str = ""  # the bot's stdout and stderr

    def options(self, request_id: int) -> int:
        return next(len(r.options) for r in self.requests if r.request_id == request_id)


# the decisions the games stop at, in turn: several kinds, both variants
WANTED = [
    ("base", DecisionKind.HIT_OR_STAY),
    ("vengeance", DecisionKind.CHOOSE_TARGET),
    ("vengeance", DecisionKind.STEAL),
    ("base", DecisionKind.CHOOSE_TARGET),
    ("vengeance", DecisionKind.GIVE_MODIFIER),
    ("vengeance", DecisionKind.SWAP),
    ("vengeance", DecisionKind.DISCARD),
    ("vengeance", DecisionKind.HIT_OR_STAY),
]


def _stopped_at(variant: str, kind: str, rng: random.Random) -> Game:
    """A three-seat game played at random up to a decision of ``kind`` with two options or more."""
    while True:
        game = Game(get_ruleset(variant), 3, rng.randrange(1 << 30))
        while (d := game.decision) is not None:
            if d.kind == kind and len(d.options) >= 2 and rng.random() < 0.5:
                return game
            game.step(rng.randrange(len(d.options)))


def ready_games(count: int, seed: int = 3) -> list[tuple[pb.ArenaMessage, pb.DecisionRequest]]:
    """``count`` games, each stopped at a decision (kinds from WANTED in turn): its game
    start and its request (request ids 1..count)."""
    rng = random.Random(seed)
    out: list[tuple[pb.ArenaMessage, pb.DecisionRequest]] = []
    for i in range(count):
        variant, kind = WANTED[i % len(WANTED)]
        game = _stopped_at(variant, kind, rng)
        d = game.decision
        assert d is not None
        game_id = f"scripted-{i + 1}"
        rules = ruleset_pb(game.ruleset)
        start = messages.game_start(
            game_id=game_id,
            seat=d.seat,
            seat_names=[f"seat{s}" for s in range(game.n)],
            ruleset=rules,
            deadline=1.0,
            time_bank=10.0,
            bot_seed=i,
        )
        request = pb.DecisionRequest(
            request_id=i + 1,
            game_id=game_id,
            seat=d.seat,
            kind=KIND_TO_PB[d.kind],
            card=d.card or "",
            observation=observation_pb(game, d.seat, rules),
            events=events_pb(game.events),
            options=options_pb(d),
            deadline_ms=1000,
            time_bank_ms=10_000,
        )
        out.append((start, request))
    return out


class _Script(pb_grpc.ArenaServicer):
    def __init__(self, games: int) -> None:
        self.games = ready_games(games + 1)
        self.transcript: Transcript | None = None
        self.done = asyncio.Event()

    async def _read(self, context: grpc.aio.ServicerContext) -> pb.BotMessage:
        msg = await asyncio.wait_for(context.read(), STEP)
        if msg is grpc.aio.EOF:
            raise AssertionError("the bot ended the stream too early")
        return msg

    async def Play(self, request_iterator: object, context: grpc.aio.ServicerContext) -> None:
        try:
            first = await self._read(context)
            hello = first.hello
            *batch, (_, last) = self.games
            t = self.transcript = Transcript(
                hello=hello, requests=[r for _, r in self.games], batched=hello.batches
            )
            await context.write(
                messages.welcome(
                    bot_name=hello.bot_name or "bot",
                    protocol_version=PROTOCOL_VERSION,
                    session_id="scripted",
                    max_message_bytes=4 << 20,
                    reconnect_grace=5.0,
                    arena_version="scripted",
                    batches=hello.batches,
                )
            )
            for start, _ in self.games:
                await context.write(start)
            if hello.batches:
                await context.write(pb.ArenaMessage(batch=pb.Batch(requests=[r for _, r in batch])))
                t.replies.append(await self._read(context))
            else:
                for _, r in batch:
                    await context.write(pb.ArenaMessage(request=r))
                    t.replies.append(await self._read(context))
            await context.write(pb.ArenaMessage(request=last))
            t.replies.append(await self._read(context))
            await context.write(messages.goodbye("the scripted conversation is over"))
            end = await asyncio.wait_for(context.read(), STEP)  # the bot closes its side
            if end is not grpc.aio.EOF:
                t.replies.append(end)
        finally:
            self.done.set()


async def _converse(command: str, games: int, env: dict[str, str]) -> Transcript:
    where = tempfile.mkdtemp(prefix="arena-script-")  # short: a socket path has 107 bytes
    sock = os.path.join(where, "arena.sock")
    server = grpc.aio.server()
    script = _Script(games)
    pb_grpc.add_ArenaServicer_to_server(script, server)
    server.add_insecure_port(f"unix://{sock}")
    await server.start()
    proc = None
    try:
        proc = await asyncio.create_subprocess_shell(
            command,
            env={**os.environ, **env, "ARENA_ADDRESS": f"unix://{sock}", "ARENA_TOKEN": "tok"},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        output, _ = await asyncio.wait_for(proc.communicate(), STEP * (games + 4))
        await asyncio.wait_for(script.done.wait(), STEP)
        t = script.transcript
        assert t is not None, f"the bot never said hello:\n{output.decode(errors='replace')}"
        t.exit_code = proc.returncode
        t.output = output.decode(errors="replace")
        return t
    finally:
        if proc is not None and proc.returncode is None:
            proc.kill()
            await proc.wait()
        await server.stop(0)
        shutil.rmtree(where, ignore_errors=True)


def converse(command: str, *, games: int = 6, **env: str) -> Transcript:
    """Play the scripted conversation with the bot ``command`` (a shell command line), with
    ``games`` requests ready at once, and return what it sent."""
    return asyncio.run(_converse(command, games, env))
