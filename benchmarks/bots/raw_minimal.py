"""A bot without the SDK: the generated protobuf code on a grpc.aio stream, answering a
random legal option. It measures what the transport costs a bot (benchmark row)."""

import asyncio
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import grpc

from arena.protocol import PROTOCOL_VERSION, pb, pb_grpc


async def main() -> None:
    rng = random.Random(1)
    hello = pb.Hello(
        token=os.environ["ARENA_TOKEN"], bot_name="raw-minimal", protocol_version=PROTOCOL_VERSION
    )
    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        call = pb_grpc.ArenaStub(channel).Play()
        await call.write(pb.BotMessage(hello=hello))
        while True:
            msg = await call.read()
            if msg is grpc.aio.EOF or msg.HasField("goodbye"):
                break
            if msg.HasField("request"):
                r = msg.request
                index = rng.randrange(len(r.options))
                answer = pb.Answer(request_id=r.request_id, option_index=index)
                await call.write(pb.BotMessage(answer=answer))
        await call.done_writing()


asyncio.run(main())
