"""``ismcts``: information-set Monte Carlo tree search, generic over the engine contract.

Per game, the defaults below are declared next to its heuristic (``bots/<game>_bots.py``,
``GAME.search``: :class:`bots.tuning.Search`, read through :mod:`bots.games`).

Two modes (option ``mode``; per game ``Search.mode``):

``"tree"``: single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012). Each iteration:

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

``"paired"`` (Piazza, Spacca il mazzo): every candidate action is tried on **each** sampled
state (a clone per action), then every seat, this one included, plays the rollout policy to
the horizon. The actions' results are thus paired by sample, common random numbers: the
luck of the sample (the others' hands, the stock's order) is the same for all of them and
cancels from their differences, which one ISMCTS iteration per sample and per action
cannot do. With the heuristic as rollout policy this is a one-step improvement of the
heuristic: its move is replaced only where another does better, on the same samples, by
more than ``guard`` standard errors of the paired differences. Where rollouts to the end of
a match are cheap (~1-2 ms) and the menu short, this finds far more than the tree's
single-sample estimates. In Piazza the tree, cut at the figure turn, lost to the heuristic,
mostly on commercio requests (instrumented on seed 10: where its request differed from the
heuristic's it lost ~0.9 points, a cost the figure turn does not see); played to the end of
the match and paired, the search beats it, and gains most on the rivolta (on seed 10, 40
deals: +3.1 [+1.9, +4.2] points a match with the rivolta searched, +1.1 [+0.2, +2.0] with it
left to the heuristic). Per game, ``Search.candidates`` narrows the menu (Piazza: only the
smallest raise, since chips never decide a match).

The tree is keyed by the searching seat's own action sequence (a single-observer tree);
the other seats are modelled by the rollout policy, which is why it defaults to the game's
heuristic: the search then looks for the best answer to that kind of play.
The horizon ``"hand"`` (default, per game ``Search.horizon``) stops a rollout when the view's
``hand`` number changes (``Search.horizon_field`` names another field): later hands are dealt
independently of this decision, so playing them only adds noise. Games whose view has no
such number are played to the end of the match, as with ``"match"`` (Piazza's default), or,
in tree mode where the game has an estimate (``Search.estimate``, Spacca il mazzo), for
``depth`` moves and then scored by it.

Per game, some phases are left to the rollout policy (``Search.delegate``, option
``delegate``): Stoppa's bets and showdowns, Piazza's stake. There the bot plays exactly as
the heuristic.

Budget: ``iterations`` (samples; deterministic for a seed) or ``time_ms`` (default 100 ms
per decision); either way the decision ends by its :attr:`~bots.base.Bot.deadline` when the
match runner sets one (a sample it cuts short counts for nothing, and a bot given no time
answers with its rollout policy's move), so no option makes a decision outlast the time the
table allows it. In tree mode the chosen action is the root's most visited child; with a
``guard`` z > 0 (default 2 in Spacca il mazzo and Piazza, ``Search.guard``) the rollout policy's
own choice is kept unless the chosen action's mean result beats it by more than z standard
errors. In paired mode the action with the best mean result is chosen, under the same guard
on its paired differences (one sample is no evidence; a gain alike on every sample is).
"""

from __future__ import annotations

import math
import time
from typing import Any

import engine

from . import games
from .base import Action, Bot, View
from .registry import available, create


def searchable_games() -> tuple[str, ...]:
    """The games whose Game class implements ``determinize`` (ISMCTS needs it)."""
    return tuple(
        name
        for name, game in engine.games().items()
        if type(game).determinize is not engine.Game.determinize
    )


#: A sample looks at the clock every this many moves (:meth:`IsmctsBot._in_time`): a move of
#: the rollout policy is tens of microseconds, so a deadline is overrun by a millisecond or so.
CLOCK_EVERY = 16


class _OutOfTime(Exception):
    """The decision's deadline passed in the middle of a sample."""


