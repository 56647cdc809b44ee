"""A bot's Dockerfile is hostile code: its build runs sandboxed (arena.runtime.build).

Each test builds a Dockerfile that attacks the machine the way a bot author could (reach
the network, eat memory, fork without end, run forever, send or write gigabytes) on a real
Docker engine, and asserts what the arena does: the build fails or is stopped with a clear
reason, and leaves no container and no image behind. Where a control build shows that the
attack itself works outside the limit, it runs too, so that a test cannot pass for the
wrong reason.
"""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox_kit import BASE, Listener, context, engine, leftovers, listener, unavailable

from arena.errors import ArenaError, UsageProblem
from arena.runtime.build import BuildStopped, build_image, plan_build
from arena.runtime.build_sandbox import BuildLimits

__all__ = ["engine", "listener"]  # fixtures


def _marker() -> str:
    return f"attack-{uuid.uuid4().hex[:12]}"


def _tag(marker: str) -> str:
    return f"flip7-test/{marker}:latest"


@pytest.fixture
def tags(engine: Any) -> Iterator[list[str]]:
    """Tags of the images a test built on purpose (its control builds), removed afterwards
    whatever the outcome."""
    made: list[str] = []
    yield made
    for tag in made:
        with contextlib.suppress(Exception):
            engine.api.remove_image(tag)


def _gone(client: Any, tag: str) -> bool:
    try:
        client.api.inspect_image(tag)
    except Exception:
        return True
    return False


@pytest.mark.timeout(300)
def test_a_build_step_that_reaches_for_the_network_fails_and_connects_nowhere(
    engine: Any, listener: Listener, tmp_path: Path, tags: list[str]
) -> None:
    marker = _marker()
    tags.append(_tag(marker))
    probe = (
        f"RUN python3 -c \"import socket; socket.create_connection(('{listener.host}', "
        f"{listener.port}), timeout=5); print('{marker} reached')\"\n"
    )
    ctx = context(tmp_path / "offline", f"FROM {BASE}\n{probe}")
    with pytest.raises(ArenaError) as err:
        build_image(ctx, _tag(marker))
    assert "Network is unreachable" in str(err.value)
    assert listener.connections() == 0
    assert _gone(engine, _tag(marker))
    # control: with a network explicitly allowed the same step does reach the listener
    built = build_image(ctx, _tag(marker), limits=BuildLimits(network="host"))
    assert f"{marker} reached" in built.log_tail
    assert listener.connections() == 1


@pytest.mark.timeout(300)
def test_a_build_step_over_its_memory_limit_is_killed(
    engine: Any, tmp_path: Path, tags: list[str]
) -> None:
    marker = _marker()
    tags.append(_tag(marker))
    hog = f"RUN python3 -c \"x = b'1' * (300 << 20); print('{marker}', len(x))\"\n"
    ctx = context(tmp_path / "hog", f"FROM {BASE}\n{hog}")
    with pytest.raises(ArenaError) as err:
        build_image(ctx, _tag(marker), limits=BuildLimits(memory="128m"))
    message = str(err.value)
    assert "returned a non-zero code: 137" in message
    assert "memory limit of 128m" in message
    assert leftovers(engine, marker) == []
    # control: the step needs ~300 MiB and gets them under a 1 GiB limit
    built = build_image(ctx, _tag(marker), limits=BuildLimits(memory="1g"))
    assert f"{marker} {300 << 20}" in built.log_tail


BOMB = """
import os, sys, time
n = 0
try:
    while n < 2000:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        n += 1
except OSError:
    pass
print(sys.argv[1], "forked", n)
"""


@pytest.mark.timeout(300)
def test_a_fork_bomb_in_a_build_step_is_held_to_the_process_limit(
    engine: Any, tmp_path: Path, tags: list[str]
) -> None:
    marker = _marker()
    tags.append(_tag(marker))
    dockerfile = f"FROM {BASE}\nCOPY bomb.py /tmp/bomb.py\nRUN python3 /tmp/bomb.py {marker}\n"
    ctx = context(tmp_path / "bomb", dockerfile, {"bomb.py": BOMB.encode()})
    started = time.monotonic()
    built = build_image(ctx, _tag(marker), limits=BuildLimits(pids=32))
    if built.warnings:
        unavailable(built.warnings[0])
    found = re.search(rf"{marker} forked (\d+)", built.log_tail)
    assert found, built.log_tail
    assert 0 < int(found.group(1)) < 32  # the shell and the interpreter count too
    assert time.monotonic() - started < 60  # the sleeping children did not outlive the step


