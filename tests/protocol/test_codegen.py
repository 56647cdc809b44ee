"""The generated Python protocol code is reproducible and current with the .proto."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from arena.protocol import generate

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_is_up_to_date_with_the_proto() -> None:
    files = generate.generate(generate.HERE)
    for name, text in files.items():
        committed = (generate.HERE / name).read_text()
        assert committed == text, f"{name} is stale: run python -m arena.protocol.generate"


def test_the_check_command_reports_current_code() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "arena.protocol.generate", "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "up to date" in r.stdout


def test_every_message_and_field_of_the_proto_is_documented() -> None:
    """Bot authors in other languages read the .proto: each message, enum and field has a
    comment on it or on the line(s) just above it."""
    lines = generate.PROTO.read_text().splitlines()
    undocumented = []
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith("//") or s in ("}", "{"):
            continue
        is_decl = s.startswith(("message ", "enum ", "rpc ", "oneof ")) or (
            "=" in s and s.endswith(";") and not s.startswith(("syntax", "package", "option"))
        )
        if not is_decl:
            continue
        if "//" in s:
            continue
        above = lines[i - 1].strip() if i else ""
        if above.startswith("//"):
            continue
        if s.endswith("_UNSPECIFIED = 0;"):  # proto3's required zero value
            continue
        undocumented.append(f"line {i + 1}: {s}")
    assert undocumented == []
