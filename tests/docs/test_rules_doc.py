"""docs/rules.md is the project's own rules specification: it defines every rule ID the
tests cite, every decision kind with the protocol's number, every event and every card
label the engine uses, and nothing in the repository points at a rules or design file
that is not in it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from arena.protocol import pb
from engine import DECISION_KINDS, RULESETS
from engine.events import EVENT_FIELDS

ROOT = Path(__file__).resolve().parents[2]
RULES = (ROOT / "docs" / "rules.md").read_text()
RULE_IDS = (
    [f"X{i}" for i in range(1, 11)]
    + [f"B{i}" for i in range(1, 8)]
    + ["B4a", "B4b", "B4c", "B4d"]
    + [f"V{i}" for i in range(1, 9)]
)


def defined_ids() -> set[str]:
    """IDs that open a rule: a ``### X1 ...`` heading or a ``- **B4a ...`` item."""
    headings = re.findall(r"^### ([XBV]\d+) ", RULES, re.M)
    items = re.findall(r"^- \*\*(B4[a-d]) ", RULES, re.M)
    return set(headings) | set(items)


def test_every_rule_id_is_defined_once() -> None:
    headings = re.findall(r"^### ([XBV]\d+) ", RULES, re.M)
    assert len(headings) == len(set(headings))
    assert defined_ids() == set(RULE_IDS)


def test_every_rule_id_a_test_name_cites_is_defined() -> None:
    cited = set()
    for path in (ROOT / "tests" / "engine").glob("test_*.py"):
        for m in re.finditer(r"^def test_([xbv]\d+[a-d]?)_", path.read_text(), re.M):
            rule = m.group(1)
            cited.add(rule[0].upper() + rule[1:])  # test_b4a_... cites B4a
    assert {"X1", "B4a", "V8"} <= cited  # the scan found the rule tests
    assert cited <= defined_ids(), cited - defined_ids()


def test_the_decision_table_lists_every_kind_with_its_protocol_number() -> None:
    rows = dict(re.findall(r"^\| `([A-Z0-9_]+)` \((\d+)\) \|", RULES, re.M))
    assert set(rows) == set(DECISION_KINDS)
    for kind, number in rows.items():
        assert pb.DecisionKind.Value(kind) == int(number)


def test_the_event_table_lists_every_event_with_its_fields() -> None:
    rows = dict(re.findall(r"^\| `([a-z0-9_]+)` \| ([^|]*) \|", RULES, re.M))
    assert set(EVENT_FIELDS) <= set(rows), set(EVENT_FIELDS) - set(rows)
    for kind, names in EVENT_FIELDS.items():
        if kind == "swap":  # sent as seats = [a, b], cards = [card_a, card_b]
            names = ("seat", "seats", "cards")
        documented = set(re.findall(r"`(\w+)`", rows[kind]))
        assert set(names) == documented, (kind, names, documented)


def test_every_card_label_and_deck_size_is_documented() -> None:
    table = RULES.split("## Card labels")[1].split("\n## ")[0]
    labels = set(re.findall(r"`([^`\s]+)`", table))
    for low, high in re.findall(r"`(\d+)` … `(\d+)`", table):  # number ranges: `1` … `13`
        labels |= {str(n) for n in range(int(low), int(high) + 1)}
    for name, rules in RULESETS.items():
        missing = {t.label for t in rules.types} - labels
        assert not missing, (name, missing)
    assert "### B1 The deck (94 cards)" in RULES and RULESETS["base"].deck_size == 94
    assert "### V1 The deck (108 cards)" in RULES and RULESETS["vengeance"].deck_size == 108


SOURCE_SUFFIXES = {".py", ".proto", ".md", ".js", ".go", ".java", ".cpp", ".h", ".sh", ".toml"}
SKIP_DIRS = {".git", ".venv", "node_modules", "build", "reports"}


def _project_files() -> list[Path]:
    """The repository's files: tracked or new, not ignored build products (a kit's build
    copies the .proto into its own ignored folder)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the tree
        return [p for p in ROOT.rglob("*") if not SKIP_DIRS & set(p.relative_to(ROOT).parts)]
    return [ROOT / name for name in listed.split("\0") if name]


def test_no_reference_to_documents_outside_the_repository() -> None:
    gone = ("RULES" + ".md", "DESIGN" + ".md")  # spelled apart so this file does not match
    hits = []
    for path in _project_files():
        rel = path.relative_to(ROOT)
        if path.suffix not in SOURCE_SUFFIXES or SKIP_DIRS & set(rel.parts) or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        hits += [f"{rel}: {g}" for g in gone if g in text]
    assert not hits
