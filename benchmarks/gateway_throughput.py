"""Gateway throughput: the arena next to a raw gRPC streaming ping-pong, in one run.

    .venv/bin/python benchmarks/gateway_throughput.py [--games 128] [--repeat 3]

1. arena: a match of 4 example Python bots (separate processes, Unix socket, 16 games at
   once); decisions per second, the arena process's CPU per decision, round-trip latency.
2. ping-pong: the same 4 client processes' worth of raw gRPC streams on a Unix socket, the
   same concurrency, with requests of the same size as the arena's average request and
   answers of the same size as an Answer; messages per second and latency.
The ratio arena / ping-pong is printed. All rows run in this process, interleaved over
``--repeat`` rounds; each ratio is taken within its round and the medians are printed.

With ``--breakdown`` (the default; ``--no-breakdown`` skips it) two more rows show where
the arena's time goes:
3. arena, minimal bots: the same match with the smallest SDK bot (a random legal option,
   no game state), so the example bots' own work drops out;
4. gateway only: no engine at all. Decision requests of the average size, already
   encoded, go through the real gateway and bot links to four minimal protobuf bots
   without the SDK, so only the transport (gRPC, protobuf, the links) is left.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import Command  # noqa: E402
from arena.faults import FaultPolicy  # noqa: E402
from arena.match import BotEntry, MatchRunner, MatchSpec  # noqa: E402
from arena.protocol import pb  # noqa: E402

EX = ROOT / "bots" / "examples" / "python"
HERE = Path(__file__).resolve().parent
METHOD = "/bench.PingPong/Play"

CLIENT = r"""
import asyncio, os, sys
import grpc

async def main():
    addr, size = os.environ["PP_ADDRESS"], int(os.environ["PP_ANSWER"])
    answer = b"x" * size
    async with grpc.aio.insecure_channel(addr) as ch:
        q = asyncio.Queue()
        async def out():
            yield b"hello"
            while True:
                m = await q.get()
                if m is None:
                    return
                yield m
        call = ch.stream_stream("/bench.PingPong/Play", request_serializer=lambda b: b,
                                response_deserializer=lambda b: b)(out())
        async for msg in call:
            if msg == b"bye":
                break
            q.put_nowait(msg[:8] + answer)  # echo the id, pad to an Answer's size
        q.put_nowait(None)

asyncio.run(main())
"""


def proc_cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) used so far by these live processes."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


class MeasuredRunner(MatchRunner):
    """A match runner that also reads its bots' CPU while they play (start-up excluded)."""

    bots_cpu = 0.0

    async def _start_bots(self) -> None:
        await super()._start_bots()
        self._pids = [p.pid for p in self.procs if p is not None and p.pid is not None]
        self._cpu0 = proc_cpu(self._pids)

    async def _stop_bots(self) -> dict[str, str]:
        self.bots_cpu = proc_cpu(self._pids) - self._cpu0
        return await super()._stop_bots()


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * (len(xs) - 1)))] * 1000 if xs else float("nan")


def example_bots() -> list[BotEntry]:
    py = sys.executable
    return [
        BotEntry("ev", Command(f"{py} {EX / 'ev' / 'bot.py'}")),
        BotEntry("threshold", Command(f"{py} {EX / 'threshold' / 'bot.py'} 23")),
        BotEntry("random", Command(f"{py} {EX / 'random' / 'bot.py'}")),
        BotEntry("threshold-27", Command(f"{py} {EX / 'threshold' / 'bot.py'} 27")),
    ]


def minimal_bots() -> list[BotEntry]:
    cmd = f"{sys.executable} {HERE / 'bots' / 'sdk_minimal.py'}"
    return [BotEntry(f"minimal-{i}", Command(cmd)) for i in range(4)]


async def arena_run(games: int, concurrency: int, bots: list[BotEntry]) -> dict[str, float]:
    spec = MatchSpec(
        bots=bots,
        games=games,
        seed=5,
        concurrency=concurrency,
        faults=FaultPolicy(deadline=5, time_bank=30),
        record_latency=True,
    )
    runner = MeasuredRunner(spec)
    cpu0 = time.process_time()
    res = await runner.run()
    wall = res.play_seconds  # bots' start-up excluded, as for the ping-pong clients
    cpu = time.process_time() - cpu0
    kids = runner.bots_cpu
    faults = sum(len(g.faults) for g in res.games)
    return {
        "decisions": res.decisions,
        "seconds": wall,
        "per_second": res.decisions / wall,
        "cpu_us_per_decision": cpu / res.decisions * 1e6,
        "client_cpu_us_per_decision": kids / res.decisions * 1e6,
        "p50_ms": pct(res.latencies, 0.5),
        "p99_ms": pct(res.latencies, 0.99),
        "faults": faults,
    }


