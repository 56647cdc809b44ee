"""A/B testing of two bots: the statistics of ``arena test``.

* :mod:`~arena.abtest.sprt` — the GSPRT on unit scores (pentanomial for deal pairs,
  trinomial for single games), Wald's bounds, the ``--sprt`` parser;
* :mod:`~arena.abtest.pairs` — unit outcomes, Elo / normalised Elo / LOS estimates, the
  variance ratio of a duplicate design;
* :mod:`~arena.abtest.state` — the storable, resumable state of a running test;
* :mod:`~arena.abtest.design` — the seat layouts of a unit's games and their scoring;
* :mod:`~arena.abtest.theory` — predicted error rates, test lengths and games needed.

Pure numpy/scipy: no database, no engine. Measured figures and the design decision for
tables of more than two seats: ``arena/abtest/README.md``.
"""

from arena.abtest.design import DESIGNS, games_per_unit, head_to_head, unit_layouts
from arena.abtest.elo import NELO_PER_T, elo_from_score, score_from_elo
from arena.abtest.pairs import Estimate, Tally, variance_ratio
from arena.abtest.sprt import SprtSpec, SprtSpecError, Verdict, llr, parse_sprt
from arena.abtest.state import SprtState, SprtStatus
from arena.abtest.theory import GamesNeeded, OperatingPoint, games_needed, operating_point

__all__ = [
    "DESIGNS",
    "NELO_PER_T",
    "Estimate",
    "GamesNeeded",
    "OperatingPoint",
    "SprtSpec",
    "SprtSpecError",
    "SprtState",
    "SprtStatus",
    "Tally",
    "Verdict",
    "elo_from_score",
    "games_needed",
    "games_per_unit",
    "head_to_head",
    "llr",
    "operating_point",
    "parse_sprt",
    "score_from_elo",
    "unit_layouts",
    "variance_ratio",
]
