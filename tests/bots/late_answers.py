"""Answers late, within the time bank at first, then too late.

Per game: the first SLOW requests are answered SLOW_BY seconds after the deadline (spending
the time bank but in time); the next one is not answered in time at all. Its answer is sent
anyway, late, just before the answer to the game's following request (which the arena only
sends once the late one has timed out). Every other request is answered at once. Each
request's id, game, ordinal and time_bank_ms are noted in $BOT_LOG.
"""

import asyncio
import os
from collections import defaultdict

import botkit

SLOW = int(os.environ.get("SLOW", "2"))
SLOW_BY = float(os.environ.get("SLOW_BY", "0.25"))

counts: dict[str, int] = defaultdict(int)
stale: dict[str, int] = {}  # game -> id of the request left unanswered past its time


async def on_request(req, stream) -> None:
    counts[req.game_id] += 1
    k = counts[req.game_id]
    botkit.note(
        event="request",
        game_id=req.game_id,
        k=k,
        request_id=req.request_id,
        time_bank_ms=req.time_bank_ms,
        deadline_ms=req.deadline_ms,
    )
    if k <= SLOW:
        await asyncio.sleep(req.deadline_ms / 1000 + SLOW_BY)
    elif k == SLOW + 1:
        stale[req.game_id] = req.request_id
        return  # the answer goes out with the next request of this game
    if req.game_id in stale:
        late = stale.pop(req.game_id)
        stream.send(botkit.answer(late, 0))
        botkit.note(event="late_answer", game_id=req.game_id, request_id=late)
    stream.send(botkit.answer(req.request_id, botkit.sensible_index(req)))


if __name__ == "__main__":
    botkit.run(botkit.play(on_request, name="late-answers"))