def sample_requests() -> list[tuple[bytes, int]]:
    """The DecisionRequests of one 4-seat game, encoded as the arena encodes them (with
    request id 1), and their option counts."""
    from arena.protocol.convert import KIND_TO_PB
    from arena.protocol.wire import RequestEncoder
    from engine import RULESETS, Game
    from engine.policies import make_policy

    g = Game(RULESETS["base"], 4, 3)
    enc = RequestEncoder(g, "abcdef123456-1")
    pol = make_policy("ev")
    out = []
    heard = [0] * 4
    while not g.over:
        d = g.decision
        msg = enc.encode(1, d, KIND_TO_PB[d.kind], heard[d.seat], 1000, 10000)
        out.append((msg, len(d.options)))
        heard[d.seat] = len(g.events)
        g.step(pol(g, d))
    return out


def request_size() -> int:
    """Average serialized DecisionRequest size in a 4-seat game (observation, options, events)."""
    return int(statistics.mean(len(m) for m, _ in sample_requests()))


async def gateway_run(messages: int, concurrency: int) -> dict[str, float]:
    """Requests through the real gateway and links to minimal protobuf bots; no engine."""
    from arena.gateway.server import Gateway
    from arena.protocol.wire import ARENA_REQUEST, REQ_ID, key, len_field, varint
    from arena.runtime.process import ProcessBot

    # a request body without its id, re-wrapped with a fresh id for each message
    bodies = []
    for msg, n_options in sample_requests():
        req = pb.ArenaMessage.FromString(msg).request
        req.request_id = 0
        bodies.append((req.SerializeToString(), n_options))
    tmp = tempfile.mkdtemp()
    gw = Gateway(tcp=None, unix=Path(tmp) / "gw.sock")
    await gw.start()
    cmd = f"{sys.executable} {HERE / 'bots' / 'raw_minimal.py'}"
    links, procs = [], []
    for i in range(4):
        token, link = gw.register(f"raw-{i}")
        link.record_latency = True
        proc = ProcessBot(f"raw-{i}", cmd)
        await proc.start(gw.address, token)
        links.append(link)
        procs.append(proc)
    for link in links:
        await asyncio.wait_for(link.connected.wait(), 30)
    counter = iter(range(1, 10**9))
    per_task = messages // concurrency

    async def worker(w: int) -> None:
        for i in range(per_task):
            rid = next(counter)
            body, n_options = bodies[rid % len(bodies)]
            msg = len_field(ARENA_REQUEST, key(REQ_ID, 0) + varint(rid) + body)
            await links[(w + i) % 4].request(rid, msg, n_options, 30.0)

    pids = [p.pid for p in procs if p.pid is not None]
    cpu0 = time.process_time()
    kids0 = proc_cpu(pids)
    t0 = time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(concurrency)))
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    kids = proc_cpu(pids) - kids0
    for link in links:
        link.close()
    for proc in procs:
        await proc.stop(2.0)
    await gw.stop()
    n = per_task * concurrency
    lat = [x for link in links for x in link.stats.latencies]
    return {
        "decisions": n,
        "seconds": wall,
        "per_second": n / wall,
        "cpu_us_per_decision": cpu / n * 1e6,
        "client_cpu_us_per_decision": kids / n * 1e6,
        "p50_ms": pct(lat, 0.5),
        "p99_ms": pct(lat, 0.99),
    }


