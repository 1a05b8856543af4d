"""``ismcts``: information-set Monte Carlo tree search, generic over the engine contract.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012). Each iteration:

1. **determinize**: ``engine.game(view["game"]).determinize(view, rng)`` samples a complete
   state consistent with what the seat knows; where a game has a consistency check (Stoppa:
   the current betting round replayed by the heuristic's rules on the sampled packets), a
   sample the modelled opponents' actions contradict is redrawn, up to ``resample`` times;
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
The horizon ``"hand"`` (default) stops a rollout when the view's ``hand`` number changes
(Piazza: its ``turn``, the figure turn, :data:`HORIZON_FIELD`): later hands are dealt
independently of this decision, so playing them only adds noise. Games whose view has no
such number are played to the end of the match, as with ``"match"``, or, where the game has
an estimate (:data:`ESTIMATE`, Spacca il mazzo), for ``depth`` moves and then scored by it.

Per game, some phases are left to the rollout policy (:data:`DELEGATE`, option
``delegate``): Stoppa's bets and showdowns, Piazza's rivolta, bets and claims. There the
bot plays exactly as the heuristic.

Budget: ``iterations`` (deterministic for a seed) or ``time_ms`` (default 100 ms per
decision). The chosen action is the root's most visited child; with a ``guard`` z > 0
(default 2 in Spacca il mazzo and Piazza, :data:`GUARD`) the rollout policy's own choice is
kept unless the chosen action's mean result beats it by more than z standard errors.
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


def _consistency_hooks() -> dict:
    """Per game, ``check(view, state) -> bool``: whether a determinization agrees with what
    the other seats' past actions reveal, given that the rollout policy (the heuristic) is
    how they are modelled. Samples that fail are redrawn (up to ``resample`` times)."""
    from . import stoppa_bots

    return {"stoppa": stoppa_bots.betting_consistent}


#: Per game, the phases ISMCTS leaves to its rollout policy (option ``delegate``). Stoppa:
#: the bets and showdowns, where ~100 ms of rollouts cannot separate twenty bet sizes (the
#: search opened and raised at random, losing ~26 chips a match); the search plays the
#: stoppa (shedding) phase. The betting check above only acts when bets are searched
#: (``delegate=()``). Piazza: rivolta, bets (chips never decide a match) and claims.
DELEGATE: dict[str, tuple[str, ...]] = {
    "stoppa": ("bet", "showdown"),
    "piazza": ("rivolta", "stake", "join", "response", "claim"),
}

#: Per game, the view field whose change ends a rollout under the ``"hand"`` horizon: the
#: unit of play after which later deals no longer depend on this decision. Piazza has no
#: hands; its unit is the figure turn (``turn``), whose figure points are settled at its end.
HORIZON_FIELD: dict[str, str] = {"piazza": "turn"}


#: Per game, the default ``guard`` (see ``IsmctsBot``): where rollouts to the end of a long
#: match are few and noisy, the search overrides its rollout policy only on clear evidence.
GUARD: dict[str, float] = {"spacca_il_mazzo": 2.0, "piazza": 2.0}


def _spacca_estimate(state: engine.State) -> list[float]:
    """Spacca il mazzo, cut off before the end: each seat still playing is given the fixed
    placement points (4.1) of the place its count of cards left (hand, face-up, face-down)
    ranks it in, ties sharing; seats already out keep their place's points."""
    view = state.view(None)
    table = view["table"]
    n = len(table)
    points = {2: (25, 0), 3: (25, 15, 0), 4: (25, 15, 5, 0)}.get(n, tuple(range(n, 0, -1)))
    out = [0.0] * n
    taken = set()
    left = []
    for e in table:
        if e.get("place"):
            place = e["place"] - 1
            taken.add(place)
            out[e["seat"]] = float(points[min(place, n - 1)])
        else:
            left.append((e["hand"] + len(e["up"]) + len(e["down"]), e["seat"]))
    free = [p for p in range(n) if p not in taken]
    left.sort()
    i = 0
    while i < len(left):
        j = i
        while j < len(left) and left[j][0] == left[i][0]:
            j += 1
        share = sum(points[free[k]] for k in range(i, j)) / (j - i)
        for k in range(i, j):
            out[left[k][1]] = share
        i = j
    return out


#: Per game, an estimate of the final scores from a state, for the ``depth`` cut-off.
ESTIMATE = {"spacca_il_mazzo": _spacca_estimate}
#: Per game, the default ``depth``: rollout moves before the estimate replaces the rest.
DEPTH: dict[str, int] = {"spacca_il_mazzo": 24}


