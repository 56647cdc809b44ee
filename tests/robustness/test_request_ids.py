"""A bot must learn nothing about other tables from the ids of its requests.

Before, request ids came from one counter for the whole arena, so a bot could count the
requests of every other table between two of its own. Now they are numbered per link: a
bot sees 1, 2, 3, ... however busy the rest of the arena is.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from robustkit import POLICY, assert_clean, example, notes, script_bot

from arena.bots import Policy
from arena.gateway.server import Gateway
from arena.match import BotEntry, MatchSpec, run_match

pytestmark = pytest.mark.timeout(300)


def test_request_ids_count_only_the_bots_own_requests_while_another_table_plays(
    sock_dir: Path,
) -> None:
    log = sock_dir / "paced.jsonl"
    watched = MatchSpec(
        bots=[script_bot("paced", "paced.py", log), BotEntry("ev", Policy("ev"))],
        games=6,
        seed=3,
        concurrency=3,
        faults=POLICY,
    )
    busy = MatchSpec(
        bots=[example("ev"), example("threshold", "23"), example("random")],
        games=12,
        seed=4,
        concurrency=6,
        faults=POLICY,
    )

    async def main() -> tuple[object, object]:
        async with Gateway(tcp=None, unix=sock_dir / "a.sock") as gw:
            return await asyncio.wait_for(
                asyncio.gather(run_match(watched, gw), run_match(busy, gw)), 180
            )

    mine, other = asyncio.run(main())
    assert_clean(mine)  # type: ignore[arg-type]
    assert_clean(other)  # type: ignore[arg-type]
    assert other.decisions > 100  # type: ignore[attr-defined]  # the other table was busy
    ids = [n["request_id"] for n in notes(log) if n["event"] == "request"]
    assert len(ids) == mine.decisions > 0  # type: ignore[attr-defined]
    assert sorted(ids) == list(range(1, len(ids) + 1)), ids[:20]
