"""A bot floods the arena with answers to requests that were never issued.

Before, a bot streaming unknown request ids at ~9,000 messages/s was never cut off: it
slowed every table 3.6x and made honest bots time out. Now a stream that sends more
answers than it was sent requests (beyond a small allowance) is closed with a protocol
error and the flooder forfeits its seats as ILLEGAL, with the flood named.

The test plays an honest table next to a second table twice on one gateway: once with an
honest neighbour, once with a flooder at the neighbouring table, and compares the honest
table's p99 decision latency (measured by the arena, request sent to answer received).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from robustkit import (
    MATCH_TIMEOUT,
    POLICY,
    assert_clean,
    example,
    notes,
    percentile,
    script_bot,
)

from arena.gateway.server import Gateway
from arena.match import MatchResult, MatchSpec, run_match

pytestmark = pytest.mark.timeout(400)

# generous: the flooder is cut off within its first few dozen messages, so what is left
# is the noise of a shared machine, not the 3.6x slowdown of an uncut flood
P99_FACTOR = 3.0
P99_SLACK = 0.005  # seconds: latencies of a few ms are all noise at this scale


def honest_table() -> MatchSpec:
    return MatchSpec(
        bots=[example("ev"), example("threshold", "21"), example("random")],
        games=24,
        seed=8,
        concurrency=8,
        faults=POLICY,
        record_latency=True,
    )


def play_next_to(neighbour: MatchSpec, sock_dir: Path) -> tuple[MatchResult, MatchResult]:
    async def main() -> tuple[MatchResult, MatchResult]:
        async with Gateway(tcp=None, unix=sock_dir / "a.sock") as gw:
            honest, other = await asyncio.wait_for(
                asyncio.gather(run_match(honest_table(), gw), run_match(neighbour, gw)),
                MATCH_TIMEOUT,
            )
            assert gw.links == {}
            return honest, other

    return asyncio.run(main())


def test_an_answer_flood_is_cut_off_and_honest_bots_latency_is_unaffected(
    sock_dir: Path,
) -> None:
    quiet = MatchSpec(
        bots=[example("threshold", "18"), example("random")],
        games=24,
        seed=9,
        concurrency=8,
        faults=POLICY,
    )
    base, base_other = play_next_to(quiet, sock_dir)
    assert_clean(base)
    assert_clean(base_other)

    log = sock_dir / "flood.jsonl"
    noisy = MatchSpec(
        bots=[script_bot("flooder", "answer_stream.py", log), example("threshold", "18")],
        games=24,
        seed=9,
        concurrency=8,
        faults=POLICY,
    )
    flooded, other = play_next_to(noisy, sock_dir)

    p99_base = percentile(base.latencies, 0.99)
    p99_flood = percentile(flooded.latencies, 0.99)
    print(
        f"honest p99: {p99_base * 1000:.2f} ms next to an honest table, "
        f"{p99_flood * 1000:.2f} ms next to a flooder "
        f"({len(base.latencies)} and {len(flooded.latencies)} decisions)"
    )
    # the honest table: no fault at all, and as quick as before
    assert_clean(flooded)
    assert len(flooded.latencies) > 200
    assert p99_flood <= P99_FACTOR * p99_base + P99_SLACK, (p99_base, p99_flood)
    # the flooder: cut off with a protocol error, every game forfeited as ILLEGAL, the
    # flood named; nothing blamed on its honest neighbour
    assert notes(log)[-1]["how"] == "error PROTOCOL", notes(log)
    details = []
    for g in other.games:
        assert g.status == "completed"
        seat = g.seating.index("flooder")
        assert all(f.bot == "flooder" and f.seat == seat for f in g.faults), g.faults
        assert g.faults and all(str(f.kind) == "ILLEGAL" for f in g.faults), g.faults
        assert g.faults[-1].forfeit and g.ranks[seat] == 2
        details += [f.detail for f in g.faults]
    assert any("answer flood" in d and "the stream was closed" in d for d in details), details
