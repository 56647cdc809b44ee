"""Drops its stream mid-game (on receiving its DROP_AT-th request, unanswered), then
reconnects with the same token after AWAY seconds, or never if AWAY is negative.

Notes every welcome, game start, request and drop in $BOT_LOG so that a test can check that
the pending request came back with its original id.

With PER_STREAM=1 it keeps no memory across streams: it knows only the games whose GameStart
came on the live stream, and exits (code 3) on a request for any other game -- as a bot
written from the protocol alone may, since every new stream announces its games in flight
again (docs/protocol.md#reconnecting).
"""

import asyncio
import os
import sys

import botkit
import grpc

DROP_AT = int(os.environ.get("DROP_AT", "3"))
AWAY = float(os.environ.get("AWAY", "0.2"))
PER_STREAM = os.environ.get("PER_STREAM") == "1"

seen = 0
dropped = False


async def session(number: int) -> str:
    global seen, dropped
    games: set[str] = set()  # the games announced on this stream
    async with grpc.aio.insecure_channel(botkit.ADDRESS) as channel:
        s = botkit.Stream(channel)
        s.send(botkit.hello(name="reconnect"))
        async for msg in s:
            which = msg.WhichOneof("msg")
            if which == "welcome":
                botkit.note(
                    event="welcome",
                    session=number,
                    reconnect_grace_ms=msg.welcome.reconnect_grace_ms,
                )
            elif which == "game_start":
                games.add(msg.game_start.game_id)
                botkit.note(event="game_start", session=number, game_id=msg.game_start.game_id)
            elif which == "request":
                req = msg.request
                seen += 1
                botkit.note(
                    event="request", session=number, request_id=req.request_id, game_id=req.game_id
                )
                if PER_STREAM and req.game_id not in games:
                    botkit.note(event="unknown_game", session=number, game_id=req.game_id)
                    sys.exit(3)
                if seen == DROP_AT and not dropped:
                    dropped = True
                    botkit.note(event="drop", request_id=req.request_id, game_id=req.game_id)
                    s.cancel()
                    return "dropped"
                s.send(botkit.answer(req.request_id, botkit.sensible_index(req)))
            elif which == "error":
                return "error " + botkit.pb.Error.Code.Name(msg.error.code)
            elif which == "goodbye":
                s.end()
                return "goodbye"
    return "stream ended"


async def main() -> None:
    how = await session(1)
    if how == "dropped":
        if AWAY < 0:
            botkit.note(event="staying_away")
            await botkit.idle_forever()
        await asyncio.sleep(AWAY)
        for _ in range(100):  # the arena may not have noticed the drop yet
            how = await session(2)
            if how != "error ALREADY_CONNECTED":
                break
            await asyncio.sleep(0.05)
    botkit.note(event="end", how=how)


if __name__ == "__main__":
    asyncio.run(main())
