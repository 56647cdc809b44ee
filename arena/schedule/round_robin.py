"""Round robin: everyone meets everyone (or, for big fields, everyone meets evenly).

Modes, chosen from the field size N and the seats K:

* ``double`` (K = 2): circle method, each pair twice with the seats swapped in the second
  leg: 2(N-1) rounds for even N, 2N for odd N (one bye per round), the minimum with every
  bot at most once per round. Each ordered pair occurs exactly once.
* ``single`` (K > 2, N <= K): one table of all N bots per round; default 1 round.
* ``subsets`` (K > 2, C(N, K) <= 2,000 tables): every K-subset of the field is one table,
  exactly once. Rounds are packed one by one by a bounded depth-first search that first
  seats the bots that must play every remaining round for the schedule to end at its lower
  bound max(C(N-1, K-1), ceil(C(N, K) / floor(N / K))), then fills as many tables as it
  can; the best of a few seeded tries is kept (within about 1% of the bound in practice).
  Bots left over in a round sit out (``byes``, stated in the note).
* ``even`` (K > 2, more subsets than that): rounds of ``ceil(N/K)`` tables whose sizes
  differ by at most one (or full tables and byes with ``prefer_byes``). Each round is
  built greedily, seating together the pairs that have met least (a pair costs
  3**meetings), improved by swapping bots between tables, and retried from other seeded
  orders while a pair would meet more often than needed. The smaller tables and the byes
  rotate (fewest so far first). Default rounds: until every pair has met at least once
  (best of a few seeded tries: smallest maximum meeting count, then fewest rounds).
  Measured: pair-meeting spread (max - min) 1 for K = 3, at most 2 for K = 4 and 5,
  more for K >= 6 in small fields; 1.2-1.8 times the lower bound ceil((N-1)/(K-1)) rounds.

``rounds`` overrides the default. ``double``/``subsets``/``single``: the same tables as
the first rounds of the full schedule, or the full schedule repeated ("pass 2" ...).
``even``: that many rounds are built. Seat orders are balanced over the actual event (see
:mod:`arena.schedule.seating`): within one for every bot and position when all tables
have K seats, over the positions every table has otherwise.
Plans ignore ``standings`` and ``history``: the schedule is fixed by the bots and seed.
"""

from __future__ import annotations

from collections import deque
from functools import cached_property
from itertools import combinations
from math import comb

from arena.schedule.base import BaseScheduler
from arena.schedule.common import (
    copy_plan,
    join_notes,
    rng_for,
    sizes_note,
    split_sizes,
)
from arena.schedule.seating import balance_event
from arena.schedule.types import RoundPlan, Standing

SUBSET_LIMIT = 2000
PACK_ATTEMPTS = 6
PACK_SCAN = 64
PACK_BRANCH = 8
PACK_NODES = 3000
EVEN_BASE = 3
EVEN_RETRIES = 4  # fresh greedy starts for a round that keeps a flaw
EVEN_WORK = 20_000  # default-length even schedules: tries while attempts * n * n stays below


