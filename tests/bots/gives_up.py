"""Breaks one reconnect rule of docs/protocol.md: see ``gives_up`` in returning.py."""

import asyncio

import returning

if __name__ == "__main__":
    asyncio.run(returning.main("gives_up"))
