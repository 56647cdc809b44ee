"""Streams answers with request ids the arena never issued, as fast as it can, from the
moment it is welcomed (it answers nothing else). It stops by itself after LIMIT messages
or SECONDS seconds, or when the arena ends the stream, and notes how many it sent and how
the stream ended."""

import asyncio
import os
import time

import botkit
import grpc

LIMIT = int(os.environ.get("LIMIT", "400000"))
SECONDS = float(os.environ.get("SECONDS", "60"))
BASE = 10**12


async def main() -> None:
    sent = 0
    how = "stream ended"
    async with grpc.aio.insecure_channel(botkit.ADDRESS) as channel:
        s = botkit.Stream(channel)
        s.send(botkit.hello(name="answer-stream"))

        async def flood() -> None:
            nonlocal sent
            end = time.monotonic() + SECONDS
            while sent < LIMIT and time.monotonic() < end:
                for _ in range(100):
                    s.send(botkit.answer(BASE + sent, 0))
                    sent += 1
                await asyncio.sleep(0)  # let the channel write
                while s.outbox.qsize() > 5000:  # do not queue unboundedly here
                    await asyncio.sleep(0.001)
            s.end()

        task = None
        try:
            async for msg in s:
                which = msg.WhichOneof("msg")
                if which == "welcome" and task is None:
                    task = asyncio.ensure_future(flood())
                elif which == "error":
                    how = "error " + botkit.pb.Error.Code.Name(msg.error.code)
                    break
                elif which == "goodbye":
                    how = "goodbye"
                    break
        except grpc.aio.AioRpcError as e:
            how = e.code().name
        if task is not None:
            task.cancel()
    botkit.note(event="ended", how=how, sent=sent)


if __name__ == "__main__":
    botkit.run(main())
