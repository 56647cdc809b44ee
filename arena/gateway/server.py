"""The gateway: a grpc.aio server that bots connect to (TCP and/or a Unix socket).

It authenticates each stream by token (hashed; compared in constant time), binds it to that
bot's :class:`BotLink`, forwards decision requests and answers, and serves the standard
gRPC health checking and reflection services.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from arena import __version__
from arena.gateway.link import BotLink, Connection, token_hash
from arena.protocol import PROTOCOL_VERSION, SERVICE_NAME, pb, pb_grpc

log = logging.getLogger("arena.gateway")

DEFAULT_MAX_MESSAGE = 64 * 1024  # from bots: answers are tiny
DEFAULT_MAX_SEND = 16 * 1024 * 1024  # to bots: a big Swap can list many options


def _serialize(msg: pb.ArenaMessage | bytes) -> bytes:
    return msg if isinstance(msg, bytes) else msg.SerializeToString()


def _error(code: int, message: str) -> pb.ArenaMessage:
    return pb.ArenaMessage(error=pb.Error(code=code, message=message))


class Gateway(pb_grpc.ArenaServicer):
    """Serve ``arena.v1.Arena`` on ``tcp`` (host:port, port 0 = any free port) and/or a Unix
    socket path. Register bots with :meth:`register` before they connect."""

    def __init__(
        self,
        *,
        tcp: str | None = "127.0.0.1:0",
        unix: str | Path | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE,
        reconnect_grace: float = 3.0,
        hello_timeout: float = 10.0,
    ) -> None:
        if tcp is None and unix is None:
            raise ValueError("the gateway needs a TCP address or a Unix socket path")
        self.tcp = tcp
        self.unix = Path(unix) if unix is not None else None
        self.max_message_bytes = max_message_bytes
        self.reconnect_grace = reconnect_grace
        self.hello_timeout = hello_timeout
        self.links: dict[bytes, BotLink] = {}
        self.server: grpc.aio.Server | None = None
        self.health = HealthServicer()
        self.tcp_address: str | None = None
        self.unix_address: str | None = None
        self._sessions = 0

    # ------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", self.max_message_bytes),
                ("grpc.max_send_message_length", DEFAULT_MAX_SEND),
                ("grpc.so_reuseport", 0),
            ]
        )
        # registered by hand so that pre-encoded messages (bytes) pass through unchanged
        play = grpc.stream_stream_rpc_method_handler(
            self.Play,
            request_deserializer=pb.BotMessage.FromString,
            response_serializer=_serialize,
        )
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(SERVICE_NAME, {"Play": play}),)
        )
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        reflection.enable_server_reflection(
            (
                SERVICE_NAME,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            server,
        )
        if self.tcp is not None:
            port = server.add_insecure_port(self.tcp)
            if port == 0:
                raise OSError(f"cannot listen on {self.tcp}")
            host = self.tcp.rsplit(":", 1)[0]
            self.tcp_address = f"{host}:{port}"
        if self.unix is not None:
            self.unix.parent.mkdir(parents=True, exist_ok=True)
            if self.unix.exists():
                self.unix.unlink()
            server.add_insecure_port(f"unix://{self.unix}")
            self.unix_address = f"unix://{self.unix}"
        await server.start()
        if self.unix is not None:
            os.chmod(self.unix, 0o666)  # containers run as another user
        self.server = server
        await self.health.set("", health_pb2.HealthCheckResponse.SERVING)
        await self.health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace: float = 0.5) -> None:
        for link in list(self.links.values()):
            link.close("arena shutting down")
        if self.server is not None:
            await self.health.enter_graceful_shutdown()
            await self.server.stop(grace)
            self.server = None
        if self.unix is not None and self.unix.exists():
            self.unix.unlink()

    async def __aenter__(self) -> Gateway:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def address(self) -> str:
        """The preferred address for local bots (the Unix socket when there is one)."""
        addr = self.unix_address or self.tcp_address
        assert addr is not None, "gateway not started"
        return addr

    # ------------------------------------------------------------ registry
    def register(self, name: str, token: str | None = None) -> tuple[str, BotLink]:
        """A new bot link and its secret token (random unless given)."""
        token = token or secrets.token_urlsafe(32)
        digest = token_hash(token)
        if digest in self.links:
            raise ValueError("token already registered")
        link = BotLink(name, digest, self.reconnect_grace)
        self.links[digest] = link
        return token, link

    def register_digest(self, name: str, digest: bytes, *, persistent: bool = True) -> BotLink:
        """A link for a bot whose token the arena never sees (stored hashed: remote bots).

        A persistent link outlives matches: the bot stays connected between them and may
        reconnect after a disconnect that cost it a game.
        """
        if digest in self.links:
            raise ValueError(f"bot {name!r}: this token is already registered")
        link = BotLink(name, digest, self.reconnect_grace)
        link.persistent = persistent
        self.links[digest] = link
        return link

    def unregister(self, link: BotLink) -> None:
        link.close()
        self.links.pop(link.digest, None)

    def _lookup(self, token: str) -> BotLink | None:
        digest = token_hash(token)
        link = self.links.get(digest)
        # the dict lookup is on a hash of the secret; compare the digests in constant time
        if link is not None and hmac.compare_digest(link.digest, digest):
            return link
        return None

    # ------------------------------------------------------------ the stream
    async def Play(
        self, request_iterator: AsyncIterator[pb.BotMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.ArenaMessage]:
        peer = context.peer()
        try:
            first = await asyncio.wait_for(anext(request_iterator), self.hello_timeout)
        except (TimeoutError, StopAsyncIteration):
            yield _error(pb.Error.BAD_HELLO, "expected a hello message first")
            return
        except Exception as e:  # malformed or oversized first message
            log.info("bad first message from %s: %s", peer, e)
            yield _error(pb.Error.BAD_HELLO, "the first message is not a valid BotMessage")
            return
        if first.WhichOneof("msg") != "hello":
            yield _error(pb.Error.BAD_HELLO, "the first message must be a hello")
            return
        hello = first.hello
        link = self._lookup(hello.token)
        if link is None:
            yield _error(pb.Error.BAD_TOKEN, "unknown token")
            return
        if hello.protocol_version != PROTOCOL_VERSION:
            yield _error(
                pb.Error.VERSION,
                f"protocol version {hello.protocol_version} is not supported; "
                f"this arena speaks {PROTOCOL_VERSION}",
            )
            return
        if link.conn is not None:
            yield _error(pb.Error.ALREADY_CONNECTED, "another stream is connected with this token")
            return
        if link.gone is not None and not link.persistent:
            yield _error(pb.Error.PROTOCOL, f"this bot's seats are closed ({link.gone.detail})")
            return
        self._sessions += 1
        conn = Connection(f"s{self._sessions}", peer)
        welcome = pb.Welcome(
            bot_name=link.name,
            protocol_version=PROTOCOL_VERSION,
            session_id=conn.session_id,
            max_message_bytes=self.max_message_bytes,
            reconnect_grace_ms=int(link.reconnect_grace * 1000),
            arena_version=__version__,
        )
        yield pb.ArenaMessage(welcome=welcome)
        link.attach(conn, hello)
        reader = asyncio.create_task(self._read(request_iterator, link, conn))
        try:
            while True:
                msg = await conn.get()
                if msg is None:
                    break
                yield msg
        finally:
            reader.cancel()
            link.detach(conn, "kicked by the arena" if conn.kicked else "stream closed")
        if conn.kicked:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the arena dropped this stream")

    async def _read(
        self, request_iterator: AsyncIterator[pb.BotMessage], link: BotLink, conn: Connection
    ) -> None:
        reason = "the bot closed the stream"
        try:
            async for msg in request_iterator:
                which = msg.WhichOneof("msg")
                if which == "answer":
                    link.on_answer(msg.answer)
                else:
                    reason = f"unexpected {which or 'empty'} message"
                    conn.send(_error(pb.Error.PROTOCOL, reason))
                    break
        except asyncio.CancelledError:
            raise
        except Exception as e:  # oversized / malformed messages end the stream
            reason = f"bad message: {type(e).__name__}"
            log.info("stream of %s ended: %s", link.name, e)
            conn.send(_error(pb.Error.PROTOCOL, f"{reason}; the stream is closed"))
        link.detach(conn, reason)
