"""A raw bot that follows the reconnect rules of docs/protocol.md -- or breaks exactly one
of them, for the tests of `arena bot check`:

* ``gives_up``: reads UNAVAILABLE as "the arena is gone" and exits (it should reconnect
  with the same token within the grace period);
* ``no_retry``: comes back, but takes ALREADY_CONNECTED as final and exits (it should try
  again);
* ``late``: comes back, but only after LATE seconds, past the grace period of `bot check`
  (it should be back within welcome.reconnect_grace_ms);
* ``skips_resent``: comes back, but ignores a request whose id it has seen before (it
  should answer a request sent again on the new stream: the old answer never arrived).

Run as ``python tests/bots/returning.py`` it breaks none. Notes each stream's end in
$BOT_LOG.
"""

from __future__ import annotations

import asyncio
import sys

import botkit
import grpc

RETRY_FOR = 10.0  # seconds of attempts after a stream ends without a goodbye
FIRST_PAUSE = 0.05  # doubling to 1 s
LATE = 6.0  # seconds the ``late`` bot stays away (bot check's grace period is 5 s)


async def session(seen: set[int], breaks: str) -> str:
    async with grpc.aio.insecure_channel(botkit.ADDRESS, options=botkit.RETRY_QUICKLY) as ch:
        s = botkit.Stream(ch, wait_for_ready=True)
        s.send(botkit.hello(name="returning"))
        try:
            async for msg in s:
                which = msg.WhichOneof("msg")
                if which == "request":
                    req = msg.request
                    if breaks == "skips_resent" and req.request_id in seen:
                        continue
                    seen.add(req.request_id)
                    s.send(botkit.answer(req.request_id, botkit.sensible_index(req)))
                elif which == "error":
                    return botkit.pb.Error.Code.Name(msg.error.code)
                elif which == "goodbye":
                    s.end()
                    return "goodbye"
        except grpc.aio.AioRpcError as e:
            return e.code().name
    return "ended"


async def main(breaks: str = "") -> None:
    seen: set[int] = set()
    loop = asyncio.get_running_loop()
    give_up_at = None
    pause = FIRST_PAUSE
    while True:
        how = await session(seen, breaks)
        botkit.note(event="ended", how=how)
        if how == "goodbye":
            return
        if how == "UNAVAILABLE" and breaks == "gives_up":
            sys.exit("the arena is gone")
        if how == "ALREADY_CONNECTED" and breaks == "no_retry":
            sys.exit("refused: ALREADY_CONNECTED")
        if how not in ("UNAVAILABLE", "ALREADY_CONNECTED", "ended", "CANCELLED"):
            sys.exit(f"refused: {how}")
        if how == "UNAVAILABLE" and breaks == "late":
            await asyncio.sleep(LATE)
        if how == "UNAVAILABLE" or give_up_at is None:
            give_up_at = loop.time() + RETRY_FOR
        if loop.time() > give_up_at:
            sys.exit("lost the arena")
        await asyncio.sleep(pause)
        pause = min(2 * pause, 1.0)


if __name__ == "__main__":
    asyncio.run(main())
