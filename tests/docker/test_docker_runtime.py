"""The Docker runtime against a real Docker engine: bots as images, sandboxed containers.

Every test names the behaviour it checks (docs/architecture.md, "Bot runtimes" and "Fault policy"):

* containerised example bots play clean matches — the same games as the same bots run as
  processes — also several tables at once on one shared gateway (as a tournament does);
* the sandbox: no network at all (a probe bot's TCP, UDP and DNS attempts all fail, and the
  host listener it aims at sees nothing), a read-only root with a writable /tmp, user 10001
  without capabilities, the limits and labels the engine was given;
* faults: a bot that allocates past its memory limit is a CRASH "out of memory", a fork
  bomb is contained by the pids limit, a bot that exits at start or cannot start is an
  INIT_FAIL — and the other seats' games complete;
* nothing is left behind: after a match, after a failed start, after SIGTERM/SIGINT to the
  arena, and after SIGKILL once the next run reaps what the dead arena left;
* clear errors: a missing image, no Docker engine, a failing build.

No test sleeps to synchronise: waits are on real conditions (a match finishing, a container
appearing in ``docker ps``) with deadlines.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.bots import Command, Image
from arena.errors import ArenaError
from arena.faults import FaultKind, FaultPolicy
from arena.gateway.server import Gateway
from arena.match import BotEntry, MatchResult, MatchRunner, MatchSpec, run_match
from arena.runtime import docker as rt
from arena.runtime.build import build_image, image_id
from arena.runtime.docker import ContainerBot, ContainerLimits, reap_stale_containers

pytestmark = pytest.mark.timeout(240)

POLICY = FaultPolicy(
    deadline=1.0, time_bank=5.0, max_strikes=3, start_timeout=30.0, reconnect_grace=3.0
)
MATCH_TIMEOUT = 180.0
OWNER = f"{socket.gethostname()}:{os.getpid()}"
ROOT = Path(__file__).resolve().parents[2]
TEST_BOTS = Path(__file__).resolve().parent / "bots"


# ---------------------------------------------------------------------------- helpers
def play(spec: MatchSpec, gateway: Gateway | None = None) -> MatchResult:
    async def go() -> MatchResult:
        return await asyncio.wait_for(run_match(spec, gateway), MATCH_TIMEOUT)

    return asyncio.run(go())


def match_id() -> str:
    return f"dk-{uuid.uuid4().hex[:8]}"


def containers(client: Any, **labels: str) -> list[Any]:
    """Containers (any state) with the arena label and the given labels."""
    filters = [rt.LABEL] + [f"{k}={v}" for k, v in labels.items()]
    # a container may be removed between the listing and its inspection: skip it then
    return client.containers.list(all=True, filters={"label": filters}, ignore_removed=True)


def by_owner(client: Any, owner: str) -> list[Any]:
    return containers(client, **{rt.OWNER_LABEL: owner})


def wait_until(cond: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.1)  # polling interval; the condition is what we wait for


def marked_line(log: str, mark: str) -> dict[str, Any]:
    for line in log.splitlines():
        if line.startswith(mark + " "):
            return dict(json.loads(line[len(mark) + 1 :]))
    raise AssertionError(f"no {mark} line in the bot's log:\n{log[-2000:]}")


def examples(images: dict[str, str]) -> list[BotEntry]:
    return [
        BotEntry("ev", Image(images["ev"])),
        BotEntry("threshold", Image(images["threshold"])),
        BotEntry("random-a", Image(images["random"])),
        BotEntry("random-b", Image(images["random"])),
    ]


def assert_clean(result: MatchResult, games: int) -> None:
    assert len(result.games) == games
    for g in result.games:
        assert g.status == "completed", g.as_dict(events=False)
        assert g.faults == [], g.faults
        assert len(g.totals) == result.spec.seats and g.ranks
        assert max(g.totals) >= result.spec.target_score


# ---------------------------------------------------------------------------- matches
def test_example_bots_in_containers_play_clean_matches_and_leave_nothing(
    docker_engine: Any, images: dict[str, str]
) -> None:
    mid = match_id()
    spec = MatchSpec(
        bots=examples(images), games=16, seed=5, variant="vengeance", faults=POLICY, match_id=mid
    )
    result = play(spec)
    assert_clean(result, 16)
    assert result.decisions > 0
    assert set(result.logs) == {"ev", "threshold", "random-a", "random-b"}
    assert containers(docker_engine, **{"flip7-arena.match": mid}) == []
    assert rt.live_containers() == []


def test_container_bots_play_the_same_games_as_process_bots(images: dict[str, str]) -> None:
    """The sandbox changes nothing in play: same seeds, same bots, same choices."""
    spec = MatchSpec(bots=examples(images), games=6, seed=11, faults=POLICY)
    in_containers = play(spec)
    ex = ROOT / "bots" / "examples" / "python"
    py = sys.executable
    as_processes = play(
        MatchSpec(
            bots=[
                BotEntry("ev", Command(f"{py} {ex / 'ev' / 'bot.py'}")),
                BotEntry("threshold", Command(f"{py} {ex / 'threshold' / 'bot.py'} 23")),
                BotEntry("random-a", Command(f"{py} {ex / 'random' / 'bot.py'}")),
                BotEntry("random-b", Command(f"{py} {ex / 'random' / 'bot.py'}")),
            ],
            games=6,
            seed=11,
            faults=POLICY,
        )
    )
    assert_clean(in_containers, 6)
    assert [g.choices for g in in_containers.games] == [g.choices for g in as_processes.games]
    assert [g.totals for g in in_containers.games] == [g.totals for g in as_processes.games]


def test_tables_sharing_one_gateway_run_at_once(
    docker_engine: Any, images: dict[str, str], sock_dir: Path
) -> None:
    """As a tournament round does: two tables of containers on one gateway, concurrently."""
    mids = [match_id(), match_id()]

    async def go() -> list[MatchResult]:
        async with Gateway(tcp=None, unix=sock_dir / "arena.sock") as gw:
            sem = asyncio.Semaphore(16)
            runners = [
                MatchRunner(
                    MatchSpec(
                        bots=[
                            BotEntry(f"ev-{t}", Image(images["ev"])),
                            BotEntry(f"threshold-{t}", Image(images["threshold"])),
                            BotEntry(f"random-{t}", Image(images["random"])),
                        ],
                        games=6,
                        seed=20 + t,
                        faults=POLICY,
                        match_id=mids[t],
                    ),
                    gw,
                    games_semaphore=sem,
                )
                for t in range(2)
            ]
            return list(
                await asyncio.wait_for(asyncio.gather(*(r.run() for r in runners)), MATCH_TIMEOUT)
            )

    for result in asyncio.run(go()):
        assert_clean(result, 6)
    for mid in mids:
        assert containers(docker_engine, **{"flip7-arena.match": mid}) == []


def test_swiss_tournament_of_container_bots_is_stored(
    docker_engine: Any, images: dict[str, str], tmp_path: Path
) -> None:
    from sqlmodel import Session, create_engine, select

    from arena.store.models import Game, Match
    from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    entries = [
        EntrySpec("ev", Image(images["ev"])),
        EntrySpec("threshold", Image(images["threshold"])),
        EntrySpec("random-a", Image(images["random"])),
        EntrySpec("random-b", Image(images["random"])),
        EntrySpec("ev-2", Image(images["ev"])),
        EntrySpec("threshold-2", Image(images["threshold"])),
    ]
    cfg = TournamentConfig(
        format="swiss", entries=entries, seats=3, rounds=2, games=3, seed=3, time_bank=5.0
    )
    tid = create_tournament(cfg, db)
    outcome = asyncio.run(asyncio.wait_for(run_tournament(db, tid), MATCH_TIMEOUT))
    assert outcome.tournament.status == "completed"
    eng = create_engine(db)
    with Session(eng) as s:
        matches = s.exec(select(Match).where(Match.tournament_id == tid)).all()
        games = s.exec(select(Game).where(Game.tournament_id == tid)).all()
    eng.dispose()
    assert matches and all(m.status == "completed" for m in matches)
    assert len(games) == sum(m.games for m in matches) == outcome.games_played
    assert all(g.status == "completed" and g.faults == [] for g in games)
    assert by_owner(docker_engine, OWNER) == []


def test_a_container_entrant_that_exits_at_start_fails_the_tournaments_pre_flight(
    docker_engine: Any, images: dict[str, str], tmp_path: Path
) -> None:
    """Before the first game every container is started and must say hello: one that
    exits stops the event (nothing played), named with what it printed; with absent bots
    allowed the event goes on, that bot forfeiting every game, and no container is left."""
    from arena.bots import Policy
    from arena.match.preflight import PreflightFailed
    from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    entries = [
        EntrySpec("quitter", Image(images["exit-at-start"])),
        EntrySpec("ev", Image(images["ev"])),
        EntrySpec("random", Policy("random")),
    ]
    cfg = TournamentConfig(format="round-robin", entries=entries, seats=3, games=2, seed=2)
    tid = create_tournament(cfg, db)
    with pytest.raises(PreflightFailed) as caught:
        asyncio.run(asyncio.wait_for(run_tournament(db, tid), MATCH_TIMEOUT))
    [problem] = caught.value.problems
    assert problem.startswith("quitter did not start: ") and "code 3" in problem, problem
    assert problem.endswith("giving up"), problem  # the line the container printed
    assert by_owner(docker_engine, OWNER) == []

    outcome = asyncio.run(
        asyncio.wait_for(run_tournament(db, tid, allow_absent=True), MATCH_TIMEOUT)
    )
    assert outcome.tournament.status == "completed"
    rows = {r.bot: r for r in outcome.standings}
    assert rows["quitter"].forfeits == rows["quitter"].games == 2 and rows["quitter"].elo is None
    assert rows["ev"].forfeits == 0 and rows["ev"].games == 2
    assert by_owner(docker_engine, OWNER) == []


# ---------------------------------------------------------------------------- the sandbox
def test_container_gets_the_sandbox_limits_and_labels(
    docker_engine: Any, images: dict[str, str], sock_dir: Path
) -> None:
    mid = match_id()
    limits = ContainerLimits(memory="200m", cpus=0.5, pids=50, tmpfs="8m")

    async def go() -> tuple[dict[str, Any], int | None, ContainerBot]:
        async with Gateway(tcp=None, unix=sock_dir / "arena.sock") as gw:
            token, link = gw.register("probe")
            bot = ContainerBot("probe", images["probe"], limits=limits, labels={"t": mid})
            try:
                await bot.start(gw.address, token)
                await asyncio.wait_for(link.connected.wait(), 30)
                assert bot.running
                info = await asyncio.to_thread(
                    docker_engine.api.inspect_container, bot.container_id
                )
                gw.unregister(link)  # the match is over: goodbye
            finally:
                code = await bot.stop()
        return info, code, bot

    info, code, bot = asyncio.run(go())
    host = info["HostConfig"]
    assert host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"]
    assert "no-new-privileges" in host["SecurityOpt"]
    assert host["Memory"] == host["MemorySwap"] == 200 * 2**20  # no swap
    assert host["NanoCpus"] == 500_000_000
    assert host["PidsLimit"] == 50
    assert "size=8m" in host["Tmpfs"]["/tmp"]
    [mount] = info["Mounts"]
    assert (mount["Type"], mount["Destination"], mount["RW"]) == ("bind", "/run/arena", False)
    assert Path(mount["Source"]) == sock_dir
    config = info["Config"]
    assert config["User"] == "10001:10001"
    assert "ARENA_ADDRESS=unix:///run/arena/arena.sock" in config["Env"]
    labels = config["Labels"]
    assert labels[rt.LABEL] == "1" and labels[rt.OWNER_LABEL] == OWNER and labels["t"] == mid
    # it left by itself after the goodbye, and it is gone
    assert code == 0 and bot.describe_exit() == "exit code 0"
    assert containers(docker_engine, t=mid) == []
    # what the bot saw from inside
    probe = marked_line(bot.log.text(), "PROBE")
    assert (probe["uid"], probe["gid"]) == (10001, 10001)
    assert int(probe["cap_eff"], 16) == 0 and probe["no_new_privs"] == "1"
    assert probe["write"]["/tmp/x"]["ok"] is True
    for path in ("/home/bot/x", "/bot/x", "/run/arena/x"):
        assert probe["write"][path]["ok"] is False, path
    assert "Read-only file system" in probe["write"]["/home/bot/x"]["error"]
    assert probe["docker_socket"] is False
    assert probe["address"] == "unix:///run/arena/arena.sock"
    assert "PYTEST_CURRENT_TEST" not in probe["env"]  # the host's environment stays out


def test_container_bot_cannot_open_any_network_connection(
    images: dict[str, str], probe_target: Any
) -> None:
    spec = MatchSpec(
        bots=[
            BotEntry("probe", Image(images["probe"])),
            BotEntry("ev", Image(images["ev"])),
            BotEntry("random", Image(images["random"])),
        ],
        games=4,
        seed=3,
        faults=POLICY,
    )
    result = play(spec)
    probe = marked_line(result.logs["probe"], "PROBE")
    attempts = probe["network"]
    assert set(attempts) == {
        f"tcp 127.0.0.1:{probe_target.port}",
        f"tcp {probe_target.host}:{probe_target.port}",
        "tcp 8.8.8.8:53",
        "udp 8.8.8.8:53",
        "dns pypi.org",
    }
    for target, outcome in attempts.items():
        assert outcome["ok"] is False, f"{target} reached: {outcome}"
    assert "unreachable" in attempts["tcp 8.8.8.8:53"]["error"].lower()
    assert probe["interfaces"] == ["lo"]
    assert probe_target.connections() == 0  # the host's listener saw nobody
    assert_clean(result, 4)  # and then it played normally


# ---------------------------------------------------------------------------- faults
def test_bot_past_its_memory_limit_is_a_crash_out_of_memory(images: dict[str, str]) -> None:
    spec = MatchSpec(
        bots=[
            BotEntry("memhog", Image(images["memhog"])),
            BotEntry("ev", Image(images["ev"])),
            BotEntry("threshold", Image(images["threshold"])),
        ],
        games=4,
        seed=7,
        faults=POLICY,
        container_limits=ContainerLimits(memory="128m"),
    )
    result = play(spec)
    faults = [f for g in result.games for f in g.faults]
    assert faults and all(f.bot == "memhog" for f in faults)
    crashes = [f for f in faults if f.kind == FaultKind.CRASH]
    assert crashes, faults
    for f in crashes:
        assert f.forfeit and "out of memory (limit 128m)" in f.detail
    for g in result.games:
        assert g.status == "completed"
        seat = g.seating.index("memhog")
        if any(f.seat == seat and f.forfeit for f in g.faults):
            assert g.ranks[seat] == len(g.seating)  # a forfeited seat ranks last
    assert "allocated" in result.logs["memhog"]


def test_fork_bomb_is_contained_by_the_pids_limit(images: dict[str, str]) -> None:
    limits = ContainerLimits(pids=64)
    spec = MatchSpec(
        bots=[
            BotEntry("forkbomb", Image(images["forkbomb"])),
            BotEntry("ev", Image(images["ev"])),
            BotEntry("random", Image(images["random"])),
        ],
        games=4,
        seed=8,
        faults=POLICY,
        container_limits=limits,
    )
    result = play(spec)
    forked = marked_line(result.logs["forkbomb"], "FORKED")
    assert 0 < forked["forked"] < limits.pids
    assert "Resource temporarily unavailable" in forked["error"]
    assert_clean(result, 4)
    # the host is fine: it still starts processes
    assert subprocess.run(["true"], check=False).returncode == 0


def test_bot_exiting_at_start_is_an_init_fail_with_its_exit_code(
    docker_engine: Any, images: dict[str, str]
) -> None:
    mid = match_id()
    spec = MatchSpec(
        bots=[
            BotEntry("quitter", Image(images["exit-at-start"])),
            BotEntry("ev", Image(images["ev"])),
            BotEntry("random", Image(images["random"])),
        ],
        games=3,
        faults=POLICY,
        match_id=mid,
    )
    result = play(spec)
    for g in result.games:
        assert g.status == "completed"
        [f] = g.faults
        assert (f.kind, f.bot, f.forfeit) == (FaultKind.INIT_FAIL, "quitter", True)
        assert "exit code 3" in f.detail
    assert "giving up" in result.logs["quitter"]
    assert containers(docker_engine, **{"flip7-arena.match": mid}) == []


def test_container_that_cannot_start_is_an_init_fail_and_is_removed(
    docker_engine: Any, images: dict[str, str], sock_dir: Path
) -> None:
    async def direct() -> tuple[str, ContainerBot]:
        async with Gateway(tcp=None, unix=sock_dir / "arena.sock") as gw:
            token, _ = gw.register("broken")
            bot = ContainerBot("broken", images["bad-entrypoint"])
            with pytest.raises(OSError) as err:
                await bot.start(gw.address, token)
            await bot.stop()
            return str(err.value), bot

    message, bot = asyncio.run(direct())
    assert "cannot start bot 'broken'" in message and "/no/such/program" in message
    assert docker_engine.containers.list(all=True, filters={"name": bot.container_name}) == []
    assert not bot.running

    mid = match_id()
    result = play(
        MatchSpec(
            bots=[
                BotEntry("broken", Image(images["bad-entrypoint"])),
                BotEntry("ev", Image(images["ev"])),
            ],
            games=2,
            faults=POLICY,
            match_id=mid,
        )
    )
    for g in result.games:
        [f] = g.faults
        assert (f.kind, f.bot) == (FaultKind.INIT_FAIL, "broken")
    assert containers(docker_engine, **{"flip7-arena.match": mid}) == []


# ---------------------------------------------------------------------------- errors
def test_missing_image_is_a_clear_error_and_the_started_bots_are_removed(
    docker_engine: Any, images: dict[str, str]
) -> None:
    mid = match_id()
    spec = MatchSpec(
        bots=[
            BotEntry("ev", Image(images["ev"])),
            BotEntry("ghost", Image("flip7-test/no-such-bot:latest")),
            BotEntry("random", Image(images["random"])),
        ],
        games=2,
        faults=POLICY,
        match_id=mid,
    )
    with pytest.raises(ArenaError) as err:
        play(spec)
    assert "no image flip7-test/no-such-bot:latest" in str(err.value)
    assert "arena bot submit" in str(err.value)
    assert containers(docker_engine, **{"flip7-arena.match": mid}) == []


def test_no_docker_engine_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, images: dict[str, str]
) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    monkeypatch.setattr(rt, "_clients", {})

    async def go() -> None:
        bot = ContainerBot("ev", images["ev"])
        await bot.start("unix:///tmp/nowhere/arena.sock", "token")

    with pytest.raises(rt.DockerUnavailable) as err:
        asyncio.run(go())
    assert str(err.value).startswith("Docker is not available: ")
    assert "unix:///nonexistent/docker.sock" in str(err.value)
    assert reap_stale_containers() == []  # a run without Docker is not stopped by reaping
    with pytest.raises(rt.DockerUnavailable):
        reap_stale_containers(strict=True)
    with pytest.raises(rt.DockerUnavailable):
        image_id(images["ev"])


def test_failed_build_reports_the_end_of_its_log(docker_engine: Any) -> None:
    with pytest.raises(ArenaError) as err:
        build_image(TEST_BOTS / "broken-build", "flip7-test/broken-build:latest")
    message = str(err.value)
    assert "failed" in message and "no-such-file.py" in message
    assert "last" in message and "Step 1/" in message  # the log's tail is in the message
    with pytest.raises(ArenaError, match="not a valid image name"):
        build_image(TEST_BOTS / "probe", "Not A Tag")


def test_image_id_of_a_local_image_and_of_a_missing_one(images: dict[str, str]) -> None:
    built = build_image(ROOT / "bots" / "examples" / "python" / "ev", images["ev"])
    assert built.id.startswith("sha256:") and built.tag == images["ev"]
    assert image_id(images["ev"]) == built.id
    assert image_id(built.id) == built.id
    with pytest.raises(ArenaError, match=r"no image flip7-test/absent:latest .*arena bot submit"):
        image_id("flip7-test/absent:latest")


# ---------------------------------------------------------------------------- clean-up
def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_reaping_removes_only_containers_of_dead_arena_processes(
    docker_engine: Any, images: dict[str, str]
) -> None:
    host = socket.gethostname()
    tag = uuid.uuid4().hex[:8]
    own_start = rt.owner_labels().get(rt.OWNER_START_LABEL, "")
    owners = {
        "dead": {rt.OWNER_LABEL: f"{host}:{_dead_pid()}"},
        "reused": {rt.OWNER_LABEL: OWNER, rt.OWNER_START_LABEL: own_start + "0"},
        "alive": {rt.OWNER_LABEL: OWNER, rt.OWNER_START_LABEL: own_start},
        "elsewhere": {rt.OWNER_LABEL: f"another-host-{tag}:1"},
    }
    made = {}
    try:
        for what, labels in owners.items():
            made[what] = docker_engine.containers.create(
                images["random"], labels={rt.LABEL: "1", "t": tag, **labels}
            )
        removed = reap_stale_containers()
        left = {c.id for c in containers(docker_engine, t=tag)}
        assert made["dead"].name in removed and made["reused"].name in removed
        assert left == {made["alive"].id, made["elsewhere"].id}
    finally:
        for c in made.values():
            try:
                c.remove(force=True)
            except Exception:
                pass


def _start_child(
    images: dict[str, str], ignore_sigint: bool = False
) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def preexec() -> None:
        if ignore_sigint:  # as for a background job: asyncio.run then leaves SIGINT alone
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    child = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).parent / "match_child.py"),
            *(images[name] for name in ("ev", "threshold", "random")),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=preexec,
    )
    owner = f"{socket.gethostname()}:{child.pid}"
    return child, owner


def _running(client: Any, owner: str) -> list[Any]:
    return [c for c in by_owner(client, owner) if c.status == "running"]


def test_containers_of_a_sigkilled_arena_are_reaped_by_the_next_run(
    docker_engine: Any, images: dict[str, str]
) -> None:
    child, owner = _start_child(images)
    try:
        wait_until(lambda: len(_running(docker_engine, owner)) == 3, 60, "3 bot containers")
    finally:
        child.kill()
        child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert len(by_owner(docker_engine, owner)) == 3  # a killed arena cleans nothing up
    removed = reap_stale_containers()
    assert len(removed) >= 3
    assert by_owner(docker_engine, owner) == []


@pytest.mark.parametrize(
    ("sig", "ignore_sigint"),
    [(signal.SIGTERM, False), (signal.SIGTERM, True), (signal.SIGINT, False)],
    ids=["SIGTERM", "SIGTERM-background", "SIGINT"],
)
def test_terminated_arena_removes_its_containers(
    docker_engine: Any, images: dict[str, str], sig: signal.Signals, ignore_sigint: bool
) -> None:
    child, owner = _start_child(images, ignore_sigint)
    try:
        wait_until(lambda: len(_running(docker_engine, owner)) == 3, 60, "3 bot containers")
        child.send_signal(sig)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate(timeout=30)
    assert child.returncode != 0, err
    assert by_owner(docker_engine, owner) == [], err[-3000:]


def test_engine_that_cannot_see_the_socket_directory_is_a_clear_error(
    docker_engine: Any, images: dict[str, str]
) -> None:
    """As when the arena runs in a container whose TMPDIR is not shared with the host."""

    async def go(address: str) -> None:
        bot = ContainerBot("ev", images["ev"])
        try:
            await bot.start(address, "token")
        finally:
            await bot.stop()

    with pytest.raises(ArenaError, match="cannot see the arena's socket directory"):
        asyncio.run(go(f"unix:///nonexistent-{uuid.uuid4().hex}/arena.sock"))
    with pytest.raises(ArenaError, match="only through its Unix socket"):
        asyncio.run(go("127.0.0.1:50051"))


def test_limits_are_checked_when_made() -> None:
    assert rt.parse_memory("256m") == 256 * 2**20 and rt.parse_memory("1g") == 2**30
    with pytest.raises(ValueError, match="below Docker's minimum"):
        ContainerLimits(memory="4m")
    with pytest.raises(ValueError, match="bad memory size"):
        ContainerLimits(memory="lots")
    with pytest.raises(ValueError):
        ContainerLimits(cpus=0)
