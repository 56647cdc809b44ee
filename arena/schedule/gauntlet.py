"""Gauntlet: challengers play the rest of the field, never (if avoidable) each other.

The field (every bot that is not a challenger, in a seeded random order) is cut once into
B fixed *blocks*, sizes differing by at most one; the challengers form G *squads*.

* C <= F (C challengers, F field bots): squads are single challengers (G = C) and
  B = max(ceil(F / (K - 1)), C), so every block has at most K - 1 bots.
* C > F, "more challengers than tables allow": blocks are single field bots (B = F) and
  challengers share tables in G = max(F, ceil(C / (K - 1))) squads of at most K - 1
  (sizes differing by at most one); the note says so.

With V = max(B, G), in round r squad g sits at block (g + r) mod V; blocks without a squad
and squads whose block number is >= B sit out (``byes``). So every challenger meets every
block, hence every field bot, exactly once per V rounds (within one of each other for any
number of rounds), and all challengers face the very same opposing groups.
Default rounds: V.

Tables have K seats when F is a multiple of K - 1 and C <= F / (K - 1); otherwise some
tables are smaller and the note says why.
Seat orders are balanced over the whole event (see :mod:`arena.schedule.seating`).
"""

from __future__ import annotations

from arena.schedule.base import BaseScheduler
from arena.schedule.common import copy_plan, join_notes, plural, rng_for
from arena.schedule.seating import balance_event
from arena.schedule.types import RoundPlan, Standing


class GauntletScheduler(BaseScheduler):
    format = "gauntlet"

    def __init__(
        self,
        bots: list[str],
        seats: int,
        challengers: list[str],
        *,
        rounds: int | None = None,
        seed: int = 0,
    ) -> None:
        super().__init__(bots, seats, rounds=rounds, seed=seed)
        self.challengers = list(challengers)
        chosen = set(self.challengers)
        field = [b for b in self.bots if b not in chosen]
        rng_for(seed, "gauntlet", "field").shuffle(field)
        self.field = field
        c, f, k = len(self.challengers), len(field), seats
        if c <= f:
            n_blocks, n_squads = max(-(-f // (k - 1)), c), c
        else:
            n_blocks, n_squads = f, max(f, -(-c // (k - 1)))
        self.blocks = _split(field, n_blocks)
        self.squads = _split(self.challengers, n_squads)
        self.cycle = max(n_blocks, n_squads)
        self.rounds = rounds if rounds is not None else self.cycle
        self._plans: list[RoundPlan] | None = None

    def total_rounds(self) -> int:
        return self.rounds

    def _plan(self, index: int, standings: list[Standing], history: list[RoundPlan]) -> RoundPlan:
        return copy_plan(self._build()[index])

    def _build(self) -> list[RoundPlan]:
        if self._plans is not None:
            return self._plans
        idx = self._index
        rounds: list[list[list[int]]] = []
        byes: list[list[int]] = []
        notes: list[str] = []
        for r in range(self.rounds):
            host: dict[int, list[str]] = {}
            sitting_out: list[str] = []
            for g, squad in enumerate(self.squads):
                j = (g + r) % self.cycle
                if j < len(self.blocks):
                    host[j] = squad
                else:
                    sitting_out.extend(squad)
            tables: list[list[int]] = []
            for j, block in enumerate(self.blocks):
                if j in host:
                    tables.append([idx[b] for b in host[j] + block])
                else:
                    sitting_out.extend(block)
            rounds.append(tables)
            byes.append(sorted(idx[b] for b in sitting_out))
            notes.append(self._note(r, tables, sitting_out))
        seated = balance_event(rounds, len(self.bots), self.seats)
        self._plans = [
            self.named_plan(tables, bye, note)
            for tables, bye, note in zip(seated, byes, notes, strict=True)
        ]
        return self._plans

    def _note(self, r: int, tables: list[list[int]], sitting_out: list[str]) -> str:
        c, f, k = len(self.challengers), len(self.field), self.seats
        parts = [
            f"gauntlet round {r + 1} of {self.rounds}: each challenger meets the next of "
            f"{plural(len(self.blocks), 'field block')}"
        ]
        shared = max(len(s) for s in self.squads) > 1
        small = sorted({len(t) for t in tables if len(t) < k})
        if small:
            sizes = ", ".join(str(s) for s in small)
            if shared:
                why = f"{c} challengers share a field of {f}"
            elif c > f // (k - 1):
                why = f"{f} field bots cannot give each of {c} challengers {k - 1} opponents"
            else:
                why = f"{f} field bots do not split into blocks of {k - 1}"
            parts.append(f"tables of {sizes} seats because {why}")
        if shared:
            most = max(len(s) for s in self.squads)
            parts.append(
                f"challengers share tables (up to {most} per table, always the same squads) "
                f"because there are more challengers ({c}) than field bots ({f})"
            )
        elif c > f:
            parts.append(
                f"challengers take turns because there are more challengers ({c}) "
                f"than field bots ({f})"
            )
        if sitting_out:
            parts.append(f"{plural(len(sitting_out), 'bot')} without a table this round")
        return join_notes(*parts)


def _split(items: list[str], parts: int) -> list[list[str]]:
    """``items`` cut into ``parts`` consecutive pieces whose sizes differ by at most one."""
    q, r = divmod(len(items), parts)
    out, at = [], 0
    for i in range(parts):
        size = q + (1 if i < r else 0)
        out.append(items[at : at + size])
        at += size
    return out
