"""Floods the gateway: for every request it sends FLOOD answers with request ids the arena
never issued, as fast as it can, then the proper answer.

It uses gRPC's synchronous client, whose own thread drains the outgoing messages as fast as
the transport takes them (the asyncio client writes only as its event loop gets around to
it, so an idle flooder there sends far less than it could).
"""

import os
import queue

import botkit
import grpc

from arena.protocol import pb

FLOOD = int(os.environ.get("FLOOD", "2000"))
BASE = 10**12


def main() -> None:
    outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def outgoing():  # consumed by gRPC's own thread
        while (item := outbox.get()) is not None:
            yield item

    outbox.put(botkit.hello(name="flood").SerializeToString())
    sent = 0
    how = "stream ended"
    with grpc.insecure_channel(botkit.ADDRESS) as channel:
        play = channel.stream_stream(
            botkit.PLAY_METHOD,
            request_serializer=lambda b: b,
            response_deserializer=pb.ArenaMessage.FromString,
        )
        try:
            for msg in play(outgoing()):
                which = msg.WhichOneof("msg")
                if which == "request":
                    req = msg.request
                    for i in range(FLOOD):
                        outbox.put(botkit.answer(BASE + sent + i, i % 7).SerializeToString())
                    sent += FLOOD
                    outbox.put(
                        botkit.answer(req.request_id, botkit.safe_index(req)).SerializeToString()
                    )
                    botkit.note(event="flooded", request_id=req.request_id, total=sent)
                elif which == "error":
                    how = "error " + pb.Error.Code.Name(msg.error.code)
                    break
                elif which == "goodbye":
                    how = "goodbye"
                    break
        except grpc.RpcError as e:
            how = f"status {e.code().name}"
        outbox.put(None)
    botkit.note(event="ended", how=how)


if __name__ == "__main__":
    main()
