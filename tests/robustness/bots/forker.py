"""Starts children meant to outlive it, then plays normally. ``forker.py MODE MARKER``:

* ``setsid``: ``setsid sleep MARKER`` in a session of its own, holding the bot's stdout;
* ``ignore-term``: a child that ignores SIGTERM (and holds stdout);
* ``double-fork``: a grandchild whose parent exited at once (an orphan), in a new
  session, with its pipes closed;
* ``all``: each of the above.
"""

import os
import subprocess
import sys

import hostile

MODE, MARKER = sys.argv[1], sys.argv[2]


def setsid() -> None:
    subprocess.Popen(["setsid", "sleep", MARKER])


def ignore_term() -> None:
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1000)"
    subprocess.Popen([sys.executable, "-c", code, MARKER])


def double_fork() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in (0, 1, 2):
                os.close(fd)
            os.execvp("sleep", ["sleep", MARKER])
        os._exit(0)
    os.wait()


STARTS = {"setsid": [setsid], "ignore-term": [ignore_term], "double-fork": [double_fork]}
STARTS["all"] = [setsid, ignore_term, double_fork]

if __name__ == "__main__":
    for start in STARTS[MODE]:
        start()
    hostile.note(event="started", mode=MODE)
    hostile.play(name="forker")
