"""An upload becomes a bot version: checked and unpacked (:mod:`arena.server.upload`) in
the upload's request, then queued (:mod:`arena.server.buildqueue`) and built in the
sandbox, pinned, checked for compliance and registered — through the very path of
``arena bot submit`` (:func:`arena.submit.submit_bot`). Its build log is stored with its
outcome (while it builds, too), for its owner and the organiser only.

A queued build's context waits in a temporary folder of the server (removed when the
build ends, and with the folder when the server stops); a server that stops marks its
queued and running builds failed ("upload again"), as does the next start for a server
that was killed.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from arena import limits
from arena.errors import ArenaError, UsageProblem
from arena.names import check_bot_name
from arena.runtime.build_sandbox import BuildLimits
from arena.server.buildqueue import LOG_CAP, BuildQueue, Job
from arena.server.upload import UploadRejected, hide_folder, unpack_upload
from arena.status import BuildStatus
from arena.store import builds
from arena.store.db import Db
from arena.store.models import Build, now
from arena.submit import check_owner, submit_bot

__all__ = ["LOG_CAP", "TooMany", "Uploads"]


SPOOL_PREFIX = "flip7-builds-"  # + the server's pid: the folder of its queued contexts


def _sweep_spools() -> None:
    """Remove the folders of queued contexts left by this user's servers that were killed
    (their process is gone)."""
    for d in Path(tempfile.gettempdir()).glob(f"{SPOOL_PREFIX}*-*"):
        pid = d.name.removeprefix(SPOOL_PREFIX).split("-", 1)[0]
        try:
            if not pid.isdigit() or d.lstat().st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except OSError:
            continue


class TooMany(ArenaError):
    """The participant's upload rate limit is spent."""


