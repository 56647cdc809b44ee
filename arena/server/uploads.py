"""An upload becomes a bot version: checked and unpacked (:mod:`arena.server.upload`),
built in the sandbox, pinned, checked for compliance and registered — through the very
path of ``arena bot submit`` (:func:`arena.submit.submit_bot`). Its build log is stored
with its outcome, for its owner and the organiser only."""

from __future__ import annotations

import asyncio
import tempfile
import threading
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from arena import limits
from arena.errors import ArenaError, UsageProblem
from arena.names import check_bot_name
from arena.runtime.build_sandbox import BuildLimits
from arena.server.upload import unpack_upload
from arena.status import BuildStatus
from arena.store import builds
from arena.store.db import Db
from arena.store.models import Build, now
from arena.submit import check_owner, submit_bot

LOG_CAP = 200_000  # characters of build log kept per upload


class TooMany(ArenaError):
    """The participant's upload rate limit is spent."""


@dataclass
class Outcome:
    build: Build
    checks: list[dict[str, Any]]


class Uploads:
    """Builds uploads one at a time (a build is heavy; the check plays games)."""

    def __init__(self, db: Db) -> None:
        self.db = db
        self._one = threading.Lock()

    def check_rate(self, participant_id: int) -> None:
        started = builds.since(self.db, participant_id, now() - timedelta(hours=1))
        if started >= limits.UPLOADS_PER_HOUR:
            raise TooMany(f"{limits.UPLOADS_PER_HOUR} uploads an hour at most: try again later")

    def submit(self, participant_id: int, name: str, filename: str, data: bytes) -> Outcome:
        """Build, check and register one upload (blocking: minutes at worst). Bad input is
        a UsageProblem raised before anything is stored; a failed build or check is a
        stored FAILED build with its log, and no bot version."""
        check_bot_name(name, param="name")
        check_owner(self.db, name, participant_id)
        self.check_rate(participant_id)
        with tempfile.TemporaryDirectory(prefix="flip7-upload-") as tmp:
            context = unpack_upload(filename, data, Path(tmp))  # refused: nothing stored
            build = builds.start(self.db, participant_id, name)
            log: list[str] = []
            size = 0

            def line(text: str) -> None:
                nonlocal size
                if size < LOG_CAP:
                    log.append(text)
                    size += len(text) + 1

            with self._one:
                return self._build(build, participant_id, name, context, log, line)

    def _build(
        self,
        build: Build,
        participant_id: int,
        name: str,
        context: Path,
        log: list[str],
        line: Any,
    ) -> Outcome:
        try:
            submitted = submit_bot(
                self.db,
                context,
                name,
                limits=BuildLimits(timeout=limits.UPLOAD_BUILD_TIMEOUT),
                on_line=line,
                progress=lambda msg: line(f"check: {msg}"),
                owner_id=participant_id,
                keep_failed=False,
                run=asyncio.run,
            )
        except (ArenaError, UsageProblem) as e:
            done = builds.finish(self.db, build.id, BuildStatus.FAILED, str(e), "\n".join(log))
            return Outcome(done, [])
        except BaseException as e:
            builds.finish(
                self.db, build.id, BuildStatus.FAILED, f"the build broke: {e}", "\n".join(log)
            )
            raise
        checks = [c.as_dict() for c in submitted.checks or []]
        for c in submitted.checks or []:
            line(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
        if submitted.failed:
            detail = (
                f"{name} was not registered: {len(submitted.failed)} of {len(checks)} "
                f"compliance checks failed (first: {submitted.failed[0].name}: "
                f"{submitted.failed[0].detail})"
            )
            done = builds.finish(self.db, build.id, BuildStatus.FAILED, detail, "\n".join(log))
            return Outcome(done, checks)
        detail = (
            f"built {submitted.built.id[:19]}, passed {len(checks)} compliance checks; "
            f"{name} is now at version {submitted.version}"
        )
        done = builds.finish(
            self.db, build.id, BuildStatus.PASSED, detail, "\n".join(log), submitted.version
        )
        return Outcome(done, checks)
