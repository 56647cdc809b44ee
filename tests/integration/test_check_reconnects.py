"""`arena bot check` judges the reconnect rules of docs/protocol.md one by one: a bot that
breaks one of them fails that check, and the check names the rule and its section.

The bots (tests/bots/returning.py and one script per broken rule) talk raw gRPC; the arena
drops the stream with requests pending and refuses the first returns with
ALREADY_CONNECTED (arena.check.DropProbe).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from arena.bots import Command
from arena.check import (
    RULE_ALREADY_CONNECTED,
    RULE_GRACE,
    RULE_RECONNECT,
    Check,
    check_reconnects,
)

BOTS = Path(__file__).resolve().parents[1] / "bots"
RULES = (
    "reconnects within the grace period",
    "retries ALREADY_CONNECTED",
    "answers the requests sent again",
)


def checks_of(script: str) -> dict[str, Check]:
    checks = asyncio.run(check_reconnects(Command(f"{sys.executable} {BOTS / script}")))
    assert [c.name for c in checks] == list(RULES)
    return {c.name: c for c in checks}


@pytest.mark.timeout(120)
def test_a_bot_that_follows_the_rules_passes_every_reconnect_check() -> None:
    checks = checks_of("returning.py")
    assert all(c.ok for c in checks.values()), checks
    assert "refused 2 time(s) with ALREADY_CONNECTED" in checks[RULES[1]].detail
    assert "were answered" in checks[RULES[2]].detail


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("script", "broken", "rule", "says"),
    [
        # UNAVAILABLE read as "the arena is gone": it exits instead of reconnecting
        ("gives_up.py", RULES[0], RULE_RECONNECT, "instead of reconnecting, the bot ended"),
        # back after the grace period: its seats forfeited
        ("late.py", RULES[0], RULE_GRACE, "forfeited their games as DISCONNECT"),
        # ALREADY_CONNECTED taken as final
        ("no_retry.py", RULES[1], RULE_ALREADY_CONNECTED, "gave up instead of trying again"),
        # a request sent again taken for a duplicate
        ("skips_resent.py", RULES[2], RULE_RECONNECT, "never answered"),
    ],
)
def test_a_bot_that_breaks_a_reconnect_rule_fails_that_check_naming_the_rule(
    script: str, broken: str, rule: str, says: str
) -> None:
    checks = checks_of(script)
    failed = checks[broken]
    assert not failed.ok, failed
    assert says in failed.detail, failed.detail
    assert failed.rule == rule and f"(rule: {rule})" in failed.detail
    assert failed.as_dict()["rule"] == rule
    # the rules before the broken one were kept
    for name in RULES[: RULES.index(broken)]:
        assert checks[name].ok, checks[name]
