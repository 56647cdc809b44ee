"""The live streams' shared poller (arena.server.live.Changes) on a real SQLite database:
many open streams cost one poll per interval, not one each; every stream hears of a
change; the poller stops with the last stream."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.concurrency import run_in_threadpool

from arena.server.live import Changes, Slots, TooManyStreams, stream
from arena.store.db import get_engine

STREAMS = 200


@pytest.mark.timeout(120)
def test_many_streams_share_one_poller_and_each_hears_of_a_change(tmp_path: Path) -> None:
    from arena.registry import add_bot

    eng = get_engine(f"sqlite:///{tmp_path / 'arena.db'}")
    hub = Changes(eng, poll=0.05)

    async def scenario() -> None:
        streams = [stream(hub, None, None, keepalive=60) for _ in range(STREAMS)]

        async def change_of(s: Any) -> str:
            while True:
                chunk = await s.__anext__()
                if chunk.startswith("event: change"):
                    return str(chunk)

        first = await asyncio.gather(*(change_of(s) for s in streams))
        assert len(set(first)) == 1  # every stream saw the same version
        polls_before = hub.polls
        await run_in_threadpool(add_bot, eng, "newcomer", command=f"{sys.executable} bot.py")
        second = await asyncio.wait_for(asyncio.gather(*(change_of(s) for s in streams)), 60)
        assert len(set(second)) == 1 and second[0] != first[0]
        # one poll per interval for all of them: far fewer polls than streams
        assert hub.polls - polls_before < STREAMS / 4, hub.polls - polls_before
        for s in streams:
            await s.aclose()
        # the last stream gone, the poller stops by itself
        deadline = asyncio.get_running_loop().time() + 30
        while hub.polling:
            assert asyncio.get_running_loop().time() < deadline, "the poller did not stop"
            await asyncio.sleep(0.05)

    asyncio.run(scenario())
    eng.dispose()


def test_slots_are_capped_per_address_and_in_all_and_given_back_once() -> None:
    slots = Slots(per_address=2, total=3)
    a1, a2 = slots.take("a"), slots.take("a")
    with pytest.raises(TooManyStreams, match="per address"):
        slots.take("a")
    b1 = slots.take("b")
    with pytest.raises(TooManyStreams, match="live streams open"):
        slots.take("c")
    b1()
    b1()  # giving a slot back twice frees it once
    assert slots.open == 2
    slots.take("c")
    with pytest.raises(TooManyStreams):
        slots.take("d")
    a1()
    a2()
    assert slots.open == 1
