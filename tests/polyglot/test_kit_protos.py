"""Each starter kit carries its own copy of the protocol file so that it builds wherever it
is copied; the copies must stay identical to protos/arena/v1/arena.proto, and no kit's
build may reach outside its own folder for it."""

from __future__ import annotations

import re

import pytest
from kit import EXAMPLES, ROOT

from arena.protocol import generate

PROTO = ROOT / "protos" / "arena" / "v1" / "arena.proto"
KITS = ("node", "cpp", "go", "java", "ruby")


@pytest.mark.parametrize("kit", KITS)
def test_the_kits_copy_of_the_proto_is_the_arenas(kit: str) -> None:
    copy = EXAMPLES / kit / "proto" / "arena" / "v1" / "arena.proto"
    assert copy.is_file(), f"{copy} is missing: run python -m arena.protocol.generate"
    assert copy.read_bytes() == PROTO.read_bytes(), (
        f"{copy.relative_to(ROOT)} differs from protos/arena/v1/arena.proto: "
        f"run python -m arena.protocol.generate"
    )
    assert copy in generate.kit_copies()  # the generator keeps this one in step


@pytest.mark.parametrize("kit", KITS)
def test_no_kit_build_looks_for_the_proto_outside_its_folder(kit: str) -> None:
    folder = EXAMPLES / kit
    sources = [folder / "build.sh", folder / "Dockerfile"]
    sources += [p for p in (folder / "CMakeLists.txt", folder / "bot.js") if p.exists()]
    for source in sources:
        text = source.read_text()
        escapes = re.findall(r"\.\./\.\./\.\.|/protos/arena|\$REPO|\$ROOT\b", text)
        assert escapes == [], f"{source.relative_to(ROOT)} reaches outside the kit: {escapes}"
