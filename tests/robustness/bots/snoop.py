"""Looks for other processes' secrets and tries to kill them, then plays normally.

Reads /proc/<pid>/environ of every process it can see (and of $VICTIM_PID, a process the
test started outside the arena), noting every ARENA_TOKEN that is not its own and any
$VICTIM_SECRET; sends SIGKILL to every process it can see but itself and its ancestors,
and to $VICTIM_PID; notes each attempt's outcome.
"""

import os
import signal

import hostile

MINE = os.environ.get("ARENA_TOKEN", "")
SECRET = os.environ.get("VICTIM_SECRET", "")


def ancestors() -> set[int]:
    out, pid = set(), os.getpid()
    while pid > 0:
        out.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rpartition(")")[2].split()[1])
        except OSError:
            break
    return out


def attack() -> None:
    victim = int(os.environ.get("VICTIM_PID", "0"))
    pids = sorted({int(p) for p in os.listdir("/proc") if p.isdigit()} | {victim})
    tokens, secrets, read_errors = [], [], []
    mine = ancestors()
    for pid in pids:
        if pid in mine:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError as e:
            read_errors.append([pid, e.errno])
            continue
        for var in env:
            key, _, value = var.decode(errors="replace").partition("=")
            if key == "ARENA_TOKEN" and value != MINE:
                tokens.append(value)
            if SECRET and SECRET in value:
                secrets.append(pid)
    kills = []
    for pid in pids:
        if pid in mine or pid <= 0:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            kills.append([pid, "killed"])
        except OSError as e:
            kills.append([pid, e.strerror])
    hostile.note(
        event="attack",
        visible=pids,
        tokens=tokens,
        secrets=secrets,
        read_errors=read_errors,
        kills=kills,
        victim=victim,
    )


if __name__ == "__main__":
    hostile.play(attack, name="snoop")
