"""The Python SDK takes a GameStart repeated on a new stream (after a reconnect the arena
announces every game in flight again) as the game it already knows."""

from __future__ import annotations

from arena.protocol import pb
from arena.sdk import Bot, GameInfo
from arena.sdk.client import Client


class Counting(Bot):
    def __init__(self) -> None:
        self.started: list[tuple[str, int]] = []

    def game_started(self, game: GameInfo) -> None:
        self.started.append((game.game_id, game.seat))

    def choose(self, req: object) -> int:
        return 0


def start(game_id: str, seat: int) -> pb.GameStart:
    return pb.GameStart(game_id=game_id, seat=seat, seats=2, ruleset=pb.Ruleset(variant="base"))


def test_a_repeated_game_start_is_not_a_new_game() -> None:
    bot = Counting()
    client = Client(bot, "unix:///nowhere", "token")
    client._start(start("g1", 0))
    client._start(start("g1", 1))  # a second seat in the same game is its own start
    client._start(start("g1", 0))  # the same game, announced again on a new stream
    client._start(start("g1", 1))
    assert bot.started == [("g1", 0), ("g1", 1)]
    assert client.games["g1"].game_id == "g1"