@pytest.mark.timeout(300)
def test_a_build_past_its_timeout_is_stopped_and_leaves_nothing_behind(
    engine: Any, tmp_path: Path
) -> None:
    marker = _marker()
    # the first step commits an image, the second never ends
    dockerfile = f"FROM {BASE}\nRUN echo {marker}-first > /tmp/first\nRUN sleep 600 # {marker}\n"
    ctx = context(tmp_path / "slow", dockerfile)
    started = time.monotonic()
    with pytest.raises(BuildStopped) as err:
        build_image(ctx, _tag(marker), limits=BuildLimits(timeout=5))
    took = time.monotonic() - started
    assert "timeout of 5 s" in str(err.value) and "nothing of it was kept" in str(err.value)
    assert took < 5 + 25, f"stopping took {took:.1f} s"
    assert _gone(engine, _tag(marker))
    assert leftovers(engine, marker) == []  # neither the sleeping container nor the first layer


@pytest.mark.timeout(300)
def test_an_oversized_build_context_is_refused_before_building(
    engine: Any, tmp_path: Path, tags: list[str]
) -> None:
    marker = _marker()
    tags.append(_tag(marker))
    big = {"blob.bin": b"\0" * (2 << 20)}
    dockerfile = f"FROM {BASE}\nRUN echo {marker}\n"
    ctx = context(tmp_path / "big", dockerfile, big)
    started = time.monotonic()
    with pytest.raises(UsageProblem, match=r"more than 1\.0 MiB \(--max-context\)"):
        build_image(ctx, _tag(marker), limits=BuildLimits(max_context="1m"))
    assert time.monotonic() - started < 10
    assert leftovers(engine, marker) == []  # no step ran
    # control: left out by .dockerignore, the same file does not count
    (ctx / ".dockerignore").write_text("blob.bin\n")
    built = build_image(ctx, _tag(marker), limits=BuildLimits(max_context="1m"))
    assert built.id.startswith("sha256:")


@pytest.mark.timeout(300)
def test_a_step_that_writes_past_the_image_cap_is_stopped_while_it_runs(
    engine: Any, tmp_path: Path
) -> None:
    marker = _marker()
    base_size = int(engine.api.inspect_image(BASE)["Size"])
    cap = f"{(base_size >> 20) + 32}m"
    dockerfile = f"FROM {BASE}\nRUN head -c 96m /dev/zero > /tmp/fill && sleep 300 # {marker}\n"
    ctx = context(tmp_path / "fill", dockerfile)
    started = time.monotonic()
    with pytest.raises(BuildStopped, match=r"grew past .* \(--max-image\) while a step ran"):
        build_image(ctx, _tag(marker), limits=BuildLimits(max_image=cap))
    assert time.monotonic() - started < 60  # long before the step's own end
    assert _gone(engine, _tag(marker))
    assert leftovers(engine, marker) == []


@pytest.mark.timeout(300)
def test_a_built_image_over_the_image_cap_is_removed(engine: Any, tmp_path: Path) -> None:
    marker = _marker()
    base_size = int(engine.api.inspect_image(BASE)["Size"])
    cap = f"{(base_size >> 20) + 32}m"
    dockerfile = f"FROM {BASE}\nRUN head -c 64m /dev/urandom > /tmp/fill # {marker}\n"
    ctx = context(tmp_path / "fat", dockerfile)
    with pytest.raises(BuildStopped, match=r"over the cap of .* \(--max-image\)|grew past"):
        build_image(ctx, _tag(marker), limits=BuildLimits(max_image=cap))
    assert _gone(engine, _tag(marker))
    assert leftovers(engine, marker) == []


def test_add_from_a_url_is_refused_while_the_build_is_offline(tmp_path: Path) -> None:
    """The daemon fetches ADD's URLs itself, outside the build container's network."""
    ctx = context(tmp_path / "fetch", f"FROM {BASE}\nADD https://example.org/x.tar /x.tar\n")
    with pytest.raises(UsageProblem, match=r"ADDs https://example\.org/x\.tar: .*outside"):
        plan_build(ctx)