class RefusedUploads:
    """Each participant's refused uploads of the last hour, counted in memory: checking an
    upload costs the server work (a 10 MiB archive listed, a .py parsed), and a refused one
    stores nothing, so without this count it would be free to repeat.

    Memory is enough: the count bounds the server's work now, not a record anyone reads;
    a restart forgets it, which gives nobody more than one more hour's worth. It holds at
    most :data:`~arena.limits.REFUSED_UPLOADS_PER_HOUR` times per participant.

    An upload takes a slot before it is checked (:meth:`take`) and gives it back if it
    was not refused (:meth:`give_back`), under one lock: concurrent uploads cannot pass
    the limit together."""

    WINDOW = 3600.0  # seconds

    def __init__(self, cap: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.cap, self.clock = cap, clock
        self._lock = threading.Lock()
        self._slots: dict[int, deque[tuple[float, int]]] = {}  # (when, which), oldest first
        self._ids = itertools.count()

    def take(self, participant_id: int) -> tuple[float, int] | None:
        """A slot for one upload's check; None if the participant's refused uploads of
        the last hour, with those being checked, reach the cap."""
        with self._lock:
            now_ = self.clock()
            slots = self._slots.setdefault(participant_id, deque())
            while slots and slots[0][0] <= now_ - self.WINDOW:
                slots.popleft()
            if len(slots) >= self.cap:
                return None
            slot = (now_, next(self._ids))
            slots.append(slot)
            return slot

    def give_back(self, participant_id: int, slot: tuple[float, int]) -> None:
        """The upload was not refused: its slot is free again."""
        with self._lock:
            slots = self._slots.get(participant_id)
            if slots is not None:
                with contextlib.suppress(ValueError):  # gone with its hour
                    slots.remove(slot)
                if not slots:
                    del self._slots[participant_id]


class Uploads:
    """Takes uploads (at once) and builds them in the queue."""

    def __init__(self, db: Db, workers: int | None = None) -> None:
        self.db = db
        self.queue = BuildQueue(db, self._build, workers)
        self._spool: Path | None = None
        self.refused = RefusedUploads(limits.REFUSED_UPLOADS_PER_HOUR)

    def start(self) -> None:
        _sweep_spools()
        self._spool = Path(tempfile.mkdtemp(prefix=f"{SPOOL_PREFIX}{os.getpid()}-"))
        self.queue.start()

    def stop(self) -> None:
        self.queue.stop()
        if self._spool is not None:
            shutil.rmtree(self._spool, ignore_errors=True)

    def _too_many(self) -> TooMany:
        return TooMany(f"{limits.UPLOADS_PER_HOUR} uploads an hour at most: try again later")

    def check_rate(self, participant_id: int) -> None:
        started = builds.since(self.db, participant_id, now() - timedelta(hours=1))
        if started >= limits.UPLOADS_PER_HOUR:
            raise self._too_many()

    def submit(self, participant_id: int, name: str, filename: str, data: bytes) -> Build:
        """Check and unpack one upload and queue its build; the QUEUED build at once. Bad
        input is a UsageProblem raised before anything is stored; an upload past the
        hourly limit is :class:`TooMany` (counted and stored in one transaction, so
        concurrent uploads cannot pass the limit together), and so is one past the limit
        of refused uploads (:class:`RefusedUploads`), before it is checked."""
        check_bot_name(name, param="name")
        check_owner(self.db, name, participant_id)
        self.check_rate(participant_id)  # cheap: before unpacking anything
        if self._spool is None:
            raise ArenaError("the server is not taking uploads (it is starting or stopping)")
        slot = self.refused.take(participant_id)
        if slot is None:
            raise TooMany(
                f"{limits.REFUSED_UPLOADS_PER_HOUR} refused uploads an hour at most: "
                f"try again later"
            )
        counted = True  # the slot is this upload's until it passes the checks
        folder = Path(tempfile.mkdtemp(prefix="upload-", dir=self._spool))
        try:
            try:
                context = unpack_upload(filename, data, folder)  # refused: nothing stored
                refuse_unbuildable(context)  # e.g. FROM another's image: refused, nothing stored
            except UploadRejected as e:  # counted (its slot kept); no server path in it
                raise UploadRejected(self._private(str(e), folder, folder)) from None
            self.refused.give_back(participant_id, slot)
            counted = False
            build = builds.start_within(
                self.db,
                participant_id,
                name,
                now() - timedelta(hours=1),
                limits.UPLOADS_PER_HOUR,
            )
            if build is None:
                raise self._too_many()
            assert build.id is not None
            self.queue.add(Job(build.id, participant_id, name, folder, context))
        except BaseException as e:
            shutil.rmtree(folder, ignore_errors=True)
            if counted and not isinstance(e, UploadRejected):
                self.refused.give_back(participant_id, slot)  # not refused: not counted
            raise
        return build

    def _private(self, text: str, context: Path, folder: Path) -> str:
        """``text`` (a message or a log line for the uploader) without the server's paths:
        the upload's files named by their place in it (see :func:`hide_folder`)."""
        text = hide_folder(hide_folder(text, context), folder)
        if self._spool is not None:
            text = hide_folder(text, self._spool, "the server's build folder")
        return text

    def cancel(self, build_id: int) -> bool:
        return self.queue.cancel(build_id)

    def position(self, build_id: int) -> int | None:
        return self.queue.positions().get(build_id)

    # ------------------------------------------------------------ in a builder thread
    def _build(self, job: Job) -> None:
        if not builds.building(self.db, job.build_id):
            return  # cancelled meanwhile
        try:
            submitted = submit_bot(
                self.db,
                job.context,
                job.name,
                limits=BuildLimits(timeout=limits.UPLOAD_BUILD_TIMEOUT),
                on_line=lambda text: job.line(self._private(text, job.context, job.folder)),
                progress=lambda msg: job.line(
                    self._private(f"check: {msg}", job.context, job.folder)
                ),
                owner_id=job.participant_id,
                keep_failed=False,
                run=job.run,
                cancel=job.cancel,
            )
        except BaseException as e:
            if job.cancel.is_set():
                self._cancelled(job)
            elif isinstance(e, ArenaError | UsageProblem):
                self._finish(job, BuildStatus.FAILED, str(e))
            else:
                self._finish(job, BuildStatus.FAILED, f"the build broke: {e}")
                raise  # the queue logs it
            return
        checks = submitted.checks or []
        for c in checks:
            job.line(
                self._private(
                    f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}", job.context, job.folder
                )
            )
        if submitted.failed:
            first = submitted.failed[0]
            self._finish(
                job,
                BuildStatus.FAILED,
                f"{job.name} was not registered: {len(submitted.failed)} of {len(checks)} "
                f"compliance checks failed (first: {first.name}: {first.detail})",
            )
            return
        self._finish(
            job,
            BuildStatus.PASSED,
            f"built {submitted.built.id[:19]}, passed {len(checks)} compliance checks; "
            f"{job.name} is now at version {submitted.version}",
            submitted.version,
        )

    def _cancelled(self, job: Job) -> None:
        if job.stopping:
            self._finish(job, BuildStatus.FAILED, builds.STOPPED.format(when="during the build"))
        else:
            job.line("arena: the build was cancelled")
            self._finish(
                job,
                BuildStatus.CANCELLED,
                "cancelled while it was building; nothing was registered",
            )

    def _finish(
        self, job: Job, status: BuildStatus, detail: str, version: int | None = None
    ) -> Build:
        detail = self._private(detail, job.context, job.folder)
        return builds.finish(self.db, job.build_id, status, detail, job.log(), version)


def refuse_unbuildable(context: Path) -> None:
    """Plan the build before it is queued: a Dockerfile that reads another image than the
    arena's bases (or one that is not here, or an ADD of a URL) is refused at once with
    the reason, as a bad archive is, instead of becoming a failed build that counts
    against the hourly limit. The reason names the Dockerfile by its place in the upload,
    never by the server's folder."""
    from arena.runtime.build import plan_build

    try:
        plan_build(context)
    except UsageProblem as e:
        raise UploadRejected(hide_folder(str(e), context)) from None
