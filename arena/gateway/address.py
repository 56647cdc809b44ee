"""``--listen HOST:PORT``: parsed and tried before anything is stored.

A bad address (``notaport``, ``host:99999``), an unknown host, an address that is not
this machine's or a port that another program holds is a usage error up front, so no
tournament is created that could never start.
"""

from __future__ import annotations

import contextlib
import errno
import socket

from arena.errors import UsageProblem

EXAMPLE = "e.g. 127.0.0.1:50051, 0.0.0.0:50051 or [::1]:50051"


def parse_listen(value: str, param: str = "--listen") -> tuple[str, int]:
    """``HOST:PORT`` (IPv6 hosts in brackets) → (host, port); port 0 means any free port."""
    host, sep, port = value.strip().rpartition(":")
    if not sep or not host:
        raise UsageProblem(f"give HOST:PORT, {EXAMPLE}; got {value!r}", param=param)
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or not port.isascii() or not port.isdigit():
        raise UsageProblem(f"give HOST:PORT, {EXAMPLE}; got {value!r}", param=param)
    number = int(port)
    if not 0 <= number <= 65535:
        raise UsageProblem(f"port must be between 0 and 65535, got {number}", param=param)
    return host, number


def check_listen(value: str, param: str = "--listen") -> str:
    """Parse ``value`` and bind it once (then let go), as the gateway will; a usage error
    says why it cannot be served."""
    host, port = parse_listen(value, param)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise UsageProblem(
            f"cannot listen on {value}: unknown host {host!r} ({e.strerror})", param=param
        ) from None
    family, kind, proto, _, address = infos[0]
    with contextlib.closing(socket.socket(family, kind, proto)) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the gateway does
        try:
            sock.bind(address)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                why = f"port {port} is already in use"
            elif e.errno == errno.EADDRNOTAVAIL:
                why = f"{host} is not an address of this machine"
            elif e.errno == errno.EACCES:
                why = f"no permission to use port {port}"
            else:
                why = e.strerror or str(e)
            raise UsageProblem(f"cannot listen on {value}: {why}", param=param) from None
    return value
