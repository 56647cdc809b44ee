"""Ignores SIGTERM (and SIGHUP, SIGINT) and plays normally: only SIGKILL ends it.
Its arguments (e.g. a marker) are ignored."""

import signal

import hostile

if __name__ == "__main__":
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    hostile.play(name="stubborn")
