"""The gateway as a gRPC server: health, reflection, hello handling, tokens."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.gateway.link import token_hash
from arena.gateway.server import Gateway
from arena.protocol import PROTOCOL_VERSION, SERVICE_NAME, pb, pb_grpc


async def _first_reply(address: str, hello: pb.Hello) -> pb.ArenaMessage:
    async with grpc.aio.insecure_channel(address) as ch:
        call = pb_grpc.ArenaStub(ch).Play(iter([pb.BotMessage(hello=hello)]))
        async for msg in call:
            return msg
    raise AssertionError("no reply")


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_gateway_serves_health_and_reflection_on_tcp_and_unix(tmp_path: Path) -> None:
    async def main() -> None:
        async with Gateway(tcp="127.0.0.1:0", unix=tmp_path / "gw.sock") as gw:
            for address in (gw.tcp_address, gw.unix_address):
                assert address is not None
                async with grpc.aio.insecure_channel(address) as ch:
                    health = health_pb2_grpc.HealthStub(ch)
                    for service in ("", SERVICE_NAME):
                        r = await health.Check(health_pb2.HealthCheckRequest(service=service))
                        assert r.status == health_pb2.HealthCheckResponse.SERVING
                    refl = reflection_pb2_grpc.ServerReflectionStub(ch)
                    req = reflection_pb2.ServerReflectionRequest(list_services="")
                    names = set()
                    async for resp in refl.ServerReflectionInfo(iter([req])):
                        names = {s.name for s in resp.list_services_response.service}
                    assert SERVICE_NAME in names and "grpc.health.v1.Health" in names
        assert not (tmp_path / "gw.sock").exists()  # cleaned up on stop

    run(main())


def test_unknown_token_is_refused_with_bad_token() -> None:
    async def main() -> None:
        async with Gateway() as gw:
            gw.register("real", "the-real-token")
            hello = pb.Hello(token="guess", protocol_version=PROTOCOL_VERSION)
            msg = await _first_reply(gw.address, hello)
            assert msg.WhichOneof("msg") == "error" and msg.error.code == pb.Error.BAD_TOKEN

    run(main())


def test_wrong_protocol_version_is_refused() -> None:
    async def main() -> None:
        async with Gateway() as gw:
            token, _ = gw.register("bot")
            msg = await _first_reply(gw.address, pb.Hello(token=token, protocol_version=99))
            assert msg.error.code == pb.Error.VERSION
            assert "99" in msg.error.message

    run(main())


def test_first_message_must_be_a_hello() -> None:
    async def main() -> None:
        async with Gateway() as gw, grpc.aio.insecure_channel(gw.address) as ch:
            call = pb_grpc.ArenaStub(ch).Play(iter([pb.BotMessage(answer=pb.Answer(request_id=1))]))
            replies = [m async for m in call]
            assert replies[0].error.code == pb.Error.BAD_HELLO

    run(main())


def test_a_good_hello_is_welcomed_and_a_second_stream_is_refused() -> None:
    async def main() -> None:
        async with Gateway(reconnect_grace=2.0) as gw:
            token, link = gw.register("alice")
            hello = pb.Hello(token=token, protocol_version=PROTOCOL_VERSION, bot_name="a")
            async with grpc.aio.insecure_channel(gw.address) as ch:
                queue: asyncio.Queue[pb.BotMessage | None] = asyncio.Queue()
                queue.put_nowait(pb.BotMessage(hello=hello))

                async def out():  # type: ignore[no-untyped-def]
                    while (m := await queue.get()) is not None:
                        yield m

                call = pb_grpc.ArenaStub(ch).Play(out())
                first = await call.read()
                assert first.welcome.bot_name == "alice"
                assert first.welcome.reconnect_grace_ms == 2000
                await link.connected.wait()
                second = await _first_reply(gw.address, hello)
                assert second.error.code == pb.Error.ALREADY_CONNECTED
                queue.put_nowait(None)
                call.cancel()

    run(main())


def test_tokens_are_kept_only_as_hashes() -> None:
    gw = Gateway()
    token, link = gw.register("bot")
    assert link.digest == token_hash(token) and token.encode() not in link.digest
    assert all(isinstance(k, bytes) and len(k) == 32 for k in gw.links)
    assert len(token) >= 40  # 32 random bytes, URL-safe


def test_bot_link_times_out_each_open_request_at_its_own_deadline() -> None:
    """One timer serves a link's deadlines: each open request fails with TimeoutError at
    its own deadline, answered ones never do, and a late answer is dropped quietly."""
    from arena.gateway.link import BotLink, Connection
    from arena.protocol.wire import request_message

    async def main() -> None:
        link = BotLink("b", token_hash("t"), reconnect_grace=1.0)
        conn = Connection("s1", "peer")
        link.attach(conn, pb.Hello())
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        slow = link.request(1, b"one", 2, 0.30)
        fast = link.request(2, b"two", 2, 0.05)
        answered = link.request(3, b"three", 2, 0.10)
        link.on_answer(pb.Answer(request_id=3, option_index=1))
        assert await answered == 1
        ended: dict[int, float] = {}
        for rid, fut in ((2, fast), (1, slow)):
            try:
                await fut
            except TimeoutError:
                ended[rid] = loop.time() - t0
        assert set(ended) == {1, 2}
        assert 0.05 <= ended[2] < ended[1]
        assert ended[1] >= 0.30
        link.on_answer(pb.Answer(request_id=1, option_index=0))  # late: dropped
        assert link.stats.unknown_answers == 0
        assert not link.pending
        sent = [await conn.get() for _ in range(3)]  # each wrapped as an ArenaMessage{request}
        assert sent == [request_message(b) for b in (b"one", b"two", b"three")]

    run(main())


def test_a_bot_that_takes_batches_gets_every_waiting_request_in_one_message() -> None:
    """With hello.batches, the requests waiting when the stream is written go out as one
    ArenaMessage{batch}; while that batch is unanswered new requests gather for the next
    (released by the bot's first answer); notices such as a game start pass them."""
    from arena.gateway.link import BotLink, Connection

    async def main() -> None:
        link = BotLink("b", token_hash("t"), reconnect_grace=1.0)
        conn = Connection("s1", "peer", batches=True)
        link.attach(conn, pb.Hello(batches=True))
        body = [
            pb.DecisionRequest(request_id=i, game_id=f"g{i}").SerializeToString() for i in range(5)
        ]
        futs = [link.request(i, body[i], 2, 5.0) for i in (1, 2)]
        start = pb.ArenaMessage(game_start=pb.GameStart(game_id="g9"))
        link.send(start)
        assert await conn.get() == start  # a notice does not wait behind requests
        first = pb.ArenaMessage.FromString(await conn.get())
        assert first.WhichOneof("msg") == "batch"
        assert [r.request_id for r in first.batch.requests] == [1, 2]
        futs += [link.request(i, body[i], 2, 5.0) for i in (3, 4)]
        assert conn.holding  # the bot has a batch to answer: 3 and 4 wait for the next
        writer = asyncio.ensure_future(conn.get())
        await asyncio.sleep(0)  # let the writer run: it must find nothing it may send
        assert not writer.done()
        link.on_answer(pb.Answer(request_id=1, option_index=1))
        second = pb.ArenaMessage.FromString(await writer)
        assert [r.request_id for r in second.batch.requests] == [3, 4]
        for rid in (2, 3, 4):
            link.on_answer(pb.Answer(request_id=rid, option_index=1))
        assert [await f for f in futs] == [1, 1, 1, 1]
        st = link.stats
        assert (st.batches, st.batched_requests, st.largest_batch) == (2, 4, 2)

    run(main())


def test_a_bot_without_batches_gets_one_request_per_message_at_once() -> None:
    from arena.gateway.link import BotLink, Connection
    from arena.protocol.wire import request_message

    async def main() -> None:
        link = BotLink("b", token_hash("t"), reconnect_grace=1.0)
        conn = Connection("s1", "peer")
        link.attach(conn, pb.Hello())
        futs = [link.request(i, f"r{i}".encode(), 2, 5.0) for i in (1, 2, 3)]
        assert [await conn.get() for _ in range(3)] == [
            request_message(f"r{i}".encode()) for i in (1, 2, 3)
        ]
        for i in (1, 2, 3):
            link.on_answer(pb.Answer(request_id=i, option_index=0))
        assert [await f for f in futs] == [0, 0, 0]

    run(main())


def test_a_dropped_stream_ends_with_unavailable_that_says_reconnect() -> None:
    """UNAVAILABLE alone reads as "the arena is gone": its details say what to do, and a
    quick return while the old stream is still live is told to retry."""

    async def main() -> None:
        async with Gateway(reconnect_grace=2.0) as gw:
            token, link = gw.register("alice")
            hello = pb.Hello(token=token, protocol_version=PROTOCOL_VERSION, bot_name="a")
            async with grpc.aio.insecure_channel(gw.address) as ch:
                queue: asyncio.Queue[pb.BotMessage | None] = asyncio.Queue()
                queue.put_nowait(pb.BotMessage(hello=hello))

                async def out():  # type: ignore[no-untyped-def]
                    while (m := await queue.get()) is not None:
                        yield m

                call = pb_grpc.ArenaStub(ch).Play(out())
                assert (await call.read()).WhichOneof("msg") == "welcome"
                await link.connected.wait()
                refused = await _first_reply(gw.address, hello)
                assert refused.error.code == pb.Error.ALREADY_CONNECTED
                assert "retry" in refused.error.message
                assert link.kick()
                with pytest.raises(grpc.aio.AioRpcError) as ended:
                    await call.read()
                assert ended.value.code() == grpc.StatusCode.UNAVAILABLE
                details = ended.value.details() or ""
                assert "reconnect with the same token" in details, details
                assert "docs/protocol.md#reconnecting" in details
                queue.put_nowait(None)
            # back within the grace period: welcomed again on a new stream
            again = await _first_reply(gw.address, hello)
            assert again.WhichOneof("msg") == "welcome"

    run(main())


def test_a_new_stream_gets_the_games_that_ended_meanwhile_then_those_in_flight() -> None:
    """After a drop, the next stream is told first of the games that ended while no stream
    was connected (their GameEnd), then of every game still in flight (its GameStart, even
    one that began meanwhile), then gets the requests still pending with their ids."""
    from arena.gateway.link import BotLink, Connection
    from arena.protocol.wire import request_message

    def start(game_id: str, seat: int = 0) -> pb.ArenaMessage:
        return pb.ArenaMessage(game_start=pb.GameStart(game_id=game_id, seat=seat))

    async def main() -> None:
        link = BotLink("b", token_hash("t"), reconnect_grace=5.0)
        first = Connection("s1", "peer")
        link.attach(first, pb.Hello())
        for game in ("g1", "g2"):
            link.send(start(game))
        body = pb.DecisionRequest(request_id=1, game_id="g1").SerializeToString()
        fut = link.request(1, body, 2, 5.0)
        link.detach(first, "dropped")
        link.send(pb.ArenaMessage(game_end=pb.GameEnd(game_id="g2")))
        link.send(start("g3"))  # began while the bot was away
        second = Connection("s2", "peer")
        link.attach(second, pb.Hello())
        got = [await asyncio.wait_for(second.get(), 5) for _ in range(4)]
        assert got[0] == pb.ArenaMessage(game_end=pb.GameEnd(game_id="g2"))
        assert got[1:3] == [start("g1"), start("g3")]
        assert got[3] == request_message(body)
        link.on_answer(pb.Answer(request_id=1, option_index=1))
        assert await fut == 1
        # a game over is not announced again, nor its end
        link.send(pb.ArenaMessage(game_end=pb.GameEnd(game_id="g1")))
        link.detach(second, "dropped")
        third = Connection("s3", "peer")
        link.attach(third, pb.Hello())
        assert await asyncio.wait_for(third.get(), 5) == start("g3")
        assert not third._notices and not third._requests
        link.close()

    run(main())
