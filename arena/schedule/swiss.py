"""Swiss: each round seats bots of similar standing together, avoiding repeat meetings.

Per round:

1. Order the field by points, then rating (both descending), then a seeded random order
   (fresh per round; it decides round 1 among equal ratings).
2. Byes: only when a table would otherwise seat one bot (K = 2 and an odd field) or the
   caller asked for full tables only (``prefer_byes``). They go to the bots with the
   fewest byes so far, lowest standing first.
3. Table sizes: ``ceil(M / K)`` tables whose sizes differ by at most one. The smaller
   tables (K - 1 seats when possible) go to the part of the standings whose bots have sat
   at smaller tables least (the bottom in round 1), so that they rotate.
4. Grouping, minimising the sum over tables of

   * repeat penalties for every pair at the table that met before: 1e9 for a meeting in
     the previous round, max(1000, 20000 / age) for older ones (age 2 = two rounds ago);
   * 24 per *seat conflict*: each bot would like a seat position it has used least so
     far; a conflict is a member that cannot get one (maximum bipartite matching);
   * 1 per standings position by which the table's spread exceeds the tightest possible
     (a table of the ranks r..r+s-1 costs 0);
   * at a smaller table, 4 per earlier round each member spent at a table smaller than K.

   Small fields (at most 20,000 possible groupings) are solved exactly by branch and
   bound. Larger fields: top-down greedy (each table takes the best-ranked free bot, then
   the cheapest bots among the next few in the standings), then a local search that
   swaps bots between a flawed table (repeat or seat conflict) and the tables nearest to
   it in the standings while that lowers the total cost. Near-linear in the field size.
5. Seats: per table, a minimum-cost assignment that gives each position to the bot that
   has used it least (seat 0 weighted double), see :mod:`arena.schedule.seating`.

Default number of rounds: ``ceil(log_K(N)) + 2``, at least 3, but at most
``ceil((N - 1) / (K - 1))`` (the rounds a bot needs to possibly meet everyone else: N - 1
for K = 2) and at least 1.
"""

from __future__ import annotations

from collections import deque
from itertools import combinations
from math import factorial

from arena.schedule.base import BaseScheduler
from arena.schedule.common import (
    join_notes,
    plural,
    rng_for,
    sizes_note,
    split_sizes,
)
from arena.schedule.seating import seat_table
from arena.schedule.types import RoundPlan, Standing

PREVIOUS_REPEAT = 1e9
OLD_REPEAT = 20000.0
OLD_REPEAT_FLOOR = 1000.0
SEAT_CONFLICT = 24.0
SPREAD = 1.0
SMALL_TABLE = 4.0
EXACT_LIMIT = 20000  # groupings; up to this many the pairing is solved exactly
EXACT_NODES = 300_000  # search budget of the exact solver (a safety net)
NEAR_TABLES = 6  # seat-conflict-only tables look for swaps this many tables away