class RoundRobinScheduler(BaseScheduler):
    format = "round-robin"

    _plans: list[RoundPlan] | None = None

    @cached_property
    def mode(self) -> str:
        """How the schedule is built: double, single, subsets or even (see above)."""
        n, k = len(self.bots), self.seats
        if k == 2:
            return "double"
        if n <= k:
            return "single"
        if comb(n, k) <= SUBSET_LIMIT:
            return "subsets"
        return "even"

    def total_rounds(self) -> int:
        return len(self._build())

    def _plan(self, index: int, standings: list[Standing], history: list[RoundPlan]) -> RoundPlan:
        return copy_plan(self._build()[index])

    # -- construction ------------------------------------------------------------------

    def _build(self) -> list[RoundPlan]:
        if self._plans is None:
            builder = {
                "single": self._single,
                "double": self._double,
                "subsets": self._subsets,
                "even": self._even,
            }[self.mode]
            rounds, byes, notes = builder()
            self._plans = [
                self.named_plan(tables, bye, note)
                for tables, bye, note in zip(rounds, byes, notes, strict=True)
            ]
        return self._plans

    def _repeat(self, base: list[list[list[int]]], base_byes: list[list[int]], what: str):
        """The base schedule cut or repeated to the requested number of rounds."""
        total = self.requested_rounds or len(base)
        rounds = [[list(t) for t in base[r % len(base)]] for r in range(total)]
        byes = [list(base_byes[r % len(base)]) for r in range(total)]
        notes = []
        for r in range(total):
            note = f"{what}, round {r % len(base) + 1} of {len(base)}"
            if total > len(base):
                note += f" (pass {r // len(base) + 1})"
            elif total < len(base):
                note += f" (cut to {total} rounds)"
            notes.append(note)
        return rounds, byes, notes

    def _single(self):
        n, k = len(self.bots), self.seats
        rounds, byes, notes = self._repeat(
            [[list(range(n))]], [[]], "one table for the whole field"
        )
        rounds = balance_event(rounds, n, k)
        small = sizes_note(n, k, [n], 0)
        return rounds, byes, [join_notes(x, small) for x in notes]

    def _double(self):
        n = len(self.bots)
        rng = rng_for(self.seed, "round-robin", "circle")
        first, first_byes = circle_rounds(n, rng)
        first = balance_event(first, n, 2)
        second = [[[b, a] for a, b in tables] for tables in first]
        base = first + second
        base_byes = first_byes + first_byes
        rounds, byes, notes = self._repeat(base, base_byes, "double round robin")
        if len(rounds) % len(base):
            rounds = balance_event(rounds, n, 2, greedy=False)
        half = len(first)
        notes = [
            join_notes(
                note + (" (first leg)" if r % len(base) < half else " (second leg, seats swapped)"),
                sizes_note(n, 2, [2] * (n // 2), n % 2),
            )
            for r, note in enumerate(notes)
        ]
        return rounds, byes, notes

    def _subsets(self):
        n, k = len(self.bots), self.seats
        base = pack_subsets(n, k, self.seed)
        base_byes = []
        for tables in base:
            seated = {b for t in tables for b in t}
            base_byes.append([b for b in range(n) if b not in seated])
        total_tables = comb(n, k)
        what = f"every {k}-subset of {n} bots once ({total_tables} tables in {len(base)} rounds)"
        rounds, byes, notes = self._repeat([[list(t) for t in r] for r in base], base_byes, what)
        rounds = balance_event(rounds, n, k)
        for r, bye in enumerate(byes):
            if bye:
                who = "1 bot sits" if len(bye) == 1 else f"{len(bye)} bots sit"
                why = (
                    f"{who} out because every table is a full {k}-subset "
                    f"and no further disjoint subset is left for this round"
                )
                notes[r] = join_notes(notes[r], why)
        return rounds, byes, notes

    def _even(self):
        n, k = len(self.bots), self.seats
        rounds, byes = even_rounds(n, k, self.requested_rounds, self.seed, self.prefer_byes)
        rounds = balance_event(rounds, n, k)
        sizes, nbyes = split_sizes(n, k, self.prefer_byes)
        small = sizes_note(n, k, sizes, nbyes)
        notes = [
            join_notes(f"even pair meetings, round {r + 1} of {len(rounds)}", small)
            for r in range(len(rounds))
        ]
        return rounds, byes, notes


def circle_rounds(n: int, rng) -> tuple[list[list[list[int]]], list[list[int]]]:
    """Single round robin of bots 0..n-1 by the circle method: (rounds of pairs, byes)."""
    players: list[int | None] = list(range(n))
    rng.shuffle(players)
    if n % 2:
        players.append(None)
    m = len(players)
    fixed, ring = players[-1], players[:-1]
    rounds: list[list[list[int]]] = []
    byes: list[list[int]] = []
    for r in range(m - 1):
        arr = ring[r:] + ring[:r]
        pairs = [(fixed, arr[0])] + [(arr[i], arr[m - 1 - i]) for i in range(1, m // 2)]
        tables: list[list[int]] = []
        bye: list[int] = []
        for a, b in pairs:
            if a is None or b is None:
                bye.extend(x for x in (a, b) if x is not None)  # the one facing the gap
            else:
                tables.append([a, b])
        rounds.append(tables)
        byes.append(bye)
    return rounds, byes


def subset_round_bound(n: int, k: int) -> int:
    """No packing of all k-subsets of n bots into rounds can use fewer rounds than this."""
    return max(comb(n - 1, k - 1), -(-comb(n, k) // (n // k)))


def pack_subsets(n: int, k: int, seed: int) -> list[list[tuple[int, ...]]]:
    """Every k-subset of range(n), packed into rounds of disjoint subsets (few rounds)."""
    best: list[list[tuple[int, ...]]] | None = None
    bound = subset_round_bound(n, k)
    attempts = PACK_ATTEMPTS if comb(n, k) <= 500 else PACK_ATTEMPTS // 3
    for attempt in range(attempts):
        rounds = _pack_once(n, k, rng_for(seed, "round-robin", "pack", attempt))
        if best is None or len(rounds) < len(best):
            best = rounds
        if len(best) <= bound:
            break
    assert best is not None
    return best


def _pack_once(n: int, k: int, rng) -> list[list[tuple[int, ...]]]:
    subsets = list(combinations(range(n), k))
    rng.shuffle(subsets)
    alive = set(subsets)
    by_bot: list[dict[tuple[int, ...], None]] = [{} for _ in range(n)]
    for s in subsets:
        for b in s:
            by_bot[b][s] = None
    left = [len(d) for d in by_bot]
    rounds: list[list[tuple[int, ...]]] = []
    while alive:
        tables = _pack_round(n, k, alive, by_bot, left, rng)
        for s in tables:
            alive.discard(s)
            for x in s:
                left[x] -= 1
                del by_bot[x][s]
        rounds.append(tables)
    return rounds


def _pack_round(n, k, alive, by_bot, left, rng) -> list[tuple[int, ...]]:
    """Disjoint alive subsets for one round, found by a bounded depth-first search.

    Bots that must play every remaining round for the schedule to end at its lower
    bound (``critical``) are covered first; then as many tables as possible; then the
    subsets of the busiest bots. The search stops at the first perfect round.
    """
    per_round = n // k
    need = max(max(left), -(-len(alive) // per_round))
    critical = [x >= need for x in left]
    n_critical = sum(critical)
    tiebreak = list(range(n))
    rng.shuffle(tiebreak)
    order = sorted((b for b in range(n) if left[b]), key=lambda b: (-left[b], tiebreak[b]))
    free = [True] * n
    chosen: list[tuple[int, ...]] = []
    state = {"nodes": 0, "free": n, "best": [], "key": (-1, -1, -1), "done": False}

    def options(bot: int) -> list[tuple[int, ...]]:
        others = [x for x in range(n) if free[x] and x != bot]
        found: list[tuple[int, ...]] = []
        if comb(len(others), k - 1) <= len(by_bot[bot]):
            for combo in combinations(others, k - 1):
                s = tuple(sorted((bot, *combo)))
                if s in alive:
                    found.append(s)
        else:
            for s in by_bot[bot]:
                if all(free[x] for x in s):
                    found.append(s)
                    if len(found) >= PACK_SCAN:
                        break
        found.sort(key=lambda s: -sum(left[x] * left[x] for x in s))
        return found[:PACK_BRANCH]

    def dfs(i: int, covered: int) -> None:
        state["nodes"] += 1
        while i < len(order) and not free[order[i]]:
            i += 1
        if i == len(order) or state["free"] < k or state["nodes"] > PACK_NODES:
            key = (covered, len(chosen), sum(left[x] for s in chosen for x in s))
            if key > state["key"]:
                state["key"] = key
                state["best"] = list(chosen)
            if covered == n_critical and len(chosen) == per_round:
                state["done"] = True
            return
        bot = order[i]
        for s in options(bot):
            for x in s:
                free[x] = False
            state["free"] -= k
            chosen.append(s)
            dfs(i + 1, covered + sum(critical[x] for x in s))
            chosen.pop()
            state["free"] += k
            for x in s:
                free[x] = True
            if state["done"] or state["nodes"] > PACK_NODES:
                return
        free[bot] = False
        state["free"] -= 1
        dfs(i + 1, covered)
        state["free"] += 1
        free[bot] = True

    dfs(0, 0)
    return state["best"]


def even_rounds(
    n: int, k: int, target: int | None, seed: int, prefer_byes: bool
) -> tuple[list[list[list[int]]], list[list[int]]]:
    """Rounds where pairs meet as evenly as possible; ``target=None``: until all pairs met.

    With ``target=None`` a few seeded tries are made (fewer for big fields) and the one
    whose most-met pair met least, then needing the fewest rounds, is kept.
    """
    if target is not None:
        return _even_try(n, k, target, seed, 0, prefer_byes)
    best = None
    best_key = None
    for attempt in range(max(1, min(4, EVEN_WORK // (n * n)))):
        rounds, byes = _even_try(n, k, None, seed, attempt, prefer_byes)
        meet: dict[tuple[int, int], int] = {}
        for tables in rounds:
            for t in tables:
                for i, a in enumerate(t):
                    for b in t[i + 1 :]:
                        key = (a, b) if a < b else (b, a)
                        meet[key] = meet.get(key, 0) + 1
        score = (max(meet.values()), len(rounds))
        if best_key is None or score < best_key:
            best, best_key = (rounds, byes), score
    assert best is not None
    return best


def _even_try(
    n: int, k: int, target: int | None, seed: int, attempt: int, prefer_byes: bool
) -> tuple[list[list[list[int]]], list[list[int]]]:
    sizes, n_byes = split_sizes(n, k, prefer_byes)
    big_sizes = [s for s in sizes if s == sizes[0]]
    small_sizes = sizes[len(big_sizes) :]
    n_small = sum(small_sizes)
    per_round = sum(s * (s - 1) // 2 for s in sizes)
    meet = [[0] * n for _ in range(n)]
    hist = [n * (n - 1) // 2]  # hist[c]: pairs that have met c times
    low = [n - 1] * n  # low[b]: partners b has met the fewest (= level) times
    weight = [EVEN_BASE**c for c in range(4)]
    cost = [[0 if a == b else 1 for b in range(n)] for a in range(n)]  # weight[meet]
    bye_count = [0] * n
    small_count = [0] * n
    bound = -(-(n - 1) // (k - 1))
    cap = target if target is not None else 4 * bound + 16
    rounds: list[list[list[int]]] = []
    byes: list[list[int]] = []
    while len(rounds) < cap and (target is not None or hist[0]):
        level = next(c for c, h in enumerate(hist) if h)
        rng = rng_for(seed, "round-robin", "even", attempt, len(rounds))
        key = list(range(n))
        rng.shuffle(key)
        bye = sorted(range(n), key=lambda b: (bye_count[b], -low[b], key[b]))[:n_byes]
        out = set(bye)
        # while enough pairs sit at the lowest level to fill a round, any pair above it is
        # a flaw worth fixing; later every table must hold such pairs, so only two above
        fresh = hist[level] >= per_round
        limit = level + 1 if fresh else level + 2
        tables: list[list[int]] = []
        best_cost = None
        for retry in range(EVEN_RETRIES if fresh else 1):
            if retry:
                rng.shuffle(key)
            playing = [b for b in range(n) if b not in out]
            if fresh:
                playing.sort(key=lambda b: key[b])
            else:  # few fresh pairs left: bots that still need them lead the tables
                playing.sort(key=lambda b: (-low[b], key[b]))
            # while fresh pairs abound, the smaller tables go to the bots that have sat at
            # them least; later the pairs still missing decide
            if fresh:
                small = set(sorted(playing, key=lambda b: (small_count[b], key[b]))[:n_small])
            else:
                small = set()
            trial = []
            flaws = 0
            groups = (
                [
                    ([b for b in playing if b not in small], big_sizes),
                    ([b for b in playing if b in small], small_sizes),
                ]
                if small
                else [(playing, sizes)]
            )
            for group, group_sizes in groups:
                if group_sizes:
                    part = _greedy_even_round(group, group_sizes, cost)
                    flaws += _improve_even_round(part, meet, cost, limit)
                    trial.extend(part)
            if not small and small_sizes:
                _share_small_tables(trial, sizes[0], small_count, cost)
            score = (flaws, _round_cost(trial, cost))
            if best_cost is None or score < best_cost:
                tables, best_cost = trial, score
            if not flaws:
                break
        for t in tables:
            for i, a in enumerate(t):
                for b in t[i + 1 :]:
                    c = meet[a][b]
                    hist[c] -= 1
                    if c + 1 == len(hist):
                        hist.append(0)
                    hist[c + 1] += 1
                    meet[a][b] = meet[b][a] = c + 1
                    while len(weight) <= c + 1:
                        weight.append(weight[-1] * EVEN_BASE)
                    cost[a][b] = cost[b][a] = weight[c + 1]
            if len(t) < sizes[0]:
                for b in t:
                    small_count[b] += 1
        new_level = next(c for c, h in enumerate(hist) if h)
        for b in range(n):
            row = meet[b]
            low[b] = sum(1 for c in range(n) if c != b and row[c] == new_level)
        for b in bye:
            bye_count[b] += 1
        rounds.append(tables)
        byes.append(sorted(bye))
    return rounds, byes


def _greedy_even_round(active, sizes, cost) -> list[list[int]]:
    """Tables filled one by one: the first bot in ``active`` leads, then whoever adds least."""
    tables: list[list[int]] = []
    remaining = dict.fromkeys(active)
    for size in sizes:
        anchor = next(iter(remaining))
        del remaining[anchor]
        members = [anchor]
        row = cost[anchor]
        acc = {c: row[c] for c in remaining}
        for _ in range(size - 1):
            pick = min(acc, key=acc.__getitem__)
            del acc[pick]
            del remaining[pick]
            members.append(pick)
            row = cost[pick]
            for c in acc:
                acc[c] += row[c]
        tables.append(members)
    return tables


def _improve_even_round(tables, meet, cost, limit: int, budget: int = 3) -> int:
    """Swap bots between tables while that lowers the total pair cost.

    ``cost[a][b]`` is the pair's weight (0 on the diagonal). Only tables holding a pair
    that has met ``limit`` times or more are worked on. Returns how many such pairs remain.
    """

    def flawed(t: list[int]) -> bool:
        return any(meet[a][b] >= limit for i, a in enumerate(t) for b in t[i + 1 :])

    def own(t: list[int]) -> list[int]:
        return [sum(row[x] for x in t) for row in (cost[u] for u in t)]

    owns = [own(t) for t in tables]
    queue = deque(i for i, t in enumerate(tables) if flawed(t))
    queued = set(queue)
    steps = budget * len(tables)
    while queue and steps > 0:
        steps -= 1
        ti = queue.popleft()
        queued.discard(ti)
        t = tables[ti]
        rows_t = [cost[u] for u in t]
        own_t = owns[ti]
        best = 0
        move = None
        for step in range(1, len(tables)):
            tj = (ti + step) % len(tables)
            other = tables[tj]
            rows_o = [cost[v] for v in other]
            own_o = owns[tj]
            v_in_t = [sum(r[x] for x in t) for r in rows_o]
            u_in_o = [sum(r[y] for y in other) for r in rows_t]
            for iu, row_u in enumerate(rows_t):
                base = u_in_o[iu] - own_t[iu]
                for iv, v in enumerate(other):
                    delta = base + v_in_t[iv] - own_o[iv] - 2 * row_u[v]
                    if delta < best:
                        best, move = delta, (tj, iu, iv)
            if move is not None:
                break
        if move is None:
            continue
        tj, iu, iv = move
        t[iu], tables[tj][iv] = tables[tj][iv], t[iu]
        for x in (ti, tj):
            owns[x] = own(tables[x])
            if x not in queued and flawed(tables[x]):
                queue.append(x)
                queued.add(x)
    return sum(
        1 for t in tables for i, a in enumerate(t) for b in t[i + 1 :] if meet[a][b] >= limit
    )


def _share_small_tables(tables, full: int, small_count, cost) -> None:
    """Move bots that sat at smaller tables twice more than others into a full table.

    Each such bot swaps with the full-table bot of fewest small tables whose swap adds the
    least pair cost.
    """
    floor = min(small_count[b] for t in tables for b in t)
    for ts in tables:
        if len(ts) == full:
            continue
        for iu in range(len(ts)):
            u = ts[iu]
            if small_count[u] < floor + 2:
                continue
            best = None
            for tb in tables:
                if len(tb) != full:
                    continue
                for iv, v in enumerate(tb):
                    if small_count[v] > floor:
                        continue
                    delta = sum(cost[v][x] - cost[u][x] for x in ts if x != u)
                    delta += sum(cost[u][y] - cost[v][y] for y in tb if y != v)
                    if best is None or delta < best[0]:
                        best = (delta, tb, iv)
            if best is not None:
                _, tb, iv = best
                ts[iu], tb[iv] = tb[iv], ts[iu]


def _round_cost(tables, cost) -> int:
    return sum(cost[a][b] for t in tables for i, a in enumerate(t) for b in t[i + 1 :])
