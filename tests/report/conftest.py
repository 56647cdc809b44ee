"""Fixtures of the report tests: one real stored event per session (see reportkit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from reportkit import ARTIFACTS, Site, build_site


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    return build_site(tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Screenshots are kept here after the run (the folder's contents are ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
