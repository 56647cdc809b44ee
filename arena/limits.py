"""The arena's input bounds and defaults, in one place.

The CLI (which states them in ``--help``), the tournament and the match runner's fault
policy read these numbers, so an event is refused before anything is stored or started.

Times travel to bots as uint32 milliseconds (``deadline_ms``, ``time_bank_ms``, at most
about 49.7 days); the bounds below keep every value, and their sum, well inside that.
Counts are bounded so that a typo (``--games 10000000000``) is an error, not an event that
runs for a year.
"""

from __future__ import annotations

import math

from arena.errors import UsageProblem
from engine.game import MAX_SEATS

# seats at one table: arena match may seat a single bot; an event needs opponents
MIN_MATCH_SEATS = 1
MIN_EVENT_SEATS = 2
MAX_TABLE_SEATS = MAX_SEATS  # the engine's own limit (18)

# event formats (arena.schedule)
FORMATS = ("swiss", "round-robin", "gauntlet")
LADDER_FORMAT = "ladder"  # the format of the tournament row that holds a ladder's games

# defaults of the fault policy (arena.faults.FaultPolicy) and of every command's options
DEFAULT_DEADLINE = 1.0  # seconds per decision
DEFAULT_TIME_BANK = 10.0  # seconds per seat and game, spent past deadlines
DEFAULT_MAX_STRIKES = 3  # faults before a seat forfeits its game
DEFAULT_START_TIMEOUT = 20.0  # seconds for a started bot (or a remote one) to connect
DEFAULT_RECONNECT_GRACE = 3.0  # seconds a dropped stream may take to come back

# seconds
MIN_DEADLINE = 0.01  # per decision
MAX_DEADLINE = 3600.0  # one hour per decision
MAX_TIME_BANK = 86400.0  # one day per seat and game
MIN_START_TIMEOUT = 0.5  # for a bot to start and say hello
MAX_START_TIMEOUT = 3600.0
UINT32_MS = 2**32 - 1  # what deadline_ms / time_bank_ms can carry

# counts
MAX_STRIKES = 1000
MAX_MATCH_GAMES = 100_000  # games of one table (arena match --games, tournament --games)
MAX_ROUNDS = 1000  # rounds of an event
MAX_EVENT_GAMES = 1_000_000  # games of a whole event, all rounds and tables
MAX_WORKERS = 256  # worker processes of one run
MAX_CONCURRENCY = 10_000  # games one event plays at once (each holds a stream per seat)
MAX_SIMULATE_GAMES = MAX_EVENT_GAMES  # games of one arena simulate run (in this process)
PREFLIGHT_STARTS = 8  # bots an event's pre-flight starts at once (remote bots not counted)

# how often an event names the strongest bot its winner (arena.winner_odds; the numbers
# are stated in the help of arena tournament, arena/cli/events.py)
SURE_WINNER = 0.95  # an event that names it less often than this is short: say so
WINNER_ODDS_RUNS = 200  # simulated runs of the event (standard error at most 3.5 %)
WINNER_ODDS_GAMES = 40_000  # simulated games per length at most: fewer runs if needed
WINNER_ODDS_MIN_RUNS = 20  # an event too long for this many runs is not short

# A/B tests (arena test): games of one test, its default cap, games played at once
MAX_TEST_GAMES = MAX_EVENT_GAMES
DEFAULT_TEST_MAX_GAMES = 100_000
DEFAULT_TEST_CONCURRENCY = 16

# the Ray executor (arena/executor/ray.py)
RAY_TASK_RETRIES = 3  # a match whose worker or node died is run again up to this many times
RAY_MATCH_CPUS = 1.0  # CPUs a match's task asks of its node
RAY_CONNECT_TIMEOUT = 5.0  # seconds for the cluster's head to answer on TCP
RAY_PROGRESS_INTERVAL = 0.25  # seconds between reads of the games played on the nodes

assert (MAX_DEADLINE + MAX_TIME_BANK) * 1000 < UINT32_MS


def _num(value: float) -> str:
    return f"{value:g}"


def check_seconds(value: float, option: str, low: float, high: float) -> float:
    """``value`` as seconds, finite and within [low, high]; a usage error otherwise."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise UsageProblem(f"give a number of seconds, got {value!r}", param=option)
    if not math.isfinite(value) or not low <= value <= high:
        raise UsageProblem(
            f"must be between {_num(low)} and {_num(high)} seconds, got {_num(value)}",
            param=option,
        )
    return float(value)


def check_deadline(value: float, option: str = "--deadline") -> float:
    return check_seconds(value, option, MIN_DEADLINE, MAX_DEADLINE)


def check_time_bank(value: float, option: str = "--time-bank") -> float:
    return check_seconds(value, option, 0.0, MAX_TIME_BANK)


def check_start_timeout(value: float, option: str = "--start-timeout") -> float:
    return check_seconds(value, option, MIN_START_TIMEOUT, MAX_START_TIMEOUT)


def check_table_seats(
    seats: int,
    low: int = MIN_MATCH_SEATS,
    option: str | None = None,
    exc: type[Exception] = UsageProblem,
) -> int:
    """Seats at one table, within [low, MAX_TABLE_SEATS]."""
    if not low <= seats <= MAX_TABLE_SEATS:
        message = f"a table has {low} to {MAX_TABLE_SEATS} seats, got {seats}"
        raise UsageProblem(message, param=option) if exc is UsageProblem else exc(message)
    return seats


def check_count(value: int, option: str, low: int, high: int) -> int:
    """A whole number within [low, high]; a usage error otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageProblem(f"give a whole number, got {value!r}", param=option)
    if not low <= value <= high:
        raise UsageProblem(f"must be between {low:,} and {high:,}, got {value:,}", param=option)
    return value


