"""The first process of a process bot: starts the bot's command and outlives nothing of it.

Run by the arena as ``python -I -S launch.py [options] -- COMMAND ...`` (standard library
only, so that it runs before any site-packages are visible), as the bot's sandbox's first
process: PID 1 of its PID namespace under bubblewrap, otherwise a child subreaper of the
arena. It

* forks the command with the resource limits applied (``--rlimit NAME=VALUE``), and, when
  given ``--uid``/``--gid``, as that user with no supplementary groups, no capabilities
  and no new privileges;
* is the parent of everything the command starts, even of children that call ``setsid()``
  or double-fork (as PID 1, or as a subreaper: orphans are handed to it, not to init);
* when the command exits, kills every process that is left and exits with the command's
  status (``128 + N`` for a command killed by signal N);
* on SIGTERM, SIGHUP or SIGINT sends SIGTERM to every process of the bot, and SIGKILL to
  whatever is still there ``--grace`` seconds later;
* with ``--cgroup DIR``, first moves itself into that cgroup (so the arena can kill the
  whole cgroup); with ``--pdeathsig``, gets SIGTERM when the arena dies.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import time
import warnings  # noqa: F401  (os.execvp needs it; import it while we still may)

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4

RLIMITS = {
    "data": resource.RLIMIT_DATA,
    "nproc": resource.RLIMIT_NPROC,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
}


def _prctl(option: int, arg: int = 0) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0))


def descendants(root: int) -> list[int]:
    """Every live (not zombie) process below ``root``, from /proc, parents first."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rpartition(b")")[2].split()
        if len(fields) < 2 or fields[0] == b"Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
    out: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out


def kill_tree(root: int, sig: int) -> int:
    """Send ``sig`` to every process below ``root``; returns how many were found."""
    found = descendants(root)
    for pid in found:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    return len(found)


def _reap() -> None:
    """Collect every child that has exited, without blocking."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _kill_everything(limit: float = 5.0) -> None:
    """SIGKILL every process below this one until none is left (a process may fork while
    we look: repeat), reaping as they go."""
    me = os.getpid()
    deadline = time.monotonic() + limit
    while kill_tree(me, signal.SIGKILL) and time.monotonic() < deadline:
        _reap()
        time.sleep(0.005)
    _reap()


def _drop_privileges(uid: int, gid: int) -> None:
    for cap in range(64):
        if _prctl(PR_CAPBSET_DROP, cap) != 0:
            break  # past the last capability this kernel knows
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


def _drop_capabilities() -> None:
    """Stay root, but with no capabilities at all (and none to regain on execve)."""
    for cap in range(64):
        if _prctl(PR_CAPBSET_DROP, cap) != 0:
            break
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    libc = ctypes.CDLL(None, use_errno=True)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: none (two words each)
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def _exec(
    argv: list[str], limits: dict[str, int], uid: int | None, gid: int | None, drop_caps: bool
) -> None:
    """In the forked child: become the bot."""
    try:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGALRM):
            signal.signal(sig, signal.SIG_DFL)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        if uid is not None:
            _drop_privileges(uid, gid if gid is not None else uid)
        elif drop_caps:
            _drop_capabilities()
        for name, value in limits.items():
            resource.setrlimit(RLIMITS[name], (value, value))
        _prctl(PR_SET_NO_NEW_PRIVS, 1)
        os.execvp(argv[0], argv)
    except Exception as e:
        sys.stderr.write(f"cannot run {argv[0]}: {getattr(e, 'strerror', None) or e}\n")
        sys.stderr.flush()
    os._exit(127)


def main(args: list[str]) -> int:
    if "--" not in args:
        sys.stderr.write("usage: launch.py [options] -- COMMAND ...\n")
        return 2
    split = args.index("--")
    opts, argv = args[:split], args[split + 1 :]
    if not argv:
        sys.stderr.write("launch.py: no command\n")
        return 2
    limits: dict[str, int] = {}
    uid = gid = None
    grace = 2.0
    home = cgroup = None
    subreaper = pdeathsig = drop_caps = False
    parent = os.getppid()
    i = 0
    while i < len(opts):
        opt = opts[i]
        if opt in ("--subreaper", "--pdeathsig", "--drop-caps"):
            subreaper = subreaper or opt == "--subreaper"
            pdeathsig = pdeathsig or opt == "--pdeathsig"
            drop_caps = drop_caps or opt == "--drop-caps"
            i += 1
            continue
        value = opts[i + 1]
        i += 2
        if opt == "--rlimit":
            name, _, number = value.partition("=")
            limits[name] = int(number)
        elif opt == "--uid":
            uid = int(value)
        elif opt == "--gid":
            gid = int(value)
        elif opt == "--grace":
            grace = float(value)
        elif opt == "--home":
            home = value
        elif opt == "--cgroup":
            cgroup = value
        else:
            sys.stderr.write(f"launch.py: unknown option {opt}\n")
            return 2
    if cgroup is not None:
        with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    if pdeathsig:
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the arena died before we asked
            return 143
    if subreaper:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    if home is not None:
        os.makedirs(home, mode=0o700, exist_ok=True)
        if uid is not None:
            os.chown(home, uid, gid if gid is not None else uid)

    stopping: list[float] = []

    def on_stop(signum: int, frame: object) -> None:
        if not stopping:
            stopping.append(time.monotonic())
            kill_tree(os.getpid(), signal.SIGTERM)
            signal.setitimer(signal.ITIMER_REAL, max(grace, 0.01))

    def on_alarm(signum: int, frame: object) -> None:
        kill_tree(os.getpid(), signal.SIGKILL)
        signal.setitimer(signal.ITIMER_REAL, 0.05)  # and again, for late forks

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGHUP, signal.SIGINT})
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_stop)
    signal.signal(signal.SIGALRM, on_alarm)
    child = os.fork()
    if child == 0:
        _exec(argv, limits, uid, gid, drop_caps)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGHUP, signal.SIGINT})
    status = None
    while status is None:
        try:
            pid, st = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == child:
            status = st
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    _kill_everything()
    if status is None:
        return 1
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
