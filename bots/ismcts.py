"""``ismcts``: information-set Monte Carlo tree search, generic over the engine contract.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012). Each iteration:

1. **determinize**: ``engine.game(view["game"]).determinize(view, rng)`` samples a complete
   state consistent with what the seat knows;
2. **select**: from the root, while every action of the searching seat legal in this
   determinization has a child, pick the child maximising UCB1, counting a child's
   *availability* (how often it was legal when its parent was reached) in place of the
   parent's visits; the other seats' moves are made by the rollout policy, outside the tree;
3. **expand**: add one untried legal action, chosen at random;
4. **roll out**: play on with the rollout policy (``heuristic`` when that bot plays the game,
   else ``random``), up to the horizon;
5. **back up**: each node on the path adds the chips the searching seat won or lost since
   the decision (scores at the horizon minus the view's scores), normalised by the largest
   swing seen in this search.

The tree is keyed by the searching seat's own action sequence (a single-observer tree);
the other seats are modelled by the rollout policy, which is why it defaults to the game's
heuristic: ISMCTS then searches for the best answer to that kind of play.
The horizon ``"hand"`` (default) stops a rollout when the view's ``hand`` number changes:
later hands are dealt independently of this decision, so playing them only adds noise.
Games whose view has no ``hand`` are played to the end of the match, as with ``"match"``.

Budget: ``iterations`` (deterministic for a seed) or ``time_ms`` (default 100 ms per
decision). The chosen action is the root's most visited child.
"""

from __future__ import annotations

import math
import time
from typing import Any

import engine

from .base import Action, Bot, View


def searchable_games() -> tuple[str, ...]:
    """The games whose Game class implements ``determinize`` (ISMCTS needs it)."""
    return tuple(
        name
        for name, game in engine.games().items()
        if type(game).determinize is not engine.Game.determinize
    )


def _key(action: Action) -> tuple:
    """A hashable, canonical form of an action (card lists are canonical in legal actions)."""
    return tuple(
        sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in action.items())
    )


class _Node:
    __slots__ = ("seat", "children", "visits", "avail", "total")

    def __init__(self, seat: int | None) -> None:
        self.seat = seat  # the seat whose action led here (its results are summed)
        self.children: dict[tuple, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


class IsmctsBot(Bot):
    """See the module docstring. Options: ``iterations``, ``time_ms``, ``rollout``
    (``"heuristic"``, ``"random"`` or any registered bot name), ``exploration`` (UCB's c),
    ``horizon`` (``"hand"`` or ``"match"``)."""

    def __init__(
        self,
        game: str,
        seed: int | str | None = None,
        iterations: int | None = None,
        time_ms: float | None = None,
        rollout: str | None = None,
        exploration: float = 0.7,
        horizon: str = "hand",
    ) -> None:
        super().__init__(game, seed)
        import bots

        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if horizon not in ("hand", "match"):
            raise ValueError(f"horizon must be 'hand' or 'match', got {horizon!r}")
        self.iterations = iterations
        self.time_ms = 100.0 if time_ms is None and iterations is None else time_ms
        if rollout is None:
            rollout = "heuristic" if "heuristic" in bots.available(game) else "random"
        self.rollout = rollout
        self.exploration = exploration
        self.horizon = horizon
        self.engine_game = engine.game(game)
        self._policies: dict[int, Bot] = {}

    def _policy(self, seat: int) -> Bot:
        bot = self._policies.get(seat)
        if bot is None:
            import bots

            bot = bots.create(self.rollout, game=self.game, seed=f"{self.seed}/rollout/{seat}")
            self._policies[seat] = bot
        return bot

    def act(self, view: View) -> Action:
        legal = view["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        rng = self.rng
        game = self.engine_game
        base = view["scores"]
        hand = view.get("hand")
        if self.horizon != "hand" or isinstance(hand, bool) or not isinstance(hand, int):
            # No hand number in this view (in Spacca il mazzo and Piazza "hand" is the seat's
            # cards): rollouts play to the end of the match.
            hand = None
        root = _Node(None)
        me = view["seat"]
        policy_first = self.rollout != "random"
        hint = _key(self._policy(me).act(view)) if policy_first else None
        c = self.exploration
        scale = 1.0
        deadline = None
        if self.iterations is None:
            deadline = time.perf_counter() + self.time_ms / 1000.0
        done = 0
        while True:
            if deadline is None:
                if done >= self.iterations:
                    break
            elif done and time.perf_counter() >= deadline:
                break
            done += 1
            state = game.determinize(view, rng)
            node = root
            path = []
            ended = False
            # Selection and expansion.
            while not state.is_over():
                actions = state.legal_actions()
                seat = state.current_player()
                if seat != me:
                    # Other seats are not in the tree: the rollout policy plays them.
                    self._step(state, seat, actions)
                    if hand is not None and self._past(state, hand):
                        ended = True
                        break
                    continue
                keys = [_key(a) for a in actions]
                children = node.children
                untried = []
                for i, k in enumerate(keys):
                    child = children.get(k)
                    if child is None:
                        untried.append(i)
                    else:
                        child.avail += 1
                if untried:
                    # The rollout policy's own choice is tried first: with a small budget
                    # and a wide menu (bet sizes) the search then starts from a sound move.
                    i = untried[int(rng.random() * len(untried))]
                    if node.visits == 0 and policy_first:
                        hint = _key(self._choose(state, seat, actions))
                        i = next((j for j in untried if keys[j] == hint), i)
                    child = children[keys[i]] = _Node(seat)
                    child.avail = 1
                else:
                    best = -math.inf
                    i = 0
                    for j, k in enumerate(keys):
                        ch = children[k]
                        value = ch.total / (ch.visits * scale) + c * math.sqrt(
                            math.log(ch.avail) / ch.visits
                        )
                        if value > best:
                            best, i = value, j
                    child = children[keys[i]]
                state.apply(actions[i])
                path.append(child)
                node = child
                if hand is not None and self._past(state, hand):
                    ended = True
                    break
                if untried:
                    break
            if not ended:
                self._rollout(state, hand)
            scores = state.scores()
            for n in path:
                delta = scores[n.seat] - base[n.seat]
                if abs(delta) > scale:
                    scale = float(abs(delta))
                n.visits += 1
                n.total += delta
        keys = {_key(a): a for a in legal}
        best = max(
            (ch.visits, k == hint, -order, k)  # ties: the policy's choice, then the first tried
            for order, (k, ch) in enumerate(root.children.items())
            if k in keys
        )
        return keys[best[3]]

    @staticmethod
    def _past(state: engine.State, hand: Any) -> bool:
        if hand is None:
            return state.is_over()
        return state.is_over() or state.view(None).get("hand", hand) != hand

    def _choose(self, state: engine.State, seat: int, actions: list[Action]) -> Action:
        if self.rollout == "random":
            return actions[int(self.rng.random() * len(actions))]
        return self._policy(seat).act(state.view(seat))

    def _step(self, state: engine.State, seat: int, actions: list[Action]) -> None:
        state.apply(self._choose(state, seat, actions))

    def _rollout(self, state: engine.State, hand: Any) -> None:
        while not state.is_over():
            if hand is not None and self._past(state, hand):
                return
            seat = state.current_player()
            self._step(state, seat, state.legal_actions())
