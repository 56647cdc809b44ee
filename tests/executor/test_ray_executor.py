"""The Ray executor on a real Ray cluster started by the test on this machine: a head node
and a second node (one CPU each, processes and sockets of their own; the second one alone
offers the ``docker`` resource). Each match is a Ray task that starts its gateway and bots
on its node; the driver (this process) stores the results.

What is shown: a Swiss event on Ray plays game for game what the local executor plays
with the same seed, over both nodes; killing the second node while it plays a match costs
no game and blames no bot (Ray runs the match again from its start on the head); a
container bot plays on a node whose Docker engine lacks its image, which it loads from the
driver's copy in Ray's object store; a driver killed mid-event resumes through the CLI;
the CLI's errors for a missing extra or an unreachable cluster are one line.

Without Ray these tests skip, and fail under CI (CI installs the extra ``flip7-arena[ray]``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostkit import docker_client, unavailable, with_base_image
from sqlmodel import Session, create_engine, select
from test_executors import ROOT, entries, games_of  # this folder is on the path

from arena.bots import Image, Policy
from arena.faults import FaultPolicy
from arena.match import BotEntry, MatchSpec
from arena.store.models import Game
from arena.tournament import EntrySpec, TournamentConfig, TournamentRunner, create_tournament

DUTY = "install the extra flip7-arena[ray] (scripts/test does) and run the Ray tests"
MiB = 1 << 20


class LocalCluster:
    """A head and a second node on this machine (ray.cluster_utils), in a temp dir."""

    def __init__(self) -> None:
        import ray._private.utils
        from ray.cluster_utils import Cluster

        # the head writes its address to Ray's default folder whatever temp_dir says,
        # and does not create that folder (absent on a machine that never ran Ray)
        address_file = ray._private.utils.get_ray_address_file(None)
        os.makedirs(os.path.dirname(address_file), exist_ok=True)
        self.temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Unix socket paths
        self.cluster = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 1,
                "object_store_memory": 400 * MiB,
                "include_dashboard": False,
                "temp_dir": self.temp,
            },
        )
        self.second: Any = None
        self.add_second()

    @property
    def address(self) -> str:
        return str(self.cluster.address)

    @property
    def head_id(self) -> str:
        return str(self.cluster.head_node.node_id)

    def add_second(self) -> None:
        self.second = self.cluster.add_node(
            num_cpus=1, resources={"docker": 1}, object_store_memory=400 * MiB
        )
        self.cluster.wait_for_nodes()

    def kill_second(self) -> None:
        self.cluster.remove_node(self.second, allow_graceful=False)
        self.second = None

    def close(self) -> None:
        self.cluster.shutdown()
        shutil.rmtree(self.temp, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    try:
        import ray  # noqa: F401
    except ImportError:
        unavailable("Ray is not installed (pip install 'flip7-arena[ray]')", DUTY)
    kept = signal.getsignal(signal.SIGTERM)  # the cluster's nodes install Ray's own
    c = LocalCluster()
    try:
        yield c
    finally:
        c.close()
        signal.signal(signal.SIGTERM, kept)  # not left to the rest of the run


LONG_MATCH = 40  # games per table in the node-kill test


def config(seed: int = 17, games: int = 4) -> TournamentConfig:
    return TournamentConfig(
        format="swiss", entries=entries(), seats=4, rounds=3, games=games, seed=seed, concurrency=8
    )


@pytest.fixture(scope="module")
def local_games(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Any, ...]]:
    """The event's games on the local executor (this process): what Ray must reproduce."""
    url = f"sqlite:///{tmp_path_factory.mktemp('local') / 'local.db'}"
    tid = create_tournament(config(), url)
    asyncio.run(asyncio.wait_for(TournamentRunner(url, tid).run(), 300))
    return games_of(url)


def faults_of(url: str) -> list[Any]:
    eng = create_engine(url)
    with Session(eng) as s:
        found = [f for g in s.exec(select(Game)) for f in g.faults]
    eng.dispose()
    return found


def test_a_swiss_event_on_ray_plays_the_local_executors_games_over_both_nodes(
    cluster: LocalCluster, local_games: list[Any], tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'ray.db'}"
    tid = create_tournament(config(), url)
    runner = TournamentRunner(url, tid, executor="ray", address=cluster.address)
    outcome = asyncio.run(asyncio.wait_for(runner.run(), 300))
    assert outcome.tournament.status == "completed"
    played = games_of(url)
    assert len(played) == 3 * 2 * 4  # 8 entries at 4-seat tables, 3 rounds of 4 games
    assert played == local_games
    assert all(g[4] == "completed" for g in played)
    placements = runner.executor.pool.placements
    assert len(placements) == 6  # a task per match
    assert {p["node"] for p in placements} == {cluster.head_id, cluster.second.node_id}


