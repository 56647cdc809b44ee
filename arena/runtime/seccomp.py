"""The system calls a sandboxed process bot may not make: a seccomp filter for bubblewrap.

Compiled once per arena process with libseccomp (through ``pyseccomp``, a ctypes binding:
the library is Debian's ``libseccomp2``) into the classic BPF program that ``bwrap
--seccomp FD`` installs on the bot's first process, before it runs anything of the bot's;
every process the bot starts inherits it and none can remove it.

Denied with EPERM: tracing and reading other processes (``ptrace``,
``process_vm_readv``/``writev``), mounting and changing the root, new namespaces
(``unshare``, ``setns``, and ``clone`` with any ``CLONE_NEW*`` flag; ``clone3``, whose
flags a filter cannot see, answers ENOSYS so that the C library falls back to ``clone``),
``bpf``, ``perf_event_open``, the kernel keyring, loading kernels and modules, rebooting,
swap, ``userfaultfd``, ``io_uring`` (its operations bypass the filter), file handles
(``open_by_handle_at``), port I/O, process accounting, quotas and setting the clock. A
system call of another architecture (the i386 or x32 ABI on x86_64) kills the process: it
would bypass the filter's numbers.
"""

from __future__ import annotations

import errno
import functools
import os

# denied with EPERM (names this architecture does not have are skipped)
DENIED = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "unshare",
    "setns",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_by_handle_at",
    "name_to_handle_at",
    "iopl",
    "ioperm",
    "acct",
    "quotactl",
    "quotactl_fd",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "stime",
    "lookup_dcookie",
    "syslog",
    "vhangup",
    "nfsservctl",
    "uselib",
)
# clone() flags that make a namespace: any of them is refused
CLONE_NEW = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
    0x00000080,  # CLONE_NEWTIME
)


@functools.cache
def program() -> tuple[bytes | None, str]:
    """The compiled filter (classic BPF for this machine's architecture), or None and why
    it cannot be made here."""
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]
    except (ImportError, OSError) as e:  # OSError: libseccomp.so.2 is missing
        return None, f"no seccomp filter: libseccomp cannot be loaded ({e})"
    try:
        f = sc.SyscallFilter(sc.ALLOW)
        f.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
        deny = sc.ERRNO(errno.EPERM)
        for name in DENIED:
            try:
                f.add_rule(deny, name)
            except (ValueError, RuntimeError, OSError):
                continue  # not a system call of this architecture
        for flag in CLONE_NEW:
            f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
        f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
        try:
            with os.fdopen(os.dup(fd), "w+b") as out:
                f.export_bpf(out)
            os.lseek(fd, 0, os.SEEK_SET)
            data = b""
            while chunk := os.read(fd, 1 << 16):
                data += chunk
        finally:
            os.close(fd)
    except Exception as e:  # libseccomp refuses: say so instead of running without
        return None, f"no seccomp filter: libseccomp failed ({e})"
    if not data:
        return None, "no seccomp filter: libseccomp made an empty program"
    return data, ""


def program_fd() -> int | None:
    """A fresh descriptor holding the filter, at its start (for ``bwrap --seccomp``; the
    caller passes it to bwrap and closes it), or None where there is no filter."""
    data, _ = program()
    if data is None:
        return None
    fd = os.memfd_create("arena-seccomp")
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
