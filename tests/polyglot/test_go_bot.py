"""The Go example bot (bots/examples/go): it builds offline from Debian packages, passes the
protocol compliance suite (both variants, every decision kind, 16 games at once, a dropped
stream) and plays a match against the Python example bots without a fault.

The build needs golang-go, protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc,
golang-google-grpc-dev, golang-google-protobuf-dev and golang-github-golang-protobuf-1-5-dev.
Locally the tests skip when that toolchain is missing; under CI (CI=true) a missing
toolchain or a failed build fails the run.
"""

from __future__ import annotations

import pytest
from kit import build, build_output, check_names, play_python_bots, run_build


@pytest.fixture(scope="session")
def go_bot() -> str:
    return build("go")


@pytest.mark.timeout(600)
def test_go_unit_tests(go_bot: str) -> None:
    """go vet and the strategy's own tests (rules model, legal and fast answers)."""
    proc = run_build("go", "test")
    assert proc.returncode == 0, f"build.sh test failed:\n{build_output(proc)}"
    assert "go test: ok" in proc.stdout


@pytest.mark.timeout(600)
def test_go_bot_passes_the_compliance_suite(go_bot: str) -> None:
    names = check_names(go_bot)
    assert {"connects", "answers legally", "many games at once", "survives a reconnect"} <= names


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "brutal"), [("base", False), ("vengeance", True)])
def test_go_bot_plays_python_bots(go_bot: str, variant: str, brutal: bool) -> None:
    result = play_python_bots("go", go_bot, variant=variant, brutal=brutal, seed=7)
    assert all(len(g.totals) == 3 and "go" in g.seating for g in result.games)
    assert all(max(g.totals) >= 200 for g in result.games)
    assert result.decisions > 0
