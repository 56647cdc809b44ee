"""Seat orders: who starts, who sits second, ... balanced per bot over an event.

A bot's *seat counts* are how often it sat at each seat position (0 = starts the match).
The goal is that, for every bot, these counts differ by at most one between positions.

* :func:`seat_table` orders one table given the counts so far: a minimum-cost assignment
  of members to positions (Hungarian method), where putting a bot at a position costs the
  growth of that bot's sum of squared counts, doubled for seat 0 (the start matters most).
  Used round by round (Swiss) and as the first pass of offline balancing.
* :func:`balance_event` seats a whole pre-computed event: the greedy pass above, then a
  repair pass. For two positions a < b, every table having both is an edge between the
  bot at a and the bot at b; while some bot has ``count[a] - count[b] >= 2`` we look for a
  chain of such tables leading to a bot with a deficit and swap a/b along the chain
  (only the chain's ends change). When every table of the event has the same size this
  always ends with every bot balanced within one (the chain always exists, as in de
  Werra's equitable edge-colouring argument); with mixed table sizes it is best effort,
  because a table of s seats has no positions s..K-1.
"""

from __future__ import annotations

from collections import deque

SEAT0_WEIGHT = 2


def hungarian(cost: list[list[int]]) -> list[int]:
    """Minimum-cost perfect assignment for a square matrix: the column of every row."""
    n = len(cost)
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (n + 1)
    owner = [0] * (n + 1)  # owner[j] = row (1-based) assigned to column j
    way = [0] * (n + 1)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = [inf] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            row = cost[i0 - 1]
            ui = u[i0]
            delta = inf
            j1 = 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = row[j - 1] - ui - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(n + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    result = [0] * n
    for j in range(1, n + 1):
        result[owner[j] - 1] = j - 1
    return result


def seat_cost(counts: list[int], pos: int) -> int:
    """Growth of a bot's (seat-0-weighted) sum of squared seat counts if it sits at ``pos``."""
    c = 2 * counts[pos] + 1
    return c * SEAT0_WEIGHT if pos == 0 else c


def seat_table(members: list[int], counts: list[list[int]]) -> list[int]:
    """``members`` reordered into seats, balancing ``counts`` (bot -> count per position)."""
    s = len(members)
    if s == 2:
        a, b = members
        keep = seat_cost(counts[a], 0) + seat_cost(counts[b], 1)
        swap = seat_cost(counts[b], 0) + seat_cost(counts[a], 1)
        return [b, a] if swap < keep else [a, b]
    cost = [[seat_cost(counts[m], p) for p in range(s)] for m in members]
    seats = [0] * s
    for i, p in enumerate(hungarian(cost)):
        seats[p] = members[i]
    return seats


def record(counts: list[list[int]], seats: list[int]) -> None:
    for p, bot in enumerate(seats):
        counts[bot][p] += 1


def balance_event(
    rounds: list[list[list[int]]], n_bots: int, k: int, *, greedy: bool = True
) -> list[list[list[int]]]:
    """Seat orders for a whole event (rounds of tables of bot indices), balanced per bot.

    ``greedy=False`` keeps the given orders as the starting point and only repairs.
    Returns new lists; the input is not changed.
    """
    counts = [[0] * k for _ in range(n_bots)]
    out: list[list[list[int]]] = []
    for tables in rounds:
        seated = []
        for members in tables:
            seats = seat_table(list(members), counts) if greedy else list(members)
            record(counts, seats)
            seated.append(seats)
        out.append(seated)
    repair([t for tables in out for t in tables], counts, n_bots, k)
    return out


def repair(tables: list[list[int]], counts: list[list[int]], n_bots: int, k: int) -> int:
    """Swap seats along chains of tables until no bot can be balanced further.

    ``tables`` (lists, changed in place) and ``counts`` must agree. Returns the number of
    chain swaps made. Terminates: every swap lowers the sum of squared counts.
    """
    bot_tables: list[list[int]] = [[] for _ in range(n_bots)]
    for t, seats in enumerate(tables):
        for bot in seats:
            bot_tables[bot].append(t)
    swaps = 0
    changed = True
    while changed:
        changed = False
        for a in range(k - 1):
            for b in range(a + 1, k):
                for bot in range(n_bots):
                    row = counts[bot]
                    while row[a] - row[b] >= 2 and _swap_chain(
                        tables, counts, bot_tables, bot, a, b
                    ):
                        swaps += 1
                        changed = True
                    while row[b] - row[a] >= 2 and _swap_chain(
                        tables, counts, bot_tables, bot, b, a
                    ):
                        swaps += 1
                        changed = True
    return swaps


def _swap_chain(
    tables: list[list[int]],
    counts: list[list[int]],
    bot_tables: list[list[int]],
    start: int,
    a: int,
    b: int,
) -> bool:
    """Move one of ``start``'s a-seats to b along a chain ending at a bot short of a-seats."""
    top = max(a, b)
    excess = counts[start][a] - counts[start][b]
    parent: dict[int, tuple[int, int]] = {start: (-1, -1)}
    queue = deque([start])
    while queue:
        bot = queue.popleft()
        for t in bot_tables[bot]:
            seats = tables[t]
            if len(seats) <= top or seats[a] != bot:
                continue
            nxt = seats[b]
            if nxt in parent:
                continue
            parent[nxt] = (bot, t)
            row = counts[nxt]
            if row[a] - row[b] <= excess - 3:
                node = nxt
                while node != start:
                    prev, tt = parent[node]
                    seats = tables[tt]
                    seats[a], seats[b] = seats[b], seats[a]
                    counts[prev][a] -= 1
                    counts[prev][b] += 1
                    counts[node][b] -= 1
                    counts[node][a] += 1
                    node = prev
                return True
            queue.append(nxt)
    return False


def seat_counts_of(tables: list[list[int]], n_bots: int, k: int) -> list[list[int]]:
    counts = [[0] * k for _ in range(n_bots)]
    for seats in tables:
        record(counts, seats)
    return counts
