"""Defaults of the competition server's settings (``arena serve`` options), in a module of
their own so that the command line states them without loading the web framework."""

from __future__ import annotations

from datetime import timedelta

SESSION_IDLE = timedelta(days=2)  # a sign-in unused this long ends
SESSION_MAX = timedelta(days=14)  # and every sign-in ends this long after it began
STREAMS_PER_ADDRESS = 8  # open live-update streams from one client address at most
STREAMS_TOTAL = 200  # and in all
STREAM_RETRY_AFTER = 30  # seconds a client refused a stream is told to wait
