"""``arena simulate --games 10^12`` ran until it was killed: its counts are bounded like
every other command's, a usage error at once (exit 2) that states the limit."""

from __future__ import annotations

import pytest
from clikit import arena, one_line_error

from arena import limits


@pytest.mark.parametrize(
    ("args", "option", "limit"),
    [
        (("--games", str(10**12)), "--games", f"{limits.MAX_SIMULATE_GAMES:,}"),
        (("--games", "0"), "--games", f"{limits.MAX_SIMULATE_GAMES:,}"),
        (("--games", str(10**12), "--rotate"), "--games", f"{limits.MAX_SIMULATE_GAMES:,}"),
        (("--seats", "19"), "--seats", "18"),
        (("--seats", "0"), "--seats", "18"),
    ],
)
def test_simulate_refuses_absurd_counts_at_once(
    args: tuple[str, ...], option: str, limit: str
) -> None:
    # the timeout is the test: before the bound, --games 10^12 ran for days
    line = one_line_error(arena("simulate", *args, timeout=60), 2)
    assert option in line and limit in line, line


def test_simulate_help_states_the_games_limit() -> None:
    shown = " ".join(arena("simulate", "--help").stdout.split())
    assert f"1–{limits.MAX_SIMULATE_GAMES:,}" in shown
