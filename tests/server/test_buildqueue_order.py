"""The build queue's order, on its own (no server, no Docker): each participant's builds
one at a time, oldest first; participants in turn, the least recently served first; the
places it reports are the order it then follows."""

from __future__ import annotations

import threading
from pathlib import Path

from arena.server.buildqueue import BuildQueue, Job


def test_participants_are_served_in_turn_and_each_ones_builds_one_at_a_time(
    tmp_path: Path,
) -> None:
    started: list[int] = []
    release: dict[int, threading.Event] = {}
    lock = threading.Lock()
    seen = threading.Condition(lock)

    def build(job: Job) -> None:
        with seen:
            started.append(job.build_id)
            seen.notify_all()
        release[job.build_id].wait(30)

    queue = BuildQueue(None, build, workers=1)
    # build ids in upload order: alice uploads three, then bob one, then carol one
    uploads = [(1, "alice"), (2, "alice"), (3, "alice"), (4, "bob"), (5, "carol")]
    owners = {"alice": 10, "bob": 20, "carol": 30}
    for build_id, who in uploads:
        release[build_id] = threading.Event()
        folder = tmp_path / str(build_id)
        folder.mkdir()
        queue.add(Job(build_id, owners[who], who, folder, folder))
    assert queue.positions() == {1: 1, 4: 2, 5: 3, 2: 4, 3: 5}
    queue.start()
    try:
        for build_id in (1, 4, 5, 2, 3):
            with seen:
                assert seen.wait_for(lambda b=build_id: b in started, 30), started
            if build_id == 1:
                # alice is being served: bob and carol, who were not, come before her next
                assert queue.positions() == {4: 1, 5: 2, 2: 3, 3: 4}
            release[build_id].set()
        assert started == [1, 4, 5, 2, 3]
    finally:
        for e in release.values():
            e.set()
        queue.stop(wait=10)
    assert not any(tmp_path.iterdir())  # each build's folder is removed when it ends


def test_two_builders_never_build_two_of_one_participants_uploads_at_once(
    tmp_path: Path,
) -> None:
    running: set[int] = set()
    overlap: list[int] = []
    lock = threading.Lock()
    done = threading.Semaphore(0)

    def build(job: Job) -> None:
        with lock:
            if job.participant_id in running:
                overlap.append(job.build_id)
            running.add(job.participant_id)
        threading.Event().wait(0.05)  # a build takes a little while
        with lock:
            running.discard(job.participant_id)
        done.release()

    queue = BuildQueue(None, build, workers=2)
    queue.start()
    try:
        for build_id in range(1, 13):
            folder = tmp_path / str(build_id)
            folder.mkdir()
            queue.add(Job(build_id, 1 + build_id % 2, "x", folder, folder))
        for _ in range(12):
            assert done.acquire(timeout=30)
    finally:
        queue.stop(wait=10)
    assert overlap == []
