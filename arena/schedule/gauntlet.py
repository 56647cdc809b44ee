"""Gauntlet: challengers play the rest of the field, never (if avoidable) each other.

The field (every bot that is not a challenger, in a seeded random order) is cut once into
B fixed *blocks* of at most K - 1 bots, sizes differing by at most one, with
B = max(ceil(F / (K - 1)), min(C, F)) for F field bots and C challengers. In round r,
challenger i sits with block (i + r) mod B; blocks without a challenger sit out (byes).
So every challenger meets every block, hence every field bot, exactly once per B rounds
(within one of each other for any number of rounds), and all challengers face the very
same opposing groups. Default rounds: B.

Tables have K seats when F is a multiple of K - 1 and C <= F / (K - 1); otherwise some
blocks are smaller and the note says so. When there are more challengers than field bots
(C > F), blocks are single field bots and challengers share tables (at most K - 1 per
table; any more sit out in turn), also stated in the note.
Seat orders are balanced over the whole event (see :mod:`arena.schedule.seating`).
"""

from __future__ import annotations

from arena.schedule.common import check_index, copy_plan, join_notes, plural, rng_for
from arena.schedule.seating import balance_event
from arena.schedule.types import RoundPlan, Standing, Table


class GauntletScheduler:
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
        self.bots = list(bots)
        self.seats = seats
        self.challengers = list(challengers)
        self.seed = seed
        chosen = set(self.challengers)
        field = [b for b in self.bots if b not in chosen]
        rng_for(seed, "gauntlet", "field").shuffle(field)
        self.field = field
        c, f, k = len(self.challengers), len(field), seats
        self.n_blocks = max(-(-f // (k - 1)), min(c, f))
        q, r = divmod(f, self.n_blocks)
        self.blocks: list[list[str]] = []
        at = 0
        for i in range(self.n_blocks):
            size = q + (1 if i < r else 0)
            self.blocks.append(field[at : at + size])
            at += size
        self.rounds = rounds if rounds is not None else self.n_blocks
        self._plans: list[RoundPlan] | None = None

    def total_rounds(self) -> int:
        return self.rounds

    def plan_round(
        self, index: int, standings: list[Standing], history: list[RoundPlan]
    ) -> RoundPlan:
        check_index(index, self.rounds)
        return copy_plan(self._build()[index])

    def _build(self) -> list[RoundPlan]:
        if self._plans is not None:
            return self._plans
        names = self.bots
        idx = {b: i for i, b in enumerate(names)}
        c, k, nb = len(self.challengers), self.seats, self.n_blocks
        per_table = -(-c // nb)
        rounds: list[list[list[int]]] = []
        byes: list[list[str]] = []
        notes: list[str] = []
        for r in range(self.rounds):
            at_block: list[list[str]] = [[] for _ in range(nb)]
            for i, ch in enumerate(self.challengers):
                at_block[(i + r) % nb].append(ch)
            tables: list[list[int]] = []
            sitting_out: list[str] = []
            shared = False
            for j, group in enumerate(at_block):
                if not group:
                    sitting_out.extend(self.blocks[j])
                    continue
                room = k - len(self.blocks[j])
                if len(group) > room:  # rotate who sits out among the crowded challengers
                    turn = (r // nb) % len(group)
                    group = group[turn:] + group[:turn]
                    sitting_out.extend(group[room:])
                    group = group[:room]
                shared = shared or len(group) > 1
                tables.append([idx[b] for b in group + self.blocks[j]])
            rounds.append(tables)
            byes.append(sorted(sitting_out, key=idx.__getitem__))
            notes.append(self._note(r, tables, shared, per_table))
        seated = balance_event(rounds, len(names), k)
        self._plans = [
            RoundPlan(
                tables=[Table(tuple(names[b] for b in t)) for t in tables],
                byes=bye,
                note=note,
            )
            for tables, bye, note in zip(seated, byes, notes, strict=True)
        ]
        return self._plans

    def _note(self, r: int, tables: list[list[int]], shared: bool, per_table: int) -> str:
        c, f, k, nb = len(self.challengers), len(self.field), self.seats, self.n_blocks
        parts = [
            f"gauntlet round {r + 1} of {self.rounds}: challenger i meets field block (i + {r}) mod {nb}"
        ]
        small = sorted({len(t) for t in tables if len(t) < k})
        if small:
            sizes = ", ".join(str(s) for s in small)
            if shared or c > f:
                why = f"the field of {f} is shared by {c} challengers"
            elif c > f // (k - 1):
                why = f"{f} field bots cannot give each of {c} challengers {k - 1} opponents"
            else:
                why = f"{f} field bots do not split into blocks of {k - 1}"
            parts.append(f"tables of {sizes} seats because {why}")
        if shared:
            parts.append(
                f"challengers share tables (up to {min(per_table, k - 1)} per table) because "
                f"there are more challengers ({c}) than field bots to give each its own table ({f})"
            )
        idle = nb - min(nb, c)
        if idle:
            parts.append(f"{plural(idle, 'field block')} without a challenger sit out this round")
        return join_notes(*parts)
