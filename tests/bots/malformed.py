"""Sends raw bytes that are not a valid BotMessage.

MODE=answer (default): plays a few requests properly, then sends garbage instead of an
answer, and then stays alive without reconnecting.
MODE=hello: the very first message is garbage; the bot exits after the reply.
"""

import asyncio
import os

import botkit
import grpc

MODE = os.environ.get("MODE", "answer")
AFTER = int(os.environ.get("AFTER", "2"))  # good answers before the garbage
# field 2 (answer), length-delimited, claims 16 bytes but only one follows: truncated
GARBAGE = b"\x12\x10\x08"


async def main() -> None:
    if MODE == "hello":
        botkit.note(event="first_reply", **await botkit.first_reply(first=GARBAGE))
        return
    seen = 0

    def on_request(req, stream) -> None:
        nonlocal seen
        seen += 1
        if seen <= AFTER:
            stream.send(botkit.answer(req.request_id, botkit.safe_index(req)))
        else:
            botkit.note(event="garbage", request_id=req.request_id)
            stream.send(GARBAGE)

    try:
        ended = await botkit.play(on_request, name="malformed")
        botkit.note(event="ended", how=ended)
    except grpc.aio.AioRpcError as e:
        botkit.note(event="ended", status=e.code().name, details=e.details())
    await botkit.idle_forever()


if __name__ == "__main__":
    asyncio.run(main())
