"""Forks children (each waits to be killed) until fork fails, prints ``FORKED {json}`` with
the count on stderr, kills and reaps them, then plays normally. Before any thread exists
(gRPC starts threads), so the count is processes only."""

import json
import os
import signal
import sys

children = []
error = ""
while len(children) < 100_000:
    try:
        pid = os.fork()
    except OSError as e:
        error = f"{type(e).__name__}: {e}"
        break
    if pid == 0:
        signal.pause()
        os._exit(0)
    children.append(pid)
report = {"forked": len(children), "error": error}
print("FORKED " + json.dumps(report), file=sys.stderr, flush=True)
for pid in children:
    os.kill(pid, signal.SIGKILL)
for pid in children:
    os.waitpid(pid, 0)

from arena.sdk import PolicyBot, run  # noqa: E402  (threads only now)

if __name__ == "__main__":
    run(PolicyBot("threshold:20"), name="forkbomb")
