"""What a bot is (arena.bots): the command line's forms parse to one tagged source, and a
source survives storage and transport to a worker unchanged."""

from __future__ import annotations

import pickle

import pytest

from arena.bots import (
    Command,
    Image,
    Policy,
    Remote,
    SourceError,
    parse_source,
    source_dict,
    source_from_dict,
    suggested_name,
    unique_names,
)
from arena.runtime import RUNTIMES


@pytest.mark.parametrize(
    "source",
    [
        Command("python bot.py", env={"LEVEL": "3"}, share=("/tmp/log",), cwd="/srv"),
        Command("./bot"),
        Policy("threshold:23"),
        Image("sha256:" + "a" * 64),
        Remote("ab" * 32),
        Remote(),
    ],
)
def test_a_source_survives_json_and_pickling_unchanged(source: object) -> None:
    assert source_from_dict(source_dict(source)) == source  # type: ignore[arg-type]
    assert pickle.loads(pickle.dumps(source)) == source


@pytest.mark.parametrize(
    ("text", "name", "source"),
    [
        ("docker:flip7/ev:v1", None, Image("flip7/ev:v1")),
        ("builtin:ev", None, Policy("ev")),
        ("cautious=python bot.py 18", "cautious", Command("python bot.py 18")),
        ("python bots/x/bot.py", None, Command("python bots/x/bot.py")),
        ("a b=c", None, Command("a b=c")),  # a space before '=': all of it is the command
    ],
)
def test_each_command_line_form_parses_to_its_source(
    text: str, name: str | None, source: object
) -> None:
    assert parse_source(text) == (name, source)


def test_bad_forms_are_errors() -> None:
    with pytest.raises(SourceError):
        parse_source("docker:")
    with pytest.raises(SourceError):
        parse_source("builtin:nosuchpolicy")
    with pytest.raises(ValueError):
        source_from_dict({"kind": "teleport"})


def test_names_come_from_the_source_and_repeats_are_told_apart() -> None:
    assert suggested_name(Command("python bots/examples/python/ev/bot.py")) == "ev"
    assert suggested_name(Command("python strategies/greedy.py")) == "greedy"
    assert suggested_name(Image("registry/flip7/ev:v2")) == "ev"
    assert suggested_name(Policy("threshold:20")) == "threshold:20"
    assert unique_names(["ev", "ev", "random", "ev"]) == ["ev", "ev#2", "random", "ev#3"]


def test_every_source_that_starts_a_bot_has_a_registered_runtime() -> None:
    assert set(RUNTIMES) == {Command, Image, Remote}  # built-in policies play in-process
