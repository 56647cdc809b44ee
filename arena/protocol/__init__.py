"""The bot protocol (arena.v1): generated messages and service stubs.

Regenerate with ``python -m arena.protocol.generate`` after editing the .proto.
"""

from arena.protocol import arena_pb2 as pb
from arena.protocol import arena_pb2_grpc as pb_grpc

PROTOCOL_VERSION = 1
SERVICE_NAME = "arena.v1.Arena"

__all__ = ["PROTOCOL_VERSION", "SERVICE_NAME", "pb", "pb_grpc"]
