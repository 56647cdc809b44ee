"""What only the Ruby kit has: its language is told from its files, and its base image is
one of the arena's offline bases (an upload is built on a base listed there)."""

from __future__ import annotations

from kit import EXAMPLES

from arena.runtime.bases import BASES, kit_language, known_base


def test_the_ruby_kit_is_told_by_its_files_and_builds_on_the_ruby_base() -> None:
    assert kit_language(EXAMPLES / "ruby") == "ruby"
    base = BASES["ruby"]
    assert known_base("flip7/ruby-base") == base
    assert base.recipe().startswith("EXTRA_PACKAGES=ruby,ruby-grpc bash ")
    assert base.recipe().endswith(" flip7/ruby-base:latest")
    dockerfile = (EXAMPLES / "ruby" / "Dockerfile").read_text()
    assert f"ARG BASE={base.image}\n" in dockerfile
    assert f"EXTRA_PACKAGES={base.extra_packages} " in dockerfile
