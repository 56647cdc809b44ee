"""Sends a message larger than the gateway accepts (welcome.max_message_bytes).

MODE=answer (default): plays a few requests properly, then answers one with a valid Answer
padded past the limit by an unknown field, and then stays alive without reconnecting.
MODE=hello: the very first message is an oversized hello; the bot exits after the reply.
"""

import asyncio
import os

import botkit
import grpc

MODE = os.environ.get("MODE", "answer")
AFTER = int(os.environ.get("AFTER", "2"))  # good answers before the oversized one


def padded(msg: bytes, size: int) -> bytes:
    """``msg`` plus an unknown length-delimited field 15, ``size`` bytes in all (about)."""
    body = b"x" * size
    n, varint = len(body), bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        varint.append(byte | (0x80 if n else 0))
        if not n:
            break
    return msg + b"\x7a" + bytes(varint) + body


async def main() -> None:
    if MODE == "hello":
        big = padded(botkit.hello(name="oversized").SerializeToString(), 1 << 20)
        botkit.note(event="first_reply", **await botkit.first_reply(first=big))
        return
    seen = 0

    def on_request(req, stream) -> None:
        nonlocal seen
        seen += 1
        ok = botkit.answer(req.request_id, botkit.safe_index(req)).SerializeToString()
        if seen <= AFTER:
            stream.send(ok)
        else:
            botkit.note(event="oversized", request_id=req.request_id)
            stream.send(padded(ok, 1 << 20))

    try:
        ended = await botkit.play(on_request, name="oversized")
        botkit.note(event="ended", how=ended)
    except grpc.aio.AioRpcError as e:
        botkit.note(event="ended", status=e.code().name, details=e.details())
    await botkit.idle_forever()


if __name__ == "__main__":
    asyncio.run(main())
