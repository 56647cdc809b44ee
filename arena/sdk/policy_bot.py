"""A bot that plays one of the engine's built-in policies over the network."""

from __future__ import annotations

from arena.sdk.client import Bot, GameInfo, Request
from engine.policies import make_policy, parse_policy


class PolicyBot(Bot):
    """Plays ``random``, ``threshold:N`` or ``ev`` exactly as in-process play would: the
    policy sees the public game rebuilt from the observation, and a random policy is seeded
    from the game's bot_seed."""

    def __init__(self, spec: str) -> None:
        self.spec = parse_policy(spec)
        self.name = self.spec
        self.version = f"policy {self.spec}"

    def game_started(self, game: GameInfo) -> None:
        game.state["policy"] = make_policy(self.spec, game.bot_seed)

    def choose(self, req: Request) -> int:
        policy = req.game.state.get("policy") if req.game is not None else None
        if policy is None:
            policy = make_policy(self.spec, req.request_id)
        return policy(req.view, req.decision)
