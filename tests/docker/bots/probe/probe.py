"""Probes its sandbox before playing: every network attempt must fail, the root filesystem
must be read-only, /tmp writable, the user 10001 without capabilities. Prints one line
``PROBE {json}`` on stderr (the arena keeps the container's log), then plays normally."""

import json
import os
import socket
import sys

from arena.sdk import PolicyBot, run

PORT = int(os.environ.get("PROBE_PORT", "9"))
HOST = os.environ.get("PROBE_HOST", "192.0.2.1")


def attempt(fn):
    try:
        fn()
    except Exception as e:
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}
    return {"ok": True, "error": ""}


def tcp(host, port):
    def go():
        with socket.create_connection((host, port), timeout=3):
            pass

    return go


def udp_dns():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(3)
        # a DNS query for example.com, type A
        query = bytes.fromhex("abcd01000001000000000000076578616d706c6503636f6d0000010001")
        s.sendto(query, ("8.8.8.8", 53))
        s.recvfrom(512)


def write(path):
    def go():
        with open(path, "w") as f:
            f.write("x")

    return go


def status_field(name):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split(":", 1)[1].strip()
    return None


report = {
    "network": {
        f"tcp 127.0.0.1:{PORT}": attempt(tcp("127.0.0.1", PORT)),
        f"tcp {HOST}:{PORT}": attempt(tcp(HOST, PORT)),
        "tcp 8.8.8.8:53": attempt(tcp("8.8.8.8", 53)),
        "udp 8.8.8.8:53": attempt(udp_dns),
        "dns pypi.org": attempt(lambda: socket.getaddrinfo("pypi.org", 443)),
    },
    "interfaces": sorted(name for _, name in socket.if_nameindex()),
    "write": {
        "/tmp/x": attempt(write("/tmp/x")),
        "/home/bot/x": attempt(write("/home/bot/x")),
        "/bot/x": attempt(write("/bot/x")),
        "/run/arena/x": attempt(write("/run/arena/x")),
    },
    "uid": os.getuid(),
    "gid": os.getgid(),
    "cap_eff": status_field("CapEff"),
    "no_new_privs": status_field("NoNewPrivs"),
    "docker_socket": os.path.exists("/var/run/docker.sock"),
    "address": os.environ.get("ARENA_ADDRESS"),
    "env": sorted(os.environ),
}
print("PROBE " + json.dumps(report, sort_keys=True), file=sys.stderr, flush=True)

if __name__ == "__main__":
    run(PolicyBot("threshold:20"), name="probe")