async def pingpong_run(
    messages: int, concurrency: int, req_size: int, ans_size: int
) -> dict[str, float]:
    conns: list[asyncio.Queue[bytes | None]] = []
    waiters: dict[int, asyncio.Future[float]] = {}
    ready = asyncio.Event()

    async def play(request_iterator, context):  # type: ignore[no-untyped-def]
        q: asyncio.Queue[bytes | None] = asyncio.Queue()
        conns.append(q)
        if len(conns) == 4:
            ready.set()

        async def reader() -> None:
            async for msg in request_iterator:
                if msg == b"hello":
                    continue
                rid = int.from_bytes(msg[:8], "big")
                fut = waiters.pop(rid, None)
                if fut is not None and not fut.done():
                    fut.set_result(time.perf_counter())

        task = asyncio.create_task(reader())
        try:
            while True:
                m = await q.get()
                if m is None:
                    yield b"bye"
                    return
                yield m
        finally:
            task.cancel()

    handler = grpc.stream_stream_rpc_method_handler(
        play, request_deserializer=lambda b: b, response_serializer=lambda b: b
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("bench.PingPong", {"Play": handler}),)
    )
    tmp = tempfile.mkdtemp()
    sock = f"unix://{tmp}/pp.sock"
    server.add_insecure_port(sock)
    await server.start()
    env = {**os.environ, "PP_ADDRESS": sock, "PP_ANSWER": str(max(0, ans_size - 8))}
    procs = [subprocess.Popen([sys.executable, "-c", CLIENT], env=env) for _ in range(4)]
    await asyncio.wait_for(ready.wait(), 30)
    pad = b"y" * max(0, req_size - 8)
    lat: list[float] = []
    counter = iter(range(1, 10**9))
    per_task = messages // concurrency
    loop = asyncio.get_running_loop()

    async def worker(w: int) -> None:
        for i in range(per_task):
            rid = next(counter)
            fut: asyncio.Future[float] = loop.create_future()
            waiters[rid] = fut
            t0 = time.perf_counter()
            conns[(w + i) % 4].put_nowait(rid.to_bytes(8, "big") + pad)
            t1 = await fut
            lat.append(t1 - t0)

    pids = [p.pid for p in procs]
    cpu0 = time.process_time()
    kids0 = proc_cpu(pids)
    t0 = time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(concurrency)))
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    kids = proc_cpu(pids) - kids0
    for q in conns:
        q.put_nowait(None)
    for p in procs:
        await asyncio.to_thread(p.wait, 30)
    await server.stop(0.5)
    n = per_task * concurrency
    return {
        "decisions": n,
        "seconds": wall,
        "per_second": n / wall,
        "cpu_us_per_decision": cpu / n * 1e6,
        "client_cpu_us_per_decision": kids / n * 1e6,
        "p50_ms": pct(lat, 0.5),
        "p99_ms": pct(lat, 0.99),
    }


def _median_row(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=128)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds of all rows, interleaved; medians are printed (default 3)",
    )
    ap.add_argument(
        "--breakdown",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run the arena with minimal bots and the gateway alone",
    )
    args = ap.parse_args()
    req = request_size()
    ans = len(
        pb.BotMessage(answer=pb.Answer(request_id=123456, option_index=1)).SerializeToString()
    )
    names = ["arena", "ping-pong"] + (["  minimal bots", "gateway only"] if args.breakdown else [])
    runs: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    ratios: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(max(1, args.repeat)):
        # each round runs every row back to back; a row's ratio is taken against the
        # ping-pong of its own round, so slow phases of a shared machine cancel out
        a = asyncio.run(arena_run(args.games, args.concurrency, example_bots()))
        p = asyncio.run(pingpong_run(int(a["decisions"]), args.concurrency, req, ans))
        got = {"arena": a, "ping-pong": p}
        if args.breakdown:
            got["  minimal bots"] = asyncio.run(
                arena_run(args.games, args.concurrency, minimal_bots())
            )
            got["gateway only"] = asyncio.run(gateway_run(int(a["decisions"]), args.concurrency))
        for name, r in got.items():
            runs[name].append(r)
            ratios[name].append(r["per_second"] / p["per_second"])
    print(
        f"message sizes: request ~{req} B, answer {ans} B; concurrency {args.concurrency}; "
        f"4 client processes; Unix socket; medians of {args.repeat} interleaved rounds"
    )
    print(
        f"{'':14} {'decisions':>10} {'per s':>8} {'vs ping-pong':>13} {'(range)':>13} "
        f"{'server CPU':>11} {'client CPU':>11} {'p50 ms':>7} {'p99 ms':>7}"
    )
    order = ["arena", "  minimal bots", "gateway only", "ping-pong"]
    for name in [n for n in order if n in runs]:
        r = _median_row(runs[name])
        lo, hi = min(ratios[name]), max(ratios[name])
        spread = "" if name == "ping-pong" else f"{lo:.0%}-{hi:.0%}"
        print(
            f"{name:14} {r['decisions']:>10.0f} {r['per_second']:>8.0f} "
            f"{statistics.median(ratios[name]):>13.1%} {spread:>13} "
            f"{r['cpu_us_per_decision']:>11.0f} {r['client_cpu_us_per_decision']:>11.0f} "
            f"{r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f}"
        )
    print("(CPU: microseconds per decision while playing; server = the arena process)")
    a, p = _median_row(runs["arena"]), _median_row(runs["ping-pong"])
    print(f"arena / ping-pong throughput: {statistics.median(ratios['arena']):.1%}")
    print(
        f"latency added per decision: p50 {a['p50_ms'] - p['p50_ms']:+.2f} ms, "
        f"p99 {a['p99_ms'] - p['p99_ms']:+.2f} ms"
    )
    print(f"arena faults during the run: {sum(r['faults'] for r in runs['arena']):.0f}")


if __name__ == "__main__":
    main()