def test_build_limits_refuse_nonsense() -> None:
    for bad in (
        {"memory": "1k"},
        {"pids": 0},
        {"timeout": 0},
        {"cpus": 0},
        {"network": "host; rm -rf /"},
        {"max_context": "lots"},
    ):
        with pytest.raises(ValueError):
            BuildLimits(**bad)  # type: ignore[arg-type]
    limits = BuildLimits()
    assert limits.offline and limits.params()["networkmode"] == "none"
    assert limits.params()["memswap"] == limits.params()["memory"]  # no swap


def _sleeping(client: Any, marker: str) -> bool:
    """Whether the build's second step (the endless one) is running: the first has
    committed its layer."""
    commands = [str(c.get("Command")) for c in client.api.containers()]
    return any("sleep 600" in c and marker in c for c in commands)


@pytest.mark.timeout(300)
def test_a_submit_terminated_mid_build_leaves_nothing_behind(engine: Any, tmp_path: Path) -> None:
    marker = _marker()
    dockerfile = f"FROM {BASE}\nRUN echo {marker}-first > /tmp/first\nRUN sleep 600 # {marker}\n"
    ctx = context(tmp_path / "term", dockerfile)
    db = f"sqlite:///{tmp_path / 'a.db'}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "bot", "submit", str(ctx), "--name", "term", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not _sleeping(engine, marker):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err, (proc.returncode, err)
    assert leftovers(engine, marker) == []  # its images, the random build tag's included


# ------------------------------------------------------------------ what the log names
# A step's output is part of the build log: it can print the lines the arena reads to
# know the build's containers and images (" ---> Running in <id>", " ---> <id>",
# "Successfully built <id>"). These builds name others' and must not touch them.


@pytest.fixture
def bystander(engine: Any) -> Iterator[str]:
    """An unrelated running container (a game's bot, another build): its full id."""
    api = engine.api
    made = api.create_container(
        BASE,
        command=["sleep", "600"],
        host_config=api.create_host_config(network_mode="none"),
        labels={"flip7-test": "bystander"},
    )
    cid = str(made["Id"])
    try:
        api.start(cid)
        yield cid
    finally:
        with contextlib.suppress(Exception):
            api.remove_container(cid, force=True)


@pytest.fixture
def victim(engine: Any, tmp_path: Path, tags: list[str]) -> str:
    """Another bot's image, tagged as a registered bot's is: its full id."""
    marker = _marker()
    tags.append(_tag(marker))
    ctx = context(tmp_path / "victim", f"FROM {BASE}\nRUN echo {marker} > /tmp/victim\n")
    return build_image(ctx, _tag(marker)).id


def _short(full: str) -> str:
    return full.removeprefix("sha256:")[:12]


def _running(client: Any, cid: str) -> bool:
    try:
        return bool(client.api.inspect_container(cid)["State"]["Running"])
    except Exception:
        return False


@pytest.mark.timeout(300)
def test_a_failing_build_that_names_others_containers_and_images_removes_neither(
    engine: Any, tmp_path: Path, bystander: str, victim: str
) -> None:
    marker = _marker()
    forged = f"echo ' ---> Running in {_short(bystander)}' && echo ' ---> {_short(victim)}'"
    dockerfile = f"FROM {BASE}\nRUN {forged} && exit 1 # {marker}\n"
    ctx = context(tmp_path / "forge", dockerfile)
    started = time.monotonic()
    with pytest.raises(ArenaError, match="non-zero code: 1"):
        build_image(ctx, _tag(marker))
    took = time.monotonic() - started
    assert _running(engine, bystander)
    assert _short(victim) in [_short(str(i)) for i in engine.api.images(all=True, quiet=True)]
    assert took < 15, f"{took:.1f} s: it waited for a container that is not the build's"
    assert _gone(engine, _tag(marker))
    assert leftovers(engine, marker) == []  # the build's own leftovers are still removed


@pytest.mark.timeout(300)
def test_a_build_that_prints_another_images_id_last_is_built_with_its_own(
    engine: Any, tmp_path: Path, tags: list[str], victim: str
) -> None:
    marker = _marker()
    tags.append(_tag(marker))
    v = _short(victim)
    dockerfile = f"FROM {BASE}\nRUN echo 'Successfully built {v}' && echo ' ---> {v}' # {marker}\n"
    built = build_image(context(tmp_path / "last", dockerfile), _tag(marker))
    assert built.id != victim
    assert built.id == engine.api.inspect_image(_tag(marker))["Id"]
    assert not _gone(engine, victim)


