"""Play one match with bots: the single place where a match between programs is played.

Rule of the table: a seat's bot is asked only when that seat has a real choice, and is given
only ``state.view(seat)``; it never touches the :class:`engine.State`. Whatever a bot does
wrong (an exception, a timeout, an answer that is not an action, an action that is not
legal) never stops the match: the seat is **forfeited** and a fallback bot (``random`` by
default, seeded from the match seed and the seat) plays it to the end. A forfeited seat
keeps the score its cards earn, but by default ranks after every seat that did not forfeit;
forfeited seats share that last place among themselves (whoever failed first or last, they
all broke the rules of the arena the same way).

::

    from bots.runner import play_match
    import bots, engine
    game = engine.game("sette_e_mezzo")
    players = [bots.create("random", game=game.name, seed=i) for i in range(3)]
    outcome = play_match(game, players, seed=42)
    outcome.scores, outcome.places, outcome.forfeits
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine

from .base import Bot, BotFailure
from .registry import create

#: Reasons a seat can be forfeited; stable strings that the arena and the service report.
REASONS = ("crash", "timeout", "malformed", "illegal", "output_limit", "memory", "exception")

_DETAIL_CHARS = 2000  # a forfeit's detail is for a person to read, not a dump


@dataclass(frozen=True)
class ForfeitPolicy:
    """What happens to a seat whose bot fails, and how long an in-process bot may think.

    ``fallback``: the registered bot that plays the seat for the rest of the match.
    ``rank_last``: a forfeited seat ranks after every seat that did not forfeit (default);
    when false the engine's places stand as they are.

    The time of an in-process bot (one not :attr:`~bots.base.Bot.clocked`: external bots keep
    their own limits, bots.external.Limits, and are stopped on time): each decision's
    *allowance* is ``decision_limit`` seconds, or what is left of ``match_limit`` (the seconds
    the seat may think over the whole match) when that is less; None: no limit. The bot is
    told when its allowance ends (:attr:`~bots.base.Bot.deadline`): a search stops there, and
    a bot whose match time is spent answers at once (ismcts: with its rollout policy's move).
    A thread cannot be interrupted, so the answer is timed when it comes: one later than the
    allowance and ``overrun`` seconds more (a busy machine's pause) forfeits the seat
    (``timeout``).
    """

    fallback: str = "random"
    rank_last: bool = True
    decision_limit: float | None = None
    match_limit: float | None = None
    overrun: float = 1.0


class ThinkClock:
    """An in-process bot's time in one match (:class:`ForfeitPolicy`): what a decision is
    allowed, and what is left of the match's time."""

    def __init__(self, policy: ForfeitPolicy, left: float | None = None) -> None:
        self.policy = policy
        self.left = policy.match_limit if left is None else left  # None: no match limit

    def allowance(self) -> float | None:
        """Seconds the next decision may take (None: no limit)."""
        limits = [x for x in (self.policy.decision_limit, self.left) if x is not None]
        return max(0.0, min(limits)) if limits else None

    def start(self, bot: Bot) -> float | None:
        """Give ``bot`` its deadline for the decision it is about to make; the allowance."""
        allowance = self.allowance()
        if not bot.clocked:
            bot.deadline = None if allowance is None else time.monotonic() + allowance
        return allowance

    def charge(self, took: float, allowance: float | None) -> str | None:
        """Count a decision that took ``took`` seconds; why it is a timeout, or None."""
        if self.left is not None:
            self.left = max(0.0, self.left - took)
        if allowance is not None and took > allowance + self.policy.overrun:
            return (f"decision took {took:.3f} s, more than its allowance of {allowance:.3f} s "
                    f"(and {self.policy.overrun} s of grace)")
        return None


@dataclass(frozen=True)
class Forfeit:
    """Why a seat was forfeited.

    ``reason`` is one of :data:`REASONS`; ``detail`` says what happened, with the offending
    output or the tail of the bot's stderr; ``at_decision`` counts the decisions the bot had
    answered before it failed (0: at start or at its first decision).
    """

    reason: str
    detail: str
    at_decision: int


@dataclass(frozen=True)
class MatchOutcome:
    """The result of :func:`play_match`.

    ``places`` are the engine's places with forfeits applied (see :class:`ForfeitPolicy`);
    ``decisions``/``decision_time`` count only the seat's own bot (seconds, wall clock),
    ``fallback_decisions`` the decisions the fallback played for a forfeited seat.
    """

    state: engine.State
    scores: tuple[int, ...]
    places: tuple[int, ...]
    forfeits: Mapping[int, Forfeit]
    decisions: tuple[int, ...]
    decision_time: tuple[float, ...]
    fallback_decisions: tuple[int, ...] = field(default=())

    @property
    def ranking(self) -> list[int]:
        """Seats from first to last place; within a shared place, by seat number."""
        return sorted(range(len(self.places)), key=lambda s: (self.places[s], s))


def _copy_action(action: dict) -> dict:
    """An action's own copy: a dict of scalars and card lists (far cheaper than deepcopy)."""
    return {k: (v.copy() if isinstance(v, list) else v) for k, v in action.items()}


def view_for(state: engine.State, seat: int) -> dict:
    """What ``seat``'s bot is handed: its view, the legal actions its own copies (a bot that
    changes them cannot change the engine's)."""
    view = state.view(seat)
    if "legal_actions" in view:
        view["legal_actions"] = [_copy_action(a) for a in view["legal_actions"]]
    return view


def forfeit_places(places: Sequence[int], forfeited: Sequence[int]) -> list[int]:
    """Places with every forfeited seat after every other seat.

    Seats that did not forfeit keep their order (and ties) from ``places``; forfeited seats
    share the place right after them.
    """
    gone = set(forfeited)
    if not gone:
        return list(places)
    kept = [p for s, p in enumerate(places) if s not in gone]
    last = len(kept) + 1
    return [last if s in gone else 1 + sum(q < p for q in kept) for s, p in enumerate(places)]


def play_match(
    game: engine.Game | str,
    players: Sequence[Bot],
    *,
    seed: int | str,
    options: Mapping[str, Any] | None = None,
    deck: Any = None,
    policy: ForfeitPolicy = ForfeitPolicy(),
) -> MatchOutcome:
    """Play a whole match, one bot per seat (seat i is ``players[i]``).

    Calls each bot's ``start`` hook, asks the seat to act with its view, applies the action,
    and calls ``finish`` hooks at the end. Bots with a ``close()`` method are closed in every
    case, so external processes never outlive the match. The match always completes.
    """
    if isinstance(game, str):
        game = engine.game(game)
    n = len(players)
    state = game.new_match(players=n, seed=seed, options=options, deck=deck)
    seats: list[Any] = list(players)
    forfeits: dict[int, Forfeit] = {}
    decisions = [0] * n
    fallback_decisions = [0] * n
    spent = [0.0] * n

    clocks = [ThinkClock(policy) for _ in range(n)]

    def forfeit(seat: int, reason: str, detail: str) -> None:
        forfeits[seat] = Forfeit(reason, detail[-_DETAIL_CHARS:], decisions[seat])
        _close(seats[seat])
        fallback = create(policy.fallback, game=game.name, seed=f"{seed}:fallback:{seat}")
        seats[seat] = fallback
        fallback.start(seat, state.view(seat))  # a built-in bot: its failure is our bug

    try:
        for seat in range(n):
            try:
                _start(seats[seat], seat, state)
            except BotFailure as exc:
                forfeit(seat, exc.reason, exc.detail)
            except Exception as exc:
                forfeit(seat, "exception", raised(exc))

        while not state.is_over():
            seat = state.current_player()
            bot = seats[seat]
            own = seat not in forfeits
            view = view_for(state, seat)
            allowance = clocks[seat].start(bot) if own else None
            began = time.perf_counter()
            try:
                action = bot.act(view)
            except BotFailure as exc:
                spent[seat] += time.perf_counter() - began
                forfeit(seat, exc.reason, exc.detail)
                continue
            except Exception as exc:
                if not own:
                    raise
                spent[seat] += time.perf_counter() - began
                forfeit(seat, "exception", raised(exc))
                continue
            took = time.perf_counter() - began
            if not own:
                state.apply(action)  # the fallback is a built-in bot: trust it to be legal
                fallback_decisions[seat] += 1
                continue
            spent[seat] += took
            if not bot.clocked and (late := clocks[seat].charge(took, allowance)) is not None:
                forfeit(seat, "timeout", late)
                continue
            try:
                state.apply(action)
            except engine.IllegalAction as exc:
                forfeit(seat, *refused(action, exc))
                continue
            except Exception:  # an action the engine cannot even compare (unhashable junk)
                forfeit(seat, *refused(action))
                continue
            decisions[seat] += 1

        final = state.scores()
        for seat in range(n):
            try:
                _finish(seats[seat], seat, state.view(seat), final)
            except Exception:  # the result is settled; a failing goodbye changes nothing
                pass
    finally:
        for bot in [*seats, *players]:  # close() is idempotent
            _close(bot)

    places = state.places()
    if policy.rank_last and forfeits:
        places = forfeit_places(places, sorted(forfeits))
    return MatchOutcome(
        state=state,
        scores=tuple(state.scores()),
        places=tuple(places),
        forfeits=dict(sorted(forfeits.items())),
        decisions=tuple(decisions),
        decision_time=tuple(spent),
        fallback_decisions=tuple(fallback_decisions),
    )


def _start(bot: Any, seat: int, state: engine.State) -> None:
    """Call the bot's start hook; external bots get the match's options too."""
    view = state.view(seat)
    hook = getattr(bot, "start_match", None)
    if hook is not None:
        hook(seat, view, players=state.players, options=dict(state.options))
    else:
        bot.start(seat, view)


def _finish(bot: Any, seat: int, view: dict, scores: list[int]) -> None:
    """Call the bot's finish hook; external bots get the final scores too."""
    hook = getattr(bot, "finish_match", None)
    if hook is not None:
        hook(seat, view, scores=scores)
    else:
        bot.finish(seat, view)


def _close(bot: Any) -> None:
    close = getattr(bot, "close", None)
    if close is not None:
        try:
            close()
        except Exception:
            pass


def raised(exc: BaseException) -> str:
    """The forfeit detail of a bot that raised ``exc`` (not a BotFailure): the exception's type
    and words, which are the bot's own, and no traceback: a detail is shown to the bot's owner,
    and the frames would name the files of the code that runs it."""
    return f"{type(exc).__name__}: {exc}"


def refused(action: Any, exc: engine.IllegalAction | None = None) -> tuple[str, str]:
    """The forfeit (reason, detail) of a bot whose answer the engine refused: ``illegal`` with
    the engine's message, which names the rule; ``malformed`` for an answer that is no action
    at all (not an object with a "type", or junk the engine cannot even compare: no ``exc``)."""
    if exc is None:
        return "malformed", f"answered {_short(action)}"
    malformed = not isinstance(action, dict) or not isinstance(action.get("type"), str)
    return "malformed" if malformed else "illegal", f"answered {_short(action)}: {exc}"


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"
