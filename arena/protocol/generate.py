"""Regenerate the Python code for the bot protocol from protos/arena/v1/arena.proto, and
refresh the starter kits' copies of the .proto.

    .venv/bin/python -m arena.protocol.generate          # rewrite arena/protocol/*_pb2*.py
    .venv/bin/python -m arena.protocol.generate --check  # exit 1 if they are out of date

The generated modules live in this package; their import of each other is made relative
so they do not clash with the ``arena`` package name. Each starter kit in another language
keeps its own copy of the .proto (``bots/examples/<kit>/proto/arena/v1/arena.proto``) so
that it builds wherever it is copied; this command keeps those copies identical.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PROTO_ROOT = ROOT / "protos"
PROTO = PROTO_ROOT / "arena" / "v1" / "arena.proto"
OUTPUTS = ("arena_pb2.py", "arena_pb2.pyi", "arena_pb2_grpc.py")
KITS = ("node", "cpp", "go", "java", "ruby")


def kit_copies() -> list[Path]:
    """The starter kits' copies of the .proto."""
    return [ROOT / "bots" / "examples" / k / "proto" / "arena" / "v1" / "arena.proto" for k in KITS]


def generate(out: Path) -> dict[str, str]:
    """Run protoc (grpcio-tools) and return {file name: fixed-up text}."""
    from grpc_tools import protoc  # a development dependency

    with tempfile.TemporaryDirectory() as tmp:
        rc = protoc.main(
            [
                "grpc_tools.protoc",
                f"-I{PROTO_ROOT}",
                f"--python_out={tmp}",
                f"--pyi_out={tmp}",
                f"--grpc_python_out={tmp}",
                str(PROTO),
            ]
        )
        if rc != 0:
            raise SystemExit(f"protoc failed with exit code {rc}")
        gen = Path(tmp) / "arena" / "v1"
        files = {}
        for name in OUTPUTS:
            text = (gen / name).read_text()
            text = text.replace("from arena.v1 import arena_pb2", "from . import arena_pb2")
            files[name] = text
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the files are current")
    args = ap.parse_args(argv)
    files = generate(HERE)
    stale = [n for n, t in files.items() if not (HERE / n).exists() or (HERE / n).read_text() != t]
    proto = PROTO.read_bytes()
    stale += [
        str(c.relative_to(ROOT)) for c in kit_copies() if not c.exists() or c.read_bytes() != proto
    ]
    if args.check:
        if stale:
            print(f"out of date: {', '.join(stale)}; run python -m arena.protocol.generate")
            return 1
        print("generated protocol code is up to date")
        return 0
    for name, text in files.items():
        (HERE / name).write_text(text)
    for copy in kit_copies():
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(proto)
    print(
        f"wrote {', '.join(OUTPUTS)} in {HERE.relative_to(ROOT)} and the kits' copies of the proto"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