@pytest.mark.timeout(300)
def test_an_oversized_build_that_names_another_image_removes_only_its_own(
    engine: Any, tmp_path: Path, victim: str
) -> None:
    marker = _marker()
    base_size = int(engine.api.inspect_image(BASE)["Size"])
    cap = f"{(base_size >> 20) + 32}m"
    v = _short(victim)
    dockerfile = (
        f"FROM {BASE}\nRUN head -c 64m /dev/urandom > /tmp/fill && echo ' ---> {v}' # {marker}\n"
    )
    with pytest.raises(BuildStopped, match=r"over the cap of .* \(--max-image\)|grew past"):
        build_image(
            context(tmp_path / "fat", dockerfile), _tag(marker), limits=BuildLimits(max_image=cap)
        )
    assert not _gone(engine, victim)
    assert _gone(engine, _tag(marker))
    assert leftovers(engine, marker) == []


def _size_rw(api: Any, cid: str) -> int:
    listed = api.containers(size=True, filters={"id": cid})
    return int(listed[0].get("SizeRw") or 0) if listed else 0


@pytest.mark.timeout(300)
def test_the_watchdog_measures_only_the_builds_own_step(
    engine: Any, tmp_path: Path, tags: list[str]
) -> None:
    """A step that names a big container as its own gets neither it measured nor itself
    stopped for it: the size the watchdog reads is the build's container's."""
    api = engine.api
    base_size = int(api.inspect_image(BASE)["Size"])
    big = api.create_container(
        BASE,
        command=["sh", "-c", "head -c 64m /dev/zero > /tmp/fill && sleep 600"],
        host_config=api.create_host_config(network_mode="none"),
    )["Id"]
    try:
        api.start(big)
        deadline = time.monotonic() + 60
        while _size_rw(api, big) < 64 << 20:
            assert time.monotonic() < deadline, "the big container wrote nothing"
            time.sleep(0.2)
        marker = _marker()
        tags.append(_tag(marker))
        dockerfile = f"FROM {BASE}\nRUN echo ' ---> Running in {big[:12]}' && sleep 8 # {marker}\n"
        cap = f"{(base_size >> 20) + 32}m"
        built = build_image(
            context(tmp_path / "measure", dockerfile),
            _tag(marker),
            limits=BuildLimits(max_image=cap),
        )
        assert built.id == api.inspect_image(_tag(marker))["Id"]
        assert _running(engine, big)
    finally:
        with contextlib.suppress(Exception):
            api.remove_container(big, force=True)


@pytest.mark.timeout(300)
def test_a_step_that_names_another_container_is_still_stopped_past_the_image_cap(
    engine: Any, tmp_path: Path
) -> None:
    marker = _marker()
    base_size = int(engine.api.inspect_image(BASE)["Size"])
    cap = f"{(base_size >> 20) + 32}m"
    hide = "echo ' ---> Running in 0123456789abcdef'"
    dockerfile = (
        f"FROM {BASE}\nRUN {hide} && head -c 96m /dev/zero > /tmp/fill && sleep 300 # {marker}\n"
    )
    started = time.monotonic()
    with pytest.raises(BuildStopped, match=r"grew past .* \(--max-image\) while a step ran"):
        build_image(
            context(tmp_path / "hide", dockerfile),
            _tag(marker),
            limits=BuildLimits(max_image=cap, timeout=40),
        )
    assert time.monotonic() - started < 35  # long before the timeout
    assert _gone(engine, _tag(marker))
    assert leftovers(engine, marker) == []


@pytest.mark.timeout(300)
def test_a_flood_of_made_up_names_does_not_hold_up_the_clean_up(
    engine: Any, tmp_path: Path
) -> None:
    marker = _marker()
    name = "secrets.token_hex(6)"
    flood = (
        f'python3 -c "import secrets; [print(chr(10).join(('
        f"' ---> Running in ' + {name}, ' ---> ' + {name}))) for _ in range(20000)]\""
    )
    dockerfile = f"FROM {BASE}\nRUN echo {marker} > /tmp/a\nRUN {flood} && exit 1 # {marker}\n"
    started = time.monotonic()
    with pytest.raises(ArenaError, match="non-zero code: 1"):
        build_image(context(tmp_path / "flood", dockerfile), _tag(marker))
    took = time.monotonic() - started
    assert leftovers(engine, marker) == []
    assert took < 20, f"{took:.1f} s"
