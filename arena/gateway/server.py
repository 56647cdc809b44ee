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
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from arena import __version__, descriptors
from arena.gateway.link import BotLink, Connection, token_hash
from arena.protocol import PROTOCOL_VERSION, SERVICE_NAME, messages, pb, pb_grpc

log = logging.getLogger("arena.gateway")

DEFAULT_MAX_MESSAGE = 64 * 1024  # from bots: answers are tiny
DEFAULT_MAX_SEND = 16 * 1024 * 1024  # to bots: a big Swap can list many options


@dataclass(frozen=True)
class ConnectionLimits:
    """What strangers may hold open before they have said a valid hello.

    * ``max_connections``: connections per listener (TCP, Unix socket); more are closed as
      soon as they are accepted. None: from the arena's descriptor limit
      (:func:`arena.descriptors.connection_budget`).
    * ``max_unauthenticated``: streams waiting for their hello, over every peer;
      ``max_unauthenticated_per_peer``: the same per TCP host (the Unix socket serves only
      the arena's own bots: the overall cap is theirs). Streams over either are refused at
      once with RESOURCE_EXHAUSTED.
    * ``max_streams_per_connection``: HTTP/2 streams at once on one connection.

    A connection that sends nothing is closed after the gateway's hello timeout (gRPC's
    handshake timeout), a stream without a hello after the same time, and a connection left
    with no stream after that time again (gRPC's idle timeout).
    """

    max_connections: int | None = None
    max_unauthenticated: int = 256
    max_unauthenticated_per_peer: int = 16
    max_streams_per_connection: int = 100


def peer_host(peer: str) -> str:
    """The host part of a gRPC peer string: ``ipv4:1.2.3.4:567`` → ``1.2.3.4``,
    ``ipv6:[::1]:567`` → ``::1``, anything on a Unix socket → ``unix``."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0].strip("[]")
    if kind == "unix" or kind == "unix-abstract":
        return "unix"
    return peer


def _serialize(msg: pb.ArenaMessage | bytes) -> bytes:
    return msg if isinstance(msg, bytes) else msg.SerializeToString()


_error = messages.error

# The status details of a stream the arena dropped (gRPC status UNAVAILABLE) and the
# message of an ALREADY_CONNECTED refusal: each says what the bot should do
# (docs/protocol.md, "Status codes").
DROPPED = (
    "the arena dropped this stream; reconnect with the same token within the reconnect "
    "grace period (docs/protocol.md#reconnecting)"
)
ALREADY_CONNECTED = (
    "another stream is connected with this token; if it was this bot's own and it just "
    "ended, retry in a moment (docs/protocol.md#already-connected)"
)


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
        limits: ConnectionLimits | None = None,
    ) -> None:
        if tcp is None and unix is None:
            raise ValueError("the gateway needs a TCP address or a Unix socket path")
        self.tcp = tcp
        self.unix = Path(unix) if unix is not None else None
        self.max_message_bytes = max_message_bytes
        self.reconnect_grace = reconnect_grace
        self.hello_timeout = hello_timeout
        self.limits = limits or ConnectionLimits()
        self.max_connections = 0  # per listener, fixed at start
        self.waiting: Counter[str] = Counter()  # streams without a hello yet, by peer host
        self.refused = 0  # streams refused for being over a limit
        self.links: dict[bytes, BotLink] = {}
        self.server: grpc.aio.Server | None = None
        self.health = HealthServicer()
        self.tcp_address: str | None = None
        self.unix_address: str | None = None
        self._sessions = 0

    # ------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        descriptors.raise_limit()
        listeners = (self.tcp is not None) + (self.unix is not None)
        self.max_connections = self.limits.max_connections or descriptors.connection_budget(
            listeners
        )
        silent_ms = max(1, int(self.hello_timeout * 1000))
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", self.max_message_bytes),
                ("grpc.max_send_message_length", DEFAULT_MAX_SEND),
                ("grpc.so_reuseport", 0),
                # connections per listener; more are closed as soon as they are accepted
                ("grpc.max_allowed_incoming_connections", self.max_connections),
                # a connection that never completes the HTTP/2 handshake is closed
                ("grpc.server_handshake_timeout_ms", silent_ms),
                # and one that carries no stream for as long
                ("grpc.max_connection_idle_ms", silent_ms),
                ("grpc.max_concurrent_streams", self.limits.max_streams_per_connection),
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
    ) -> AsyncIterator[pb.ArenaMessage | bytes]:  # bytes: messages encoded by arena.protocol.wire
        peer = context.peer()
        host = peer_host(peer)
        lim = self.limits
        if self.waiting.total() >= lim.max_unauthenticated or (
            host != "unix" and self.waiting[host] >= lim.max_unauthenticated_per_peer
        ):
            self.refused += 1
            if self.refused == 1 or self.refused % 1000 == 0:
                log.warning(
                    "refused %d stream(s) waiting for a hello (now: %d from %s, %d in all)",
                    self.refused,
                    self.waiting[host],
                    host,
                    self.waiting.total(),
                )
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "too many streams waiting to say hello; try again later",
            )
        self.waiting[host] += 1
        problem = ""
        try:
            first = await asyncio.wait_for(anext(request_iterator), self.hello_timeout)
        except (TimeoutError, StopAsyncIteration):
            problem = "expected a hello message first"
        except Exception as e:  # malformed or oversized first message
            log.info("bad first message from %s: %s", peer, e)
            problem = "the first message is not a valid BotMessage"
        finally:
            self.waiting[host] -= 1
            if self.waiting[host] <= 0:
                del self.waiting[host]
        if problem:
            yield _error(pb.Error.BAD_HELLO, problem)
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
        if link.conn is not None or link.refuse_next > 0:
            link.refuse_next = max(0, link.refuse_next - 1)
            link.heard_hello("already_connected")
            yield _error(pb.Error.ALREADY_CONNECTED, ALREADY_CONNECTED)
            return
        if link.gone is not None and not link.persistent:
            link.heard_hello("closed")
            yield _error(
                pb.Error.PROTOCOL,
                f"this bot's seats are closed ({link.gone.detail}); do not reconnect",
            )
            return
        self._sessions += 1
        conn = Connection(f"s{self._sessions}", peer, batches=hello.batches)
        yield messages.welcome(
            bot_name=link.name,
            protocol_version=PROTOCOL_VERSION,
            session_id=conn.session_id,
            max_message_bytes=self.max_message_bytes,
            reconnect_grace=link.reconnect_grace,
            arena_version=__version__,
            batches=hello.batches,
        )
        link.heard_hello("welcome")
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
            await context.abort(grpc.StatusCode.UNAVAILABLE, DROPPED)

    async def _read(
        self, request_iterator: AsyncIterator[pb.BotMessage], link: BotLink, conn: Connection
    ) -> None:
        reason = "the bot closed the stream"
        try:
            async for msg in request_iterator:
                which = msg.WhichOneof("msg")
                if which == "answer":
                    link.on_answer(msg.answer)
                elif which == "answers":
                    for answer in msg.answers.answers:
                        link.on_answer(answer)
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