def default_swiss_rounds(n: int, k: int) -> int:
    """ceil(log_k(n)) + 2, at least 3, capped at ceil((n-1)/(k-1)), at least 1."""
    exponent, reach = 0, 1
    while reach < n:
        reach *= k
        exponent += 1
    return max(1, min(max(3, exponent + 2), -(-(n - 1) // (k - 1))))


def previous_round_bound(history: list[RoundPlan], sizes: list[int], n: int) -> int:
    """A lower bound on pairs from the previous round that must meet again (pigeonhole).

    A table of s bots drawn from G groups (the previous round's tables, and every bot
    that did not play it) holds at least the pairs of the most even split of s into G.
    """
    if not history:
        return 0
    last = history[-1]
    groups = len(last.tables) + n - sum(len(t.seats) for t in last.tables)
    bound = 0
    for s in sizes:
        q, r = divmod(s, max(1, groups))
        bound += r * (q + 1) * q // 2 + (groups - r) * q * (q - 1) // 2
    return bound


def repeat_weight(age: int) -> float:
    """Penalty for seating again a pair that met ``age`` rounds ago (1 = previous round)."""
    return PREVIOUS_REPEAT if age <= 1 else max(OLD_REPEAT_FLOOR, OLD_REPEAT / age)


class SwissScheduler(BaseScheduler):
    format = "swiss"

    def total_rounds(self) -> int:
        if self.requested_rounds is not None:
            return self.requested_rounds
        return default_swiss_rounds(len(self.bots), self.seats)

    def _plan(self, index: int, standings: list[Standing], history: list[RoundPlan]) -> RoundPlan:
        if len(history) != index:
            raise ValueError(
                f"round {index} is planned after the {index} rounds before it; "
                f"got a history of {len(history)} rounds"
            )
        n, k = len(self.bots), self.seats
        points, rating = self._standings(standings)
        pen, byes_so_far, seat_counts, small_counts = self._history(history)

        rng = rng_for(self.seed, "swiss", index)
        tiebreak = list(range(n))
        rng.shuffle(tiebreak)
        order = sorted(range(n), key=lambda i: (-points[i], -rating[i], tiebreak[i]))
        place = {b: r for r, b in enumerate(order)}

        sizes, n_byes = split_sizes(n, k, self.prefer_byes)
        bye = sorted(range(n), key=lambda b: (byes_so_far[b], -place[b]))[:n_byes]
        out = set(bye)
        players = [b for b in order if b not in out]

        grouper = Grouper(players, sizes, pen, seat_counts, n, small_counts)
        groups, exact = grouper.solve()
        tables = [seat_table(g, seat_counts) for g in groups]

        notes = [sizes_note(n, k, sizes, n_byes)]
        if len(sizes) == 1 and len(players) == n and index:
            notes.append("the whole field fits one table, so it meets again")
        else:
            recent, older = grouper.repeats(groups)
            if recent:
                forced = recent <= previous_round_bound(history, sizes, n)
                why = "unavoidable" if exact or forced else "the fewest the pairing search found"
                notes.append(f"{plural(recent, 'pair')} from the previous round meet again ({why})")
            if older:
                why = "the best possible grouping" if exact else "the best grouping found"
                notes.append(f"{plural(older, 'pair')} from earlier rounds meet again ({why})")
        if bye:
            notes.append(
                "bye for "
                + ", ".join(self.bots[b] for b in bye)
                + " (fewest byes, lowest standing)"
            )
        return self.named_plan(tables, bye, join_notes(*notes))

    def _standings(self, standings: list[Standing]) -> tuple[list[float], list[float]]:
        n = len(self.bots)
        points = [0.0] * n
        rating = [1500.0] * n
        seen: set[str] = set()
        for st in standings:
            i = self._index.get(st.bot)
            if i is None:
                raise ValueError(f"standings mention an unknown bot: {st.bot!r}")
            if st.bot in seen:
                raise ValueError(f"standings list {st.bot!r} twice")
            seen.add(st.bot)
            points[i] = float(st.points)
            rating[i] = float(st.rating)
        return points, rating

    def _history(self, history: list[RoundPlan]):
        n, k = len(self.bots), self.seats
        pen: dict[int, float] = {}
        byes = [0] * n
        counts = [[0] * k for _ in range(n)]
        small = [0] * n
        for r, plan in enumerate(history):
            w = repeat_weight(len(history) - r)
            for table in plan.tables:
                ids = [self.bot_id(b) for b in table.seats]
                if len(ids) < k:
                    for b in ids:
                        small[b] += 1
                for p, b in enumerate(ids[:k]):
                    counts[b][p] += 1
                for i, a in enumerate(ids):
                    for b in ids[i + 1 :]:
                        key = a * n + b if a < b else b * n + a
                        pen[key] = pen.get(key, 0.0) + w
            for name in plan.byes:
                byes[self.bot_id(name)] += 1
        return pen, byes, counts, small


class Grouper:
    """Splits ``players`` (best first) into tables of ``sizes`` at a low total cost."""

    def __init__(
        self,
        players: list[int],
        sizes: list[int],
        pen: dict[int, float],
        seat_counts: list[list[int]],
        n: int,
        small_counts: list[int] | None = None,
    ) -> None:
        self.players = players
        self.sizes = sizes
        self.full = max(sizes) if sizes else 0
        self.small_counts = small_counts or [0] * n
        self.sizes = self._place_small_tables(sizes)
        self.pen = pen
        self.n = n
        self.rank = [0] * n
        for r, b in enumerate(players):
            self.rank[b] = r
        # masks[s][b]: the seat positions (< s) that bot b has used least
        self._conflicts: dict[tuple[int, ...], int] = {}
        self.masks: dict[int, list[int]] = {}
        for s in set(sizes):
            row = [0] * n
            for b in players:
                c = seat_counts[b][:s]
                low = min(c)
                row[b] = sum(1 << p for p in range(s) if c[p] == low)
            self.masks[s] = row

    def _place_small_tables(self, sizes: list[int]) -> list[int]:
        """Table sizes in standings order: the smaller tables go where the bots have sat at
        smaller tables least (lowest in the standings on ties), so they rotate."""
        small = [s for s in sizes if s < self.full]
        if not small or not any(self.small_counts):
            return sorted(sizes, reverse=True)
        t, m = len(sizes), len(self.players)
        load = []
        for j in range(t):
            block = self.players[j * m // t : (j + 1) * m // t]
            load.append((sum(self.small_counts[b] for b in block), -j))
        chosen = {-j for _, j in sorted(load)[: len(small)]}
        small.sort(reverse=True)
        big = [s for s in sizes if s == self.full]
        return [small.pop() if j in chosen else big.pop() for j in range(t)]

    # -- cost ----------------------------------------------------------------------------

    def pair_cost(self, members: list[int]) -> float:
        pen, n = self.pen, self.n
        if not pen:
            return 0.0
        c = 0.0
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                c += pen.get(a * n + b if a < b else b * n + a, 0.0)
        return c

    def conflicts(self, members: list[int]) -> int:
        s = len(members)
        masks = self.masks[s]
        full = (1 << s) - 1
        wanted = [masks[m] for m in members if masks[m] != full]
        if not wanted:
            return 0
        key = tuple(sorted(wanted))
        known = self._conflicts.get(key)
        if known is None:
            owner = [-1] * s
            matched = sum(1 for i in range(len(wanted)) if _augment(i, wanted, owner, [0]))
            known = self._conflicts[key] = len(wanted) - matched
        return known

    def spread(self, members: list[int]) -> int:
        ranks = [self.rank[m] for m in members]
        return max(ranks) - min(ranks) - (len(members) - 1)

    def cost(self, members: list[int]) -> float:
        c = (
            self.pair_cost(members)
            + SEAT_CONFLICT * self.conflicts(members)
            + SPREAD * self.spread(members)
        )
        if len(members) < self.full:
            c += SMALL_TABLE * sum(self.small_counts[m] for m in members)
        return c

    def repeats(self, groups: list[list[int]]) -> tuple[int, int]:
        """(pairs that met in the previous round, other repeat pairs) in ``groups``."""
        recent = older = 0
        for g in groups:
            for i, a in enumerate(g):
                for b in g[i + 1 :]:
                    w = self.pen.get(a * self.n + b if a < b else b * self.n + a, 0.0)
                    if w >= PREVIOUS_REPEAT:
                        recent += 1
                    elif w:
                        older += 1
        return recent, older

    # -- search --------------------------------------------------------------------------

    def solve(self) -> tuple[list[list[int]], bool]:
        """The groups (best tables first) and whether they are a proven optimum."""
        if len(self.sizes) == 1:
            return [list(self.players)], True
        groups = self.greedy()
        self.improve(groups)
        if groupings(self.sizes) <= EXACT_LIMIT:
            return self.exact(groups)
        return groups, False

    def greedy(self) -> list[list[int]]:
        players, pen, n = self.players, self.pen, self.n
        taken = [False] * len(players)
        first = 0
        groups: list[list[int]] = []
        for size in self.sizes:
            while taken[first]:
                first += 1
            taken[first] = True
            anchor = players[first]
            members = [anchor]
            top = self.rank[anchor]
            window: list[int] = []
            j = first + 1
            while j < len(players) and len(window) < 3 * size + 4:
                if not taken[j]:
                    window.append(j)
                j += 1
            masks = self.masks[size]
            wanted = [masks[anchor]]
            owner = [-1] * size
            _augment(0, wanted, owner, [0])
            for _ in range(size - 1):
                best = None
                best_cost = 0.0
                for j in window:
                    if taken[j]:
                        continue
                    c = players[j]
                    inc = 0.0
                    if pen:
                        for m in members:
                            inc += pen.get(c * n + m if c < m else m * n + c, 0.0)
                    inc += SPREAD * max(0, self.rank[c] - top)
                    trial = list(owner)
                    if not _augment(len(wanted), [*wanted, masks[c]], trial, [0]):
                        inc += SEAT_CONFLICT
                    if best is None or inc < best_cost:
                        best, best_cost = j, inc
                assert best is not None
                taken[best] = True
                c = players[best]
                members.append(c)
                top = max(top, self.rank[c])
                wanted.append(masks[c])
                _augment(len(wanted) - 1, wanted, owner, [0])
            groups.append(members)
        return groups

    def improve(self, groups: list[list[int]], budget: int = 4) -> None:
        """Swap bots between flawed tables and nearby ones while the total cost drops."""
        costs = [self.cost(g) for g in groups]
        flaw = [c - SPREAD * self.spread(g) for g, c in zip(groups, costs, strict=True)]
        queue = deque(i for i, f in enumerate(flaw) if f > 0)
        queued = set(queue)
        steps = budget * len(groups) + 16
        while queue and steps > 0:
            steps -= 1
            ti = queue.popleft()
            queued.discard(ti)
            reach = len(groups) if flaw[ti] >= OLD_REPEAT_FLOOR else NEAR_TABLES
            move = self._best_swap(groups, costs, ti, reach)
            if move is None:
                continue
            tj, iu, iv, ci, cj = move
            groups[ti][iu], groups[tj][iv] = groups[tj][iv], groups[ti][iu]
            costs[ti], costs[tj] = ci, cj
            for x in (ti, tj):
                flaw[x] = costs[x] - SPREAD * self.spread(groups[x])
                if flaw[x] > 0 and x not in queued:
                    queue.append(x)
                    queued.add(x)

    def _best_swap(self, groups, costs, ti: int, reach: int):
        """The best improving swap with the nearest table that has one, or None."""
        t = groups[ti]
        for d in range(1, reach + 1):
            best = None
            best_gain = 1e-9
            for tj in (ti - d, ti + d):
                if not 0 <= tj < len(groups):
                    continue
                other = groups[tj]
                before = costs[ti] + costs[tj]
                for iu, u in enumerate(t):
                    for iv, v in enumerate(other):
                        new_t = [*t[:iu], v, *t[iu + 1 :]]
                        new_o = [*other[:iv], u, *other[iv + 1 :]]
                        ci, cj = self.cost(new_t), self.cost(new_o)
                        gain = before - ci - cj
                        if gain > best_gain:
                            best_gain, best = gain, (tj, iu, iv, ci, cj)
            if best is not None:
                return best
            if ti - d < 0 and ti + d >= len(groups):
                break
        return None

    def exact(self, start: list[list[int]]) -> tuple[list[list[int]], bool]:
        """Branch and bound over every grouping, seeded with ``start`` as the bound.

        Returns the best grouping and whether the search finished within its budget.
        """
        players = self.players
        nodes = 0
        best = [list(g) for g in start]
        best_cost = sum(self.cost(g) for g in start)
        left = {s: self.sizes.count(s) for s in set(self.sizes)}
        free = [True] * len(players)
        chosen: list[list[int]] = []

        def dfs(acc: float) -> None:
            nonlocal best, best_cost, nodes
            nodes += 1
            if nodes > EXACT_NODES:
                return
            head = next((i for i, f in enumerate(free) if f), None)
            if head is None:
                if acc < best_cost - 1e-9:
                    best_cost = acc
                    best = [list(g) for g in chosen]
                return
            free[head] = False
            rest = [i for i in range(head + 1, len(players)) if free[i]]
            for size in sorted((s for s, c in left.items() if c), reverse=True):
                left[size] -= 1
                for combo in combinations(rest, size - 1):
                    members = [players[head], *(players[i] for i in combo)]
                    c = acc + self.cost(members)
                    if c >= best_cost - 1e-9:
                        continue
                    for i in combo:
                        free[i] = False
                    chosen.append(members)
                    dfs(c)
                    chosen.pop()
                    for i in combo:
                        free[i] = True
                left[size] += 1
            free[head] = True

        dfs(0.0)
        best.sort(key=lambda g: min(self.rank[m] for m in g))
        return best, nodes <= EXACT_NODES


def _augment(i: int, wanted: list[int], owner: list[int], seen: list[int]) -> bool:
    """Kuhn's augmenting path from member ``i`` to a seat position (``seen``: bitmask box)."""
    mask = wanted[i] & ~seen[0]
    while mask:
        low = mask & -mask
        mask ^= low
        if seen[0] & low:
            continue
        seen[0] |= low
        p = low.bit_length() - 1
        if owner[p] < 0 or _augment(owner[p], wanted, owner, seen):
            owner[p] = i
            return True
    return False


def groupings(sizes: list[int]) -> int:
    """How many ways there are to split sum(sizes) bots into unlabelled tables of ``sizes``."""
    total = factorial(sum(sizes))
    for s in sizes:
        total //= factorial(s)
    for s in set(sizes):
        total //= factorial(sizes.count(s))
    return total
