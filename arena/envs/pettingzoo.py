"""Flip 7 as a PettingZoo AEC environment (both variants, Brutal mode, 1–18 seats).

    from arena.envs.pettingzoo import env
    e = env(variant="vengeance", brutal=True, seats=3)
    e.reset(seed=42)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else policy(obs["observation"], obs["action_mask"])
        e.step(action)

Agents are ``player_0`` … ``player_{n-1}``, one per seat; ``agent_selection`` is the seat
whose decision is pending (the engine deals, draws and resolves everything else). An
agent's observation is a dict: ``observation``, its public view encoded by
:class:`arena.envs.encoding.Encoding` (built from :func:`engine.observe` only: nothing
hidden leaks, not the draw order, not another seat's pending decision), and
``action_mask`` (``int8``, 1 for each legal action). Action ``i`` picks option ``i`` of the
pending decision; ``infos[agent]`` names the decision (``kind``, ``card``, ``options``)
when it is that agent's. Rewards come at the end of the game: each seat gets the share of
opponents it beat minus the share that beat it (from −1, last, to +1, first; zero-sum; a
two-seat game gives +1/−1, or 0 each on a tie). ``reset(seed=S)`` deals the game
``engine.Game(ruleset, seats, S)``, so a seed replays the same deal; without a seed a
fresh one is drawn. Games never truncate (the engine ends every game).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.envs.encoding import Encoding, max_options, outcome
from engine import Game, get_ruleset, observe

SEATS = range(1, 19)


class Flip7Env(AECEnv):
    """The AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "flip7_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str = "base",
        brutal: bool = False,
        seats: int = 2,
        target_score: int = 200,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if seats not in SEATS:
            raise ValueError(f"seats must be between {SEATS[0]} and {SEATS[-1]}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render mode {render_mode!r}")
        self.ruleset = get_ruleset(variant, brutal=brutal, target_score=target_score)
        self.seats = seats
        self.render_mode = render_mode
        self.encoding = Encoding(self.ruleset, seats)
        self.n_actions = max_options(self.ruleset, seats)
        self.possible_agents = [f"player_{s}" for s in range(seats)]
        self.agent_seat = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    -np.inf, np.inf, shape=(self.encoding.size,), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(self.n_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(self.n_actions)
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        self._act_spaces = {a: act_space for a in self.possible_agents}
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        self.game = Game(self.ruleset, self.seats, seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._after_move()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game is not None, "reset() first"
        seat = self.agent_seat[agent]
        mask = np.zeros(self.n_actions, dtype=np.int8)
        d = self.game.decision
        if d is not None and d.seat == seat:
            mask[: len(d.options)] = 1
        return {"observation": self.encoding.encode(observe(self.game, seat)), "action_mask": mask}

    def step(self, action: int | None) -> None:
        assert self.game is not None, "reset() first"
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        d = self.game.decision
        assert d is not None
        if action is None or not 0 <= int(action) < len(d.options):
            raise ValueError(f"{agent}: action {action!r} is not legal (mask: {len(d.options)})")
        self._cumulative_rewards[agent] = 0.0
        self.game.step(int(action))
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def _after_move(self) -> None:
        """Point ``agent_selection`` at the next decision, or end the game for everyone."""
        game = self.game
        assert game is not None
        for a in self.agents:
            self.rewards[a] = 0.0
            self.infos[a] = {}
        d = game.decision
        if d is None:  # the game is over
            for a in self.agents:
                self.rewards[a] = outcome(game, self.agent_seat[a])
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[d.seat]
            self.infos[self.agent_selection] = {
                "kind": str(d.kind),
                "card": d.card,
                "options": list(d.options),
            }
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        g = self.game
        lines = [f"round {g.round}, draw pile {len(g.deck)}"]
        for p in g.players:
            cards = " ".join(c.label for c in (*p.numbers, *p.modifiers))
            lines.append(f"  player_{p.seat}: {p.total:4d}  {p.status:7} {cards}")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> Flip7Env:
    """The environment (``variant``, ``brutal``, ``seats``, ``target_score``,
    ``render_mode``); see the module docstring."""
    return Flip7Env(**kwargs)
