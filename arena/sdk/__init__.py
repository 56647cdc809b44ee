"""Python SDK for Flip 7 Arena bots. See :mod:`arena.sdk.client` for a ten-line bot."""

from arena.sdk.client import Bot, BotRejected, Client, GameInfo, Request, run
from arena.sdk.policy_bot import PolicyBot

__all__ = [
    "Bot",
    "BotRejected",
    "Client",
    "GameInfo",
    "PolicyBot",
    "Request",
    "run",
]