def check_games(value: int, option: str = "--games") -> int:
    return check_count(value, option, 1, MAX_MATCH_GAMES)


def check_concurrency(value: int, option: str = "--concurrency") -> int:
    return check_count(value, option, 1, MAX_CONCURRENCY)


def check_duplicate_games(
    games: int, seats: int, of: str = "--seats", option: str = "--games"
) -> int:
    """Duplicate deals come in whole sets, one game per rotation of ``seats`` seats."""
    if games % seats:
        raise UsageProblem(
            f"duplicate deals come in sets of one game per seat rotation: give a multiple "
            f"of {of} ({seats}), got {games}",
            param=option,
        )
    return games


def check_rounds(value: int | None, option: str = "--rounds") -> int | None:
    return None if value is None else check_count(value, option, 1, MAX_ROUNDS)


def check_strikes(value: int, option: str = "--max-strikes") -> int:
    return check_count(value, option, 1, MAX_STRIKES)


def event_games(entries: int, seats: int, rounds: int, games: int) -> int:
    """About how many games an event plays: rounds × tables per round × games per table
    (tables per round as the schedulers split the field: ⌈entries / seats⌉)."""
    tables = max(1, -(-entries // max(1, seats)))
    return rounds * tables * games


def check_event_games(
    entries: int,
    seats: int,
    rounds: int,
    games: int,
    options: tuple[str, str] = ("--rounds", "--games"),
) -> int:
    """The games of a whole event within MAX_EVENT_GAMES (``options``: how the caller
    names the rounds and the games per table)."""
    total = event_games(entries, seats, rounds, games)
    if total > MAX_EVENT_GAMES:
        raise UsageProblem(
            f"this event would play about {total:,} games ({rounds:,} rounds of "
            f"{games:,} games per table); the limit is {MAX_EVENT_GAMES:,} games per event: "
            f"give fewer {options[0]} or {options[1]}"
        )
    return total


# ladders (arena.ladder)
LADDER_PROVISIONAL_GAMES = 10  # a bot is provisional for at least its first games...
LADDER_PROVISIONAL_HALF_WIDTH = 100.0  # ...and while its 95 % interval is wider than ±this Elo
LADDER_CRASH_WINDOW = 10  # a bot is suspended after LADDER_CRASH_LIMIT crashes in its
LADDER_CRASH_LIMIT = 3  # last LADDER_CRASH_WINDOW games
LADDER_REFIT_MIN_GAMES = 16  # the full fit runs again after this many new games, or
LADDER_REFIT_FRACTION = 0.05  # this fraction of all games, whichever is more
LADDER_REFIT_SECONDS = 60.0  # ...and at least this often while games are stored
LADDER_TABLES_PER_ROUND = 100  # a ladder's tables are stored in rounds of this many
MAX_LADDER_GAMES = 10_000_000  # --max-games of one run

# the competition server (arena serve): uploads, their archives, the live pages
MAX_UPLOAD_BYTES = 10 << 20  # an uploaded archive, as sent
MAX_SINGLE_FILE_BYTES = 1 << 20  # an uploaded .py file: a bot's source, not a data file
# (parsing one costs the checker ~400 times its size in memory: see below)
SYNTAX_CHECK_MEMORY = 768 << 20  # address space of the child process that parses a .py
SYNTAX_CHECK_SECONDS = 10.0  # its CPU and wall-clock time
MAX_UNPACKED_BYTES = 50 << 20  # what an archive may unpack to, all files together
MAX_ARCHIVE_MEMBERS = 5000  # files and folders in one archive (see below)
# Members are cheap: a tar header (512 bytes, counted against the unpacked cap as the
# gzip stream is read) and a file in a temporary folder removed after the build; the
# byte caps bound the rest. The Node kit's production dependencies alone (@grpc/grpc-js,
# protobufjs) are ~1,200 files, so 1,000 refused the smallest real Node bot.
MAX_COMPRESSION_RATIO = 200  # unpacked / packed size: above it the archive is a bomb
UPLOADS_PER_HOUR = 10  # uploads one participant may start within an hour
REFUSED_UPLOADS_PER_HOUR = 30  # uploads of one participant refused (400) within an hour:
# beyond, an upload is answered 429 before it is checked (checking costs the server work)
UPLOAD_BUILD_TIMEOUT = 300.0  # seconds for the build of one upload
LIVE_POLL = 0.5  # seconds between the live pages' looks at the database
LIVE_KEEPALIVE = 15.0  # seconds between comments on an idle event stream