def _better(a: "_Node", b: "_Node", z: float) -> bool:
    """Whether node ``a``'s mean result beats ``b``'s by more than ``z`` standard errors."""
    if a.visits < 2 or b.visits < 2:
        return False
    ma, mb = a.total / a.visits, b.total / b.visits
    va = max(a.sq / a.visits - ma * ma, 0.0) / a.visits
    vb = max(b.sq / b.visits - mb * mb, 0.0) / b.visits
    return ma - mb > z * math.sqrt(va + vb)


def _key(action: Action) -> tuple:
    """A hashable, canonical form of an action (card lists are canonical in legal actions)."""
    return tuple(
        sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in action.items())
    )


class _Node:
    __slots__ = ("seat", "children", "visits", "avail", "total", "sq")

    def __init__(self, seat: int | None) -> None:
        self.seat = seat  # the seat whose action led here (its results are summed)
        self.children: dict[tuple, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.sq = 0.0  # sum of squared results: the guard's standard errors


class IsmctsBot(Bot):
    """See the module docstring. Options: ``iterations``, ``time_ms``, ``rollout``
    (``"heuristic"``, ``"random"`` or any registered bot name), ``exploration`` (UCB's c),
    ``horizon`` (``"hand"`` or ``"match"``), ``resample`` (redraws of a determinization the
    game's consistency check rejects), ``delegate`` (phases left to the rollout policy),
    ``guard`` (z; 0 turns it off) and ``depth`` (rollout moves before a game's estimate);
    ``None`` takes the game's default."""

    def __init__(
        self,
        game: str,
        seed: int | str | None = None,
        iterations: int | None = None,
        time_ms: float | None = None,
        rollout: str | None = None,
        exploration: float = 0.7,
        horizon: str = "hand",
        resample: int = 20,
        delegate: tuple[str, ...] | list[str] | None = None,
        guard: float | None = None,
        depth: int | None = None,
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
        self.resample = resample
        self.guard = GUARD.get(game, 0.0) if guard is None else guard
        self._estimate = ESTIMATE.get(game)
        self.depth = (DEPTH.get(game) if depth is None else depth) if self._estimate else None
        self.delegate = tuple(DELEGATE.get(game, ()) if delegate is None else delegate)
        self._check = _consistency_hooks().get(game) if rollout in ("heuristic",) else None

    def _determinize(self, view: View):
        state = self.engine_game.determinize(view, self.rng)
        check = self._check
        if check is not None:
            for _ in range(self.resample):
                if check(view, state):
                    break
                state = self.engine_game.determinize(view, self.rng)
        return state

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
        if self.delegate and view.get("phase") in self.delegate and self.rollout != "random":
            return self._policy(view["seat"]).act(view)
        rng = self.rng
        game = self.engine_game
        base = view["scores"]
        self._hkey = HORIZON_FIELD.get(self.game, "hand")
        hand = view.get(self._hkey)
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
            state = self._determinize(view)
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
                        first = hint if node is root else _key(self._choose(state, seat, actions))
                        i = next((j for j in untried if keys[j] == first), i)
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
            cut = False
            if not ended:
                cut = self._rollout(state, hand)
            scores = self._estimate(state) if cut else state.scores()
            for n in path:
                delta = scores[n.seat] - base[n.seat]
                if abs(delta) > scale:
                    scale = float(abs(delta))
                n.visits += 1
                n.total += delta
                n.sq += delta * delta
        keys = {_key(a): a for a in legal}
        best = max(
            (ch.visits, k == hint, -order, k)  # ties: the policy's choice, then the first tried
            for order, (k, ch) in enumerate(root.children.items())
            if k in keys
        )
        choice = best[3]
        if self.guard and hint in keys and hint in root.children and choice != hint:
            # Keep the policy's move unless the search's is better beyond noise.
            a, b = root.children[choice], root.children[hint]
            if not _better(a, b, self.guard):
                choice = hint
        return keys[choice]

    def _past(self, state: engine.State, hand: Any) -> bool:
        if hand is None:
            return state.is_over()
        return state.is_over() or state.view(None).get(self._hkey, hand) != hand

    def _choose(self, state: engine.State, seat: int, actions: list[Action]) -> Action:
        if self.rollout == "random":
            return actions[int(self.rng.random() * len(actions))]
        return self._policy(seat).act(state.view(seat))

    def _step(self, state: engine.State, seat: int, actions: list[Action]) -> None:
        state.apply(self._choose(state, seat, actions))

    def _rollout(self, state: engine.State, hand: Any) -> bool:
        """Plays on to the horizon; True when cut off by ``depth`` before it."""
        moves = 0
        while not state.is_over():
            if hand is not None and self._past(state, hand):
                return False
            if self.depth is not None and moves >= self.depth:
                return True
            seat = state.current_player()
            self._step(state, seat, state.legal_actions())
            moves += 1
        return False
