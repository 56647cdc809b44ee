"""The resumable state of one sequential test: hypotheses, unit counts, verdict.

:class:`SprtState` is counts in, numbers out. ``add`` records a finished unit and, while
the test is undecided, checks the LLR against the bounds; the first crossing fixes the
verdict (units still in flight when it happens are counted in the estimates but cannot
undo it). ``as_dict`` / ``from_dict`` round-trip through JSON, so a test can be stored
after every unit and resumed after a kill; ``line`` is the one-line live progress report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.abtest.pairs import Estimate, Tally
from arena.abtest.sprt import SprtSpec, Verdict, llr

__all__ = ["SprtState", "SprtStatus"]


@dataclass(frozen=True)
class SprtStatus:
    spec: SprtSpec
    llr: float
    lower: float
    upper: float
    verdict: Verdict
    decided_at: int | None
    estimate: Estimate

    def as_dict(self) -> dict[str, Any]:
        return {
            "sprt": self.spec.as_dict(),
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "verdict": self.verdict.value,
            "decided_at": self.decided_at,
            **self.estimate.as_dict(),
        }


def _signed(x: float | None, digits: int = 1) -> str:
    if x is None or math.isnan(x):
        return "?"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.{digits}f}"


@dataclass
class SprtState:
    spec: SprtSpec
    tally: Tally
    verdict: Verdict = Verdict.CONTINUE
    decided_at: int | None = None
    _llr: tuple[tuple[int, ...], float] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def new(cls, spec: SprtSpec, games_per_unit: int = 2) -> SprtState:
        return cls(spec, Tally(games_per_unit))

    @property
    def decided(self) -> bool:
        return self.verdict is not Verdict.CONTINUE

    @property
    def llr(self) -> float:
        """The LLR of the current counts (cached per counts)."""
        counts = self.tally.counts
        if self._llr is None or self._llr[0] != counts:
            self._llr = (counts, float(llr(counts, self.spec)))
        return self._llr[1]

    def add(self, unit: str | Sequence[Any]) -> Verdict:
        """Record one finished unit (``"WL"``, ``[1, 0]`` ...); returns the verdict."""
        self.tally.add(unit)
        if not self.decided:
            v = self.spec.verdict(self.llr)
            if v is not Verdict.CONTINUE:
                self.verdict = v
                self.decided_at = self.tally.units
        return self.verdict

    def status(self) -> SprtStatus:
        return SprtStatus(
            self.spec,
            self.llr,
            self.spec.lower,
            self.spec.upper,
            self.verdict,
            self.decided_at,
            self.tally.estimate(),
        )

    def line(self) -> str:
        """One line for a live display, e.g.
        ``pairs 1200 (2400 games)  LLR +1.52 [-2.94, +2.94]  Elo +12.3 [+1.1, +23.6] ...``.
        """
        st = self.status()
        e = st.estimate
        m = e.games_per_unit
        if m == 1:
            head = f"games {e.units}"
            c = e.counts
            dist = f"W/D/L {c[2]}/{c[1]}/{c[0]}"
        else:
            head = f"{'pairs' if m == 2 else 'units'} {e.units} ({e.games} games)"
            dist = f"{'pentanomial' if m == 2 else 'unit scores'} {' '.join(map(str, e.counts))}"
        parts = [
            head,
            f"LLR {st.llr:+.2f} [{st.lower:+.2f}, {st.upper:+.2f}]",
            f"Elo {_signed(e.elo)} [{_signed(e.elo_low)}, {_signed(e.elo_high)}]",
            f"nElo {_signed(e.nelo)}",
            f"LOS {100 * e.los:.1f}%",
            dist,
        ]
        if e.variance_ratio is not None and e.variance_ratio_se is not None:
            parts.append(f"variance x{e.variance_ratio:.2f} ±{e.variance_ratio_se:.2f}")
        parts.append(st.verdict.text + (f" at {st.decided_at}" if st.decided_at else ""))
        return "  ".join(parts)

    # ------------------------------------------------------------------ storage
    def as_dict(self) -> dict[str, Any]:
        return {
            "sprt": self.spec.as_dict(),
            "tally": self.tally.as_dict(),
            "verdict": self.verdict.value,
            "decided_at": self.decided_at,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SprtState:
        verdict = Verdict(data.get("verdict", Verdict.CONTINUE.value))
        decided_at = data.get("decided_at")
        if (verdict is Verdict.CONTINUE) != (decided_at is None):
            raise ValueError("a stored verdict needs the unit count it was reached at")
        return cls(
            SprtSpec.from_dict(data["sprt"]),
            Tally.from_dict(data["tally"]),
            verdict,
            None if decided_at is None else int(decided_at),
        )
