"""Breaks one reconnect rule of docs/protocol.md: see ``skips_resent`` in returning.py."""

import asyncio

import returning

if __name__ == "__main__":
    asyncio.run(returning.main("skips_resent"))