def _better(a: _Node, b: _Node, z: float) -> bool:
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

    def __init__(self, seat: int) -> None:
        self.seat = seat  # the seat whose action led here (its results are summed); -1 at the root
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
    ``guard`` (z; 0 turns it off), ``depth`` (tree mode: rollout moves before a game's
    estimate) and ``mode`` (``"tree"`` or ``"paired"``; paired needs a rollout policy other
    than ``random`` and falls back to the tree without one); ``None`` takes the game's
    default."""

    def __init__(
        self,
        game: str,
        seed: int | str | None = None,
        iterations: int | None = None,
        time_ms: float | None = None,
        rollout: str | None = None,
        exploration: float = 0.7,
        horizon: str | None = None,
        resample: int = 20,
        delegate: tuple[str, ...] | list[str] | None = None,
        guard: float | None = None,
        depth: int | None = None,
        mode: str | None = None,
    ) -> None:
        super().__init__(game, seed)
        tuning = games.get(game).search
        self.search = tuning
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if horizon is None:
            horizon = tuning.horizon
        if horizon not in ("hand", "match"):
            raise ValueError(f"horizon must be 'hand' or 'match', got {horizon!r}")
        self.iterations = iterations
        self.time_ms = 100.0 if time_ms is None and iterations is None else time_ms
        if rollout is None:
            rollout = "heuristic" if "heuristic" in available(game) else "random"
        self.rollout = rollout
        self.exploration = exploration
        self.horizon = horizon
        self.engine_game = engine.game(game)
        self._policies: dict[int, Bot] = {}
        self.resample = resample
        self.guard = tuning.guard if guard is None else guard
        self.mode = tuning.mode if mode is None else mode
        if self.mode not in ("tree", "paired"):
            raise ValueError(f"mode must be 'tree' or 'paired', got {mode!r}")
        self._estimate = tuning.estimate
        if depth is None and self.mode == "tree":
            depth = tuning.depth
        self.depth = depth if self._estimate else None
        self.delegate = tuple(tuning.delegate if delegate is None else delegate)
        self._check = tuning.consistent if rollout in ("heuristic",) else None

    def _determinize(self, view: View):
        state = self.engine_game.determinize(view, self.rng)
        check = self._check
        if check is not None:
            for _ in range(self.resample):
                if check(view, state):
                    break
                state = self.engine_game.determinize(view, self.rng)
        return state

    def _budget(self):
        """Yield once per sample the budget allows: ``iterations`` of them, or as many as
        start before ``time_ms`` have passed since the first (always at least one); and in
        either case none that would start after the decision's :attr:`deadline` (the match
        runner's allowance), which also cuts a sample short (:meth:`_in_time`)."""
        hard = self.deadline
        if self.iterations is not None:
            for i in range(self.iterations):
                if hard is not None and time.monotonic() >= hard:
                    return
                yield i
            return
        assert self.time_ms is not None  # the constructor asks for iterations or time_ms
        deadline = time.monotonic() + self.time_ms / 1000.0
        if hard is not None:
            deadline = min(deadline, hard)
        first = True
        while first or time.monotonic() < deadline:
            if hard is not None and time.monotonic() >= hard:
                return
            first = False
            yield 0

    def _in_time(self, moves: int) -> None:
        """Every :data:`CLOCK_EVERY` moves of a sample, stop it (:class:`_OutOfTime`) once the
        decision's deadline has passed: a sample played to the end of a long match (``horizon``
        ``"match"``) takes far longer than one decision is allowed."""
        if moves % CLOCK_EVERY == 0 and self.deadline is not None and time.monotonic() >= self.deadline:
            raise _OutOfTime

    def _policy(self, seat: int) -> Bot:
        bot = self._policies.get(seat)
        if bot is None:
            bot = create(self.rollout, game=self.game, seed=f"{self.seed}/rollout/{seat}")
            self._policies[seat] = bot
        return bot

    def act(self, view: View) -> Action:
        legal = view["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        if self.delegate and view.get("phase") in self.delegate and self.rollout != "random":
            return self._policy(view["seat"]).act(view)
        rng = self.rng
        base = view["scores"]
        self._hkey = self.search.horizon_field
        hand = view.get(self._hkey)
        if self.horizon != "hand" or isinstance(hand, bool) or not isinstance(hand, int):
            # No hand number in this view (in Spacca il mazzo and Piazza "hand" is the seat's
            # cards): rollouts play to the end of the match.
            hand = None
        if self.mode == "paired" and self.rollout != "random":
            return self._act_paired(view, legal, hand)
        root = _Node(-1)
        me = view["seat"]
        policy_first = self.rollout != "random"
        hint = _key(self._policy(me).act(view)) if policy_first else None
        c = self.exploration
        scale = 1.0
        for _ in self._budget():
            state = self._determinize(view)
            node = root
            path: list[_Node] = []
            ended = timed_out = False
            moves = 0
            # Selection and expansion.
            while not state.is_over():
                actions = state.legal_actions()
                seat = state.current_player()
                if seat != me:
                    # Other seats are not in the tree: the rollout policy plays them.
                    moves += 1
                    try:
                        self._in_time(moves)
                    except _OutOfTime:
                        timed_out = True
                        break
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
            if timed_out:
                break  # out of time in the middle of the sample: it counts for nothing
            cut = False
            if not ended:
                try:
                    cut = self._rollout(state, hand)
                except _OutOfTime:
                    break
            scores = self._scores(state, cut)
            for n in path:
                delta = scores[n.seat] - base[n.seat]
                if abs(delta) > scale:
                    scale = float(abs(delta))
                n.visits += 1
                n.total += delta
                n.sq += delta * delta
        by_key = {_key(a): a for a in legal}
        if not any(ch.visits for k, ch in root.children.items() if k in by_key):
            # Not one sample in time (a match's time spent): the policy's move, or any.
            return by_key[hint] if hint in by_key else legal[int(rng.random() * len(legal))]
        most = max(
            (ch.visits, k == hint, -order, k)  # ties: the policy's choice, then the first tried
            for order, (k, ch) in enumerate(root.children.items())
            if k in by_key
        )
        choice = most[3]
        if self.guard and hint in by_key and hint in root.children and choice != hint:
            # Keep the policy's move unless the search's is better beyond noise.
            a, b = root.children[choice], root.children[hint]
            if not _better(a, b, self.guard):
                choice = hint
        return by_key[choice]

    def _act_paired(self, view: View, legal: list[Action], hand: Any) -> Action:
        """Every legal action on each sampled state, then the rollout policy to the horizon:
        the actions' results are paired by sample (common random numbers), and an action
        replaces the policy's own only if its mean paired gain beats ``guard`` standard
        errors."""
        me = view["seat"]
        base = view["scores"][me]
        hint = self._policy(me).act(view)
        prune = self.search.candidates
        if prune is not None:
            legal = prune(view, legal)
        if hint not in legal:
            legal = [hint] + legal
        if len(legal) == 1:
            return hint
        h = legal.index(hint)
        k = len(legal)
        total = [0.0] * k
        gain = [0.0] * k  # sum over samples of (action's result - policy's action's result)
        gain_sq = [0.0] * k
        n = 0
        for _ in self._budget():
            sample = self._determinize(view)
            results = []
            try:
                for action in legal:
                    state = sample.clone()
                    state.apply(action)
                    cut = False
                    if not (hand is not None and self._past(state, hand)):
                        cut = self._rollout(state, hand)
                    scores = self._scores(state, cut)
                    results.append(scores[me] - base)
            except _OutOfTime:
                break  # a sample is paired only once every action has its result
            n += 1
            ref = results[h]
            for i, r in enumerate(results):
                total[i] += r
                d = r - ref
                gain[i] += d
                gain_sq[i] += d * d
        best = max(range(k), key=lambda i: (total[i], i == h))
        if best != h and self.guard and n >= 2:
            mean = gain[best] / n
            var = max(gain_sq[best] / n - mean * mean, 0.0) * n / (n - 1)
            if not mean > self.guard * math.sqrt(var / n):
                best = h
        elif best != h and n < 2:
            best = h
        return legal[best]

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

    def _scores(self, state: engine.State, cut: bool) -> list:
        """A sample's result: the estimate where the rollout was cut at ``depth`` (set only
        with an estimate), else the scores where it ended."""
        if cut:
            assert self._estimate is not None
            return self._estimate(state)
        return state.scores()

    def _rollout(self, state: engine.State, hand: Any) -> bool:
        """Plays on to the horizon; True when cut off by ``depth`` before it."""
        moves = 0
        while not state.is_over():
            if hand is not None and self._past(state, hand):
                return False
            if self.depth is not None and moves >= self.depth:
                return True
            seat = state.current_player()
            assert seat is not None  # the match is not over: someone is to act
            self._step(state, seat, state.legal_actions())
            moves += 1
            self._in_time(moves)
        return False
