"""docs/protocol.md is where the arena sends bot authors: every link to one of its sections
(from `arena bot check`'s rules, the gateway's status details, the proto's comments and the
other docs) names a section that exists, and its numbers are the arena's."""

from __future__ import annotations

import re
from pathlib import Path

from arena import check, limits
from arena.gateway import link, server

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
LINK = re.compile(r"(?:docs/)?protocol\.md#([a-z0-9-]+)")


def slug(heading: str) -> str:
    """A Markdown heading's anchor as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(m[1]) for m in re.finditer(r"^#+ (.+)$", path.read_text(), re.M)}


def test_every_link_to_a_section_of_the_protocol_page_exists() -> None:
    sections = anchors(DOC)
    sources = [
        Path(check.__file__),
        Path(server.__file__),
        ROOT / "protos" / "arena" / "v1" / "arena.proto",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "bots" / "examples").glob("*/README.md")),
    ]
    seen = set()
    for source in sources:
        for name in LINK.findall(source.read_text()):
            assert name in sections, f"{source.relative_to(ROOT)} links to a missing #{name}"
            seen.add(name)
    rules = {check.RULE_RECONNECT, check.RULE_ALREADY_CONNECTED, check.RULE_GRACE}
    assert {r.split("#")[1] for r in rules} <= seen
    assert "docs/protocol.md#reconnecting" in server.DROPPED
    assert "docs/protocol.md#already-connected" in server.ALREADY_CONNECTED


def test_the_numbers_on_the_protocol_page_are_the_arenas() -> None:
    text = DOC.read_text()
    grace_ms = int(limits.DEFAULT_RECONNECT_GRACE * 1000)
    assert f"**{grace_ms:,} ms** in matches and events" in text
    assert f"(**{int(check.RECONNECT_GRACE * 1000):,} ms** under" in text
    assert f"| answers beyond one per request | {link.FLOOD_ALLOWANCE} per stream |" in text
    assert f"latest {link.MISSED_ENDS})" in text
    assert f"{server.DEFAULT_MAX_MESSAGE:,}" in text
    assert f"up to {server.DEFAULT_MAX_SEND // 2**20} MiB" in text
    assert f"**{int(limits.DEFAULT_START_TIMEOUT)} s** of being started" in text
    assert f"A seat with **{limits.DEFAULT_MAX_STRIKES}**" in text
