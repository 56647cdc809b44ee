"""``arena serve``'s bad input: one ``error:`` line, exit 2, and no database created."""

from __future__ import annotations

from pathlib import Path

import pytest
from arenacli import run_arena


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--listen", "nope"], "error: --listen: give HOST:PORT"),
        (["--listen", "127.0.0.1:99999"], "error: --listen: port must be between 0 and 65535"),
        (["--grpc", "192.0.2.7:5000"], "error: --grpc: cannot listen on 192.0.2.7:5000"),
    ],
)
def test_a_bad_address_is_one_error_line_and_creates_nothing(
    args: list[str], says: str, tmp_path: Path
) -> None:
    db = tmp_path / "arena.db"
    r = run_arena("serve", *args, "--db", f"sqlite:///{db}")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(says), r.stderr
    assert not db.exists()


def test_serve_help_states_the_upload_limits() -> None:
    from arena import limits

    r = run_arena("serve", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert f"{limits.UPLOADS_PER_HOUR} uploads an hour" in text
    assert "[default: 127.0.0.1:8077]" in text


def test_the_static_report_has_none_of_the_live_sites_parts(tmp_path: Path) -> None:
    from arena.report import render_site
    from arena.report.site import render_page

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    result = render_site(db, tmp_path / "out")
    html = result.index.read_text()
    assert "live.js" not in html and "Sign in" not in html and "data-stream" not in html
    assert not (tmp_path / "out" / "live.js").exists()
    assert "Static report rendered" in html
    # the live site renders the very same template, with its parts
    live = render_page(
        db,
        "index.html",
        extra={
            "live": {
                "user": None,
                "organiser": False,
                "csrf": "t",
                "stream": "api/stream",
                "refresh": True,
                "grpc": None,
                "read_only_uploads": False,
            }
        },
    )
    assert live is not None and "live.js" in live and 'data-stream="api/stream"' in live
