"""No participant reaches another's bot through an upload (a real ``arena serve``, a real
Docker engine).

The repro: ``victim`` uploads a bot whose source holds a secret. Another participant then
uploads a Dockerfile that starts FROM the victim's image, or COPYs the bot's file out of it
(directly or through an ARG), and prints it in the build log, which the uploader reads;
and uploads bots named ``Victim`` and ``VICTIM``, which used to register beside ``victim``
and move the tag of its image to theirs. Each is refused: the secret appears in nothing
the thief can read, nothing is registered for the thief, and the victim's image keeps its
tag and its id. The owner's own ``VICTIM`` upload is the next version of ``victim``.
"""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path
from typing import Any

import docker.errors
import httpx
import pytest
from test_uploads import post, tar_gz

from arena.participants import add_participant
from arena.registry import latest

ROOT = Path(__file__).resolve().parents[2]
EV = ROOT / "bots" / "examples" / "python" / "ev" / "bot.py"


def _everything_the_thief_reads(c: httpx.Client, auth: dict[str, str]) -> str:
    """Every build of the thief with its detail and whole log, as the site shows them."""
    seen = []
    for b in c.get("/api/me/builds", headers=auth).json():
        seen.append(str(b))
        seen.append(str(c.get(f"/api/builds/{b['id']}", headers=auth).json()))
    return "\n".join(seen)


@pytest.mark.timeout(1200)
def test_another_participants_image_cannot_be_built_on_copied_or_renamed(
    tmp_path: Path, serve: Any, docker_engine: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice = add_participant(db, "alice").token
    mallory = add_participant(db, "mallory").token
    server = serve(db)
    c = server.client()
    thief = {"authorization": f"Bearer {mallory}"}

    secret = f"SECRET-{uuid.uuid4().hex}"
    victim = f"victim-{uuid.uuid4().hex[:6]}"
    source = EV.read_bytes() + f"\n# {secret}\n".encode()
    r = post(c, alice, victim, "bot.py", source, wait=True)
    assert r.status_code == 200, r.text
    bot, version = latest(db, victim)
    tag, digest = version.image, version.digest
    assert tag == f"flip7-bot/bot-{bot.id}:v1"  # from the bot's id, never its name
    assert docker_engine.api.inspect_image(tag)["Id"] == digest
    try:
        copies = {
            "from": f"FROM {tag}\nRUN cat /bot/bot.py\n",
            "copy": (
                f"FROM flip7/python-base:latest\nCOPY --from={tag} /bot/bot.py .\nRUN cat bot.py\n"
            ),
            "arg": f"ARG X={tag}\nFROM $X\nRUN cat /bot/bot.py\n",
            "arg-copy": (
                f"FROM flip7/python-base:latest\nARG X={tag}\n"
                "COPY --from=$X /bot/bot.py .\nRUN cat bot.py\n"
            ),
        }
        for what, dockerfile in copies.items():
            r = post(
                c,
                mallory,
                f"copy-{what}",
                "copy.tar.gz",
                tar_gz({"Dockerfile": dockerfile.encode()}),
            )
            assert r.status_code == 400, (what, r.text)  # refused before it is queued
            detail = r.json()["detail"]
            assert "not one of the arena's bases" in detail and "flip7/python-base" in detail
            assert "\n" not in detail and secret not in r.text
            assert "/tmp" not in detail and detail.startswith("Dockerfile line")
        assert c.get("/api/me/builds", headers=thief).json() == []  # nothing stored, nothing built
        for impostor in (victim.capitalize(), victim.upper()):
            r = post(c, mallory, impostor, "bot.py", EV.read_bytes())
            assert r.status_code == 409, (impostor, r.text)
            assert "taken by another participant's bot" in r.json()["detail"]
        assert secret not in _everything_the_thief_reads(c, thief)
        assert c.get("/api/me/bots", headers=thief).json() == []
        # the victim's bot is untouched: one version, its image still tagged and the same
        owner = {"authorization": f"Bearer {alice}"}
        assert c.get("/api/me/bots", headers=owner).json() == [
            {"name": victim, "runtime": "docker", "version": 1}
        ]
        assert docker_engine.api.inspect_image(tag)["Id"] == digest
        assert latest(db, victim)[1].digest == digest
        # the owner's own other spelling is the same bot: its next version, same name
        r = post(c, alice, victim.upper(), "bot.py", EV.read_bytes(), wait=True)
        assert r.status_code == 200 and r.json()["version"] == 2, r.text
        assert c.get("/api/me/bots", headers=owner).json() == [
            {"name": victim, "runtime": "docker", "version": 2}
        ]
        second = latest(db, victim)[1].image
        assert second == f"flip7-bot/bot-{bot.id}:v2"
        assert docker_engine.api.inspect_image(tag)["Id"] == digest  # v1 keeps its tag
    finally:
        for image in (tag, f"flip7-bot/bot-{bot.id}:v2"):
            with contextlib.suppress(docker.errors.ImageNotFound):
                docker_engine.api.remove_image(image, force=True)