def test_a_node_killed_mid_match_costs_no_game_and_blames_no_bot(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """The second node dies while it plays a match: Ray runs that match again from its
    start on the head (same spec, same seeds), the event completes with the undisturbed
    run's games, and no fault is recorded against any bot."""
    # matches long enough that the node dies while one is still playing
    long = config(games=LONG_MATCH)
    reference = f"sqlite:///{tmp_path / 'reference.db'}"
    ref_id = create_tournament(long, reference)
    asyncio.run(asyncio.wait_for(TournamentRunner(reference, ref_id).run(), 300))
    local_games = games_of(reference)
    url = f"sqlite:///{tmp_path / 'killed.db'}"
    tid = create_tournament(long, url)
    runner = TournamentRunner(url, tid, executor="ray", address=cluster.address)
    second = cluster.second.node_id

    async def main() -> tuple[str | None, Any]:
        task = asyncio.ensure_future(runner.run())
        victim = None
        deadline = time.monotonic() + 120
        while victim is None and not task.done() and time.monotonic() < deadline:
            pool = getattr(runner.executor, "pool", None)
            running = pool.running() if pool is not None else {}
            on_second = [m for m, node in running.items() if node == second]
            if on_second:
                victim = on_second[0]
                await asyncio.to_thread(cluster.kill_second)
            await asyncio.sleep(0.01)  # polling the executor for a match on the second node
        return victim, await asyncio.wait_for(task, 300)

    try:
        victim, outcome = asyncio.run(main())
    finally:
        if cluster.second is None:
            cluster.add_second()  # for the tests after this one
    assert victim is not None, "the second node was killed while it played a match"
    assert outcome.tournament.status == "completed"
    assert games_of(url) == local_games
    assert faults_of(url) == []
    replayed = [p for p in runner.executor.pool.placements if p["match"] == victim]
    assert replayed and replayed[0]["attempts"][0] == second
    assert replayed[0]["node"] != second  # played again, to its end, on a live node


def test_a_container_bot_plays_on_a_node_that_lacked_its_image(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """Both nodes share this machine's Docker engine, so "the node lacks the image" is made
    true by removing the image from the engine after the driver saved it into the object
    store and before the match's task runs. The match needs the ``docker`` resource, which
    only the second node has; that node finds no image with the pinned id, loads the
    driver's saved copy, and the container bot plays every game without a fault."""
    import docker.errors

    from arena.executor.ray import RayExecutor
    from arena.runtime.build import build_image

    client = docker_client(DUTY)
    with_base_image(client, DUTY)
    context = tmp_path / "bot"
    shutil.copytree(ROOT / "bots" / "examples" / "python" / "random", context)
    df = (context / "Dockerfile").read_text()  # a label of its own: an id no one else has
    (context / "Dockerfile").write_text(df + f"\nLABEL flip7-test.marker={uuid.uuid4().hex}\n")
    tag = f"flip7-test/ray-shipped-{uuid.uuid4().hex[:8]}:latest"
    image_id = build_image(context, tag).id
    spec = MatchSpec(
        bots=[BotEntry("boxed", Image(tag)), BotEntry("ev", Policy("ev"))],
        games=3,
        seed=5,
        faults=FaultPolicy(deadline=5.0),
    )

    async def main() -> Any:
        async with RayExecutor(faults=spec.faults, concurrency=4, address=cluster.address) as ex:
            sent = await ex.ship_images(spec)
            assert sent.bots[0].source == Image(image_id)  # pinned by id
            client.images.remove(image_id, force=True)
            with pytest.raises(docker.errors.ImageNotFound):
                client.images.get(image_id)
            result = await ex.run(spec)
            return result, ex.placements[-1]

    try:
        result, where = asyncio.run(asyncio.wait_for(main(), 300))
        assert where["node"] == cluster.second.node_id  # the only node with Docker
        assert where["loaded"] == [image_id]  # from the driver's copy
        assert client.images.get(image_id).id == image_id
        assert [g.status for g in result.games] == ["completed"] * 3
        assert [f for g in result.games for f in g.faults] == []
        assert result.spec.bots[0].source == Image(tag)  # the driver's spec, as given
        assert sum(g.decisions for g in result.games) > 0
    finally:
        try:
            client.images.remove(image_id, force=True)
        except docker.errors.ImageNotFound:
            pass


def arena_cli(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False, **kw,
    )  # fmt: skip


def test_a_driver_killed_mid_event_resumes_on_ray_with_the_same_games(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """``arena tournament --executor ray`` is SIGKILLed once it stored a match; ``arena
    tournament resume --executor ray`` finishes it; its games equal a local run of the
    same entries and seed, with no fault."""
    ex = ROOT / "bots" / "examples" / "python"
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    bots = [f"ev={sys.executable} {ex}/ev/bot.py", f"t22={sys.executable} {ex}/threshold/bot.py 22"]
    bots += ["builtin:random", "builtin:ev", "builtin:threshold:20"]
    args = ["tournament", "--format", "swiss", "--seats", "2", "--rounds", "3", "--games", "4"]
    for b in bots:
        args += ["--bots", b]
    args += ["--seed", "9", "--no-report", "--db", db, "--executor", "ray"]
    args += ["--ray-address", cluster.address]
    driver = subprocess.Popen(
        [sys.executable, "-m", "arena", *args],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    eng = create_engine(db)
    try:
        deadline = time.monotonic() + 180
        stored = 0
        while driver.poll() is None and time.monotonic() < deadline:
            try:
                with Session(eng) as s:
                    stored = len(list(s.exec(select(Game))))
            except Exception:
                stored = 0  # the schema is not there yet
            if stored:
                os.killpg(driver.pid, signal.SIGKILL)
                break
            time.sleep(0.05)  # polling the database for a stored match
        driver.wait(30)
    finally:
        eng.dispose()
    why = driver.stderr.read() if driver.stderr else ""
    assert stored and driver.returncode == -signal.SIGKILL, why
    resumed = arena_cli(
        "tournament", "resume", "1", "--no-report", "--db", db, "--executor", "ray",
        "--ray-address", cluster.address,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    from arena.store.models import entry_source
    from arena.tournament import load

    t, stored_entries = load(db, 1)
    assert t.status == "completed"
    local = f"sqlite:///{tmp_path / 'local.db'}"
    same = TournamentConfig(
        format="swiss",
        entries=[EntrySpec(e.name, entry_source(e)) for e in stored_entries],
        seats=2,
        rounds=3,
        games=4,
        seed=9,
    )
    asyncio.run(TournamentRunner(local, create_tournament(same, local)).run())
    assert games_of(db) == games_of(local)
    assert faults_of(db) == []


def test_arena_match_on_ray_plays_the_same_games_as_locally(cluster: LocalCluster) -> None:
    """``arena match --executor ray`` plays the match in parts, one Ray task per CPU of the
    cluster; the merged games, in order, equal a local run's."""
    import json

    ex = ROOT / "bots" / "examples" / "python"
    base = ["match", "--bot", f"{sys.executable} {ex}/ev/bot.py", "--bot", "builtin:random"]
    base += ["--bot", "builtin:threshold:22", "--games", "8", "--seed", "3", "--json"]

    def games(*extra: str) -> list[Any]:
        r = arena_cli(*base, *extra)
        assert r.returncode == 0, r.stderr
        return [
            (g["index"], g["seating"], g["ranks"], g["totals"], g["faults"])
            for g in json.loads(r.stdout)["games"]
        ]

    on_ray = games("--executor", "ray", "--ray-address", cluster.address)
    assert on_ray == games()
    assert [g[0] for g in on_ray] == list(range(8))


def test_the_cli_says_in_one_line_when_ray_is_missing_or_the_cluster_unreachable(
    tmp_path: Path,
) -> None:
    base = ["match", "--bot", "builtin:ev", "--bot", "builtin:random", "--games", "2"]
    no_ray = subprocess.run(
        [sys.executable, "-c",
         "import sys; sys.modules['ray'] = None\n"
         "from arena.cli.main import main\n"
         f"sys.exit(main({[*base, '--executor', 'ray']!r}))"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert no_ray.returncode == 1
    assert no_ray.stderr.strip().splitlines() == [
        "error: the ray executor needs Ray, which is not installed: pip install 'flip7-arena[ray]'"
    ]
    try:
        import ray  # noqa: F401
    except ImportError:
        unavailable("Ray is not installed (pip install 'flip7-arena[ray]')", DUTY)
    t0 = time.monotonic()
    gone = arena_cli(*base, "--executor", "ray", "--ray-address", "127.0.0.1:1")
    assert gone.returncode == 1
    assert gone.stderr.startswith("error: cannot reach the Ray cluster at 127.0.0.1:1: ")
    assert len(gone.stderr.strip().splitlines()) == 1
    assert time.monotonic() - t0 < 60  # not Ray's own minutes of waiting
    bad = arena_cli(*base, "--ray-address", "127.0.0.1:6379")
    assert bad.returncode == 2 and "--ray-address: give it with --executor ray" in bad.stderr
    workers = arena_cli(*base, "--executor", "ray", "--workers", "2")
    assert workers.returncode == 2 and "--workers: is for the local executor" in workers.stderr


def test_a_ladder_plays_its_tables_as_ray_tasks(cluster: LocalCluster, tmp_path: Path) -> None:
    """``arena ladder run --executor ray`` plays and stores its tables on the cluster, and a
    second run on Ray, in this process, shows each table was a Ray task on a node; the
    ladder's board rates every bot on the games of both."""
    import json

    from arena.ladder.runner import LadderConfig, LadderRunner, Progress, open_ladder

    ex = ROOT / "bots" / "examples" / "python"
    db = f"sqlite:///{tmp_path / 'ladder.db'}"
    for name, bot in [("ev", "ev/bot.py"), ("coin", "random/bot.py"), ("t18", "threshold/bot.py")]:
        added = arena_cli("bot", "add", name, "--cmd", f"{sys.executable} {ex / bot}", "--db", db)
        assert added.returncode == 0, added.stderr
    ran = arena_cli(
        "ladder", "run", "--seats", "2", "--max-games", "6", "--seed", "5", "--json",
        "--executor", "ray", "--ray-address", cluster.address, "--db", db,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    assert json.loads(ran.stdout)["games"] == 6

    ladder = open_ladder(db, LadderConfig(seats=2))
    seen: list[Any] = []

    def progress(_: Progress) -> None:
        if runner.executor is not None and not seen:
            seen.append(runner.executor)

    runner = LadderRunner(
        db, ladder, max_games=4, seed=6, progress=progress, executor="ray",
        address=cluster.address,
    )  # fmt: skip
    outcome = asyncio.run(asyncio.wait_for(runner.run(), 300))
    assert outcome.games == 4
    placements = seen[0].pool.placements
    assert len(placements) == 4  # a table per game (--games 1), a task per table
    assert all(p["match"].startswith(f"l{ladder.id}-m") for p in placements)
    assert {p["node"] for p in placements} <= {cluster.head_id, cluster.second.node_id}

    eng = create_engine(db)
    with Session(eng) as s:
        stored = [g for g in s.exec(select(Game)) if g.status == "completed"]
    eng.dispose()
    assert len(stored) == 6 + 4
    board = arena_cli("ladder", "status", "--json", "--db", db)
    assert board.returncode == 0, board.stderr
    (rows,) = [lad["rows"] for lad in json.loads(board.stdout)]
    assert {r["bot"] for r in rows} == {"ev@v1", "coin@v1", "t18@v1"}
    assert all(r["status"] == "active" and r["elo"] is not None for r in rows)
    assert sum(r["games"] for r in rows) == 2 * (6 + 4)


def test_arena_test_plays_on_the_ray_cluster_its_ray_address_names(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """``arena test --ray-address`` is checked before anything is stored (a malformed one
    exits 2, one that does not answer 1, each in one line), and plays on that cluster."""
    import json

    db = f"sqlite:///{tmp_path / 'ab.db'}"
    base = ["test", "builtin:ev", "builtin:random", "--games", "8", "--no-report", "--db", db]
    for address, code, needle in [
        ("nowhere", 2, "error: --ray-address: give HOST:PORT"),
        ("127.0.0.1:1", 1, "error: cannot reach the Ray cluster at 127.0.0.1:1: "),
    ]:
        r = arena_cli(*base, "--executor", "ray", "--ray-address", address)
        assert r.returncode == code, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(needle), r.stderr
    listed = arena_cli("test", "list", "--json", "--db", db)
    assert listed.returncode == 0 and json.loads(listed.stdout) == []
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    r = arena_cli(*base, "--json", "--executor", "ray", "--ray-address", cluster.address, env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 8
