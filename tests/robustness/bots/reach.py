"""Before it connects, reaches for what a bot must never see and notes what it got; then
plays normally.

* ``REACH_READ`` (JSON list of paths): reads the first 16 bytes of each — the arena's
  database under other names, /etc/shadow, another bot's files;
* ``REACH_LIST`` (JSON list of folders): lists each — the arena's working directory,
  /var/lib/docker, /root, /home;
* ``REACH_CONNECT`` (HOST:PORT): opens a TCP connection there (a listener of the test's);
* who it is: its uid, gid and groups, the Uid/Gid/CapEff lines of /proc/self/status;
* ``REACH_SYSCALLS=1``: calls ptrace, unshare, mount, bpf, keyctl, setns, perf_event_open
  and userfaultfd through ctypes and notes each result and errno;
* ``REACH_HOLD`` (a path it may write): once it has noted all that, it writes ``held`` there
  and waits (up to a minute) until the test writes ``go``, so that the test can look at the
  bot's process from outside (before the bot connects: no decision waits on it);
* ``REACH_LATE_READ`` / ``REACH_LATE_LIST`` (JSON lists): once the test wrote ``go``, reads
  and lists those too and notes them as the event ``late`` (what appeared while it ran).
"""

import ctypes
import json
import os
import socket
import time

import hostile

SYSCALLS = {  # x86_64 numbers and harmless arguments
    "ptrace": (101, [0, 0, 0, 0]),  # PTRACE_TRACEME
    "unshare": (272, [0x10000000]),  # CLONE_NEWUSER
    "mount": (165, [b"none", b"/tmp", b"tmpfs", 0, 0]),
    "bpf": (321, [5, 0, 0]),  # BPF_PROG_LOAD without a program
    "keyctl": (250, [0, -3, 0]),  # KEYCTL_GET_KEYRING_ID of the session keyring
    "setns": (308, [0, 0]),
    "perf_event_open": (298, [0, 0, -1, -1, 0]),
    "userfaultfd": (323, [0]),
}


def read(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            return {"path": path, "ok": True, "head": f.read(16).hex()}
    except OSError as e:
        return {"path": path, "ok": False, "error": e.strerror}


def listing(path: str) -> dict:
    try:
        return {"path": path, "ok": True, "names": sorted(os.listdir(path))}
    except OSError as e:
        return {"path": path, "ok": False, "error": e.strerror}


def connect(address: str) -> dict:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            return {"address": address, "ok": True}
    except OSError as e:
        return {"address": address, "ok": False, "error": str(e)}


def status() -> dict:
    with open("/proc/self/status") as f:
        lines = dict(ln.rstrip("\n").split(":\t", 1) for ln in f if ":\t" in ln)
    return {k: lines.get(k) for k in ("Uid", "Gid", "Groups", "CapEff", "Seccomp")}


def syscalls() -> dict:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    out = {}
    for name, (number, args) in SYSCALLS.items():
        ctypes.set_errno(0)
        cargs = [ctypes.c_char_p(a) if isinstance(a, bytes) else ctypes.c_long(a) for a in args]
        result = libc.syscall(ctypes.c_long(number), *cargs)
        out[name] = [result, ctypes.get_errno()]
    return out


def attack() -> None:
    found = {
        "event": "reach",
        "pid": os.getpid(),
        "uid": [os.getuid(), os.geteuid(), os.getgid(), os.getegid()],
        "groups": os.getgroups(),
        "status": status(),
        "cwd": os.getcwd(),
        "reads": [read(p) for p in json.loads(os.environ.get("REACH_READ", "[]"))],
        "lists": [listing(p) for p in json.loads(os.environ.get("REACH_LIST", "[]"))],
    }
    if os.environ.get("REACH_CONNECT"):
        found["connect"] = connect(os.environ["REACH_CONNECT"])
    if os.environ.get("REACH_SYSCALLS") == "1":
        found["syscalls"] = syscalls()
    hostile.note(**found)
    hold = os.environ.get("REACH_HOLD")
    if hold:
        with open(hold, "w") as f:
            f.write("held")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with open(hold) as f:
                if f.read() == "go":
                    break
            time.sleep(0.02)
        late_reads = json.loads(os.environ.get("REACH_LATE_READ", "[]"))
        late_lists = json.loads(os.environ.get("REACH_LATE_LIST", "[]"))
        if late_reads or late_lists:
            hostile.note(
                event="late",
                reads=[read(p) for p in late_reads],
                lists=[listing(p) for p in late_lists],
            )


if __name__ == "__main__":
    attack()
    hostile.play(name="reach")
