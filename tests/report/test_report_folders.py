"""Where a database's report goes by default: ``reports/NAME-HASH/``, one folder per
database, the same folder however the database is spelled, never one for two."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.errors import UsageProblem
from arena.report.cli import REPORTS, default_out, folder_name


def test_same_file_any_spelling_same_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    spellings = [
        "data/cup.db",
        "./data/cup.db",
        str(tmp_path / "data" / "cup.db"),
        f"sqlite:///{tmp_path / 'data' / 'cup.db'}",
        "sqlite:///data/cup.db",
    ]
    names = {folder_name(s) for s in spellings}
    assert len(names) == 1
    (name,) = names
    assert name.startswith("cup-") and len(name) == len("cup-") + 8


def test_two_files_of_one_name_get_two_folders(tmp_path: Path) -> None:
    a = folder_name(str(tmp_path / "spring" / "arena.db"))
    b = folder_name(str(tmp_path / "autumn" / "arena.db"))
    assert a != b and a.startswith("arena-") and b.startswith("arena-")


def test_a_server_database_is_named_by_its_database_not_its_password() -> None:
    one = folder_name("postgresql+psycopg://arena:secret1@db.example:5432/league")
    same = folder_name("postgresql+psycopg://arena:other@db.example:5432/league")
    other = folder_name("postgresql+psycopg://arena:secret1@db.example:5432/cup")
    assert one == same, "a changed password is the same database"
    assert one.startswith("league-") and other.startswith("cup-") and one != other
    assert "secret1" not in one


def test_the_default_database_and_the_private_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ARENA_DB", raising=False)
    public = default_out(None)
    assert public.parent == REPORTS and public.name == folder_name("arena.db")
    private = default_out(None, private=True)
    assert private == public.parent / (public.name + "-private")
    monkeypatch.setenv("ARENA_DB", "other.db")
    assert default_out(None).name == folder_name("other.db") != public.name
    assert os.listdir(tmp_path) == [], "naming a folder creates nothing"


def test_a_bare_word_is_not_a_database() -> None:
    with pytest.raises(UsageProblem, match=r"--db: 'foo' is not a database URL"):
        folder_name("foo")
