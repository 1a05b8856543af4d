"""The table: one match played by the rule of the arena, whoever plays its seats and wherever
it is played (bots.runner for a match between programs, tournaments' online matches turn by
turn across requests and workers). The rule is written here once.

Rule of the table: a seat's player is asked only when that seat has a real choice, and is
given only ``state.view(seat)`` with its own copies of the legal actions (a bot that changes
them cannot change the engine's); it never touches the :class:`engine.State`. Whatever a bot
does wrong (an exception, a timeout, an answer that is not an action, an action that is not
legal) never stops the match: the seat is **forfeited** and the fallback bot (``random`` by
default) plays it to the end, made afresh for each decision and seeded by the match's seed,
the seat and the decision's number (:func:`fallback_seed`), so a match resumed anywhere plays
on the same. A forfeited seat keeps the score its cards earn, but by default ranks after every
seat that did not forfeit; forfeited seats share that last place among themselves (whoever
failed first or last, they all broke the rules of the arena the same way).

A seat is played by one of three players:

* a :class:`~bots.base.Bot` the table asks itself (a built-in bot, or an external one whose
  process or HTTP service the table talks to), with its ``start``/``finish`` hooks;
* a :class:`Fresh` bot: made afresh for each decision from the decision's number, so that the
  table can be rebuilt from its actions and play on the same (the service's own bots at an
  online table);
* :data:`NETWORK`: the seat's move arrives from outside (a person or a remote bot through the
  API, or an external bot the service asks outside the table): :meth:`Table.step` stops and
  names the seat, and the move comes through :meth:`Table.act` (or, for a bot's answer,
  :meth:`Table.answer`), its failure through :meth:`Table.forfeit`.

A table is resumable: :class:`Table` deals the match and replays the actions played so far,
:meth:`Table.resume` takes a state already replayed (a cache's copy); with the forfeits so
far, it plays on exactly as the table that played those actions would have.

Everything the table does is told as one stream of typed events (:attr:`Table.events`; what
was told after a mark, :attr:`Table.told`, by :meth:`Table.events_since`):
:class:`Moved` (an action, with who chose it), :class:`Logged` (what the engine logged for it:
deals, hand ends... private parts included: a seat is told only what its view shows),
:class:`Forfeited` and :class:`Over`. Each has a JSON form (``json()``).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine

from .base import Bot, BotFailure
from .registry import create

#: Reasons a seat can be forfeited; stable strings that the arena and the service report.
REASONS = ("crash", "timeout", "malformed", "illegal", "output_limit", "memory", "exception")

#: A forfeit's detail is for a person to read, not a dump: its last DETAIL_CHARS characters are
#: kept (:func:`forfeit_detail`), wherever the match is played.
DETAIL_CHARS = 2000

# Who chose an action (Moved.by; an online match stores it with the action).
BY_SEAT = "seat"  # the seat's own choice, arrived from outside (Table.act)
BY_BOT = "bot"  # the seat's bot
BY_FALLBACK = "fallback"  # the fallback bot of a forfeited seat
BY_TIMEOUT = "timeout"  # a bot that moved for a seat whose time ran out (online matches)


def forfeit_detail(detail: str) -> str:
    """A forfeit's detail as it is kept: its last DETAIL_CHARS characters (the end of a bot's
    stderr, or of what it answered, says why it failed)."""
    return detail[-DETAIL_CHARS:]


def decision_seed(seed: int | str, seat: int, decision: int) -> int:
    """The seed of a bot made for one decision (:class:`Fresh`): decision number ``decision``
    (the number of actions the match had applied before it) of ``seat`` in the match seeded
    ``seed``; a non-negative 63-bit integer, stable across machines and versions. It is the
    seed the service's online bots have always had (tournaments.services.seeds.derive_seed of
    the match's seed, "online", the seat and the decision), so matches played before play the
    same."""
    digest = hashlib.blake2b(f"{seed}/online/{seat}/{decision}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def fallback_seed(seed: int | str, seat: int, decision: int) -> int:
    """The seed of the fallback bot that makes decision number ``decision`` for the forfeited
    ``seat``: a bot a decision (:func:`decision_seed`), so the seat plays the same whether the
    match is played in one go (bots.runner) or rebuilt from its actions for each move (online
    matches)."""
    return decision_seed(seed, seat, decision)


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

    ``reason`` is one of :data:`REASONS` (or the service's own: ``forfeited`` by an organiser);
    ``detail`` says what happened, with the offending output or the tail of the bot's stderr;
    ``at_decision`` counts the decisions the bot had answered before it failed (0: at start or
    at its first decision).
    """

    reason: str
    detail: str
    at_decision: int


# --- the events the table tells ----------------------------------------------------------


@dataclass(frozen=True)
class Moved:
    """Action number ``number`` of the match (from 0): ``seat`` did ``action``, chosen ``by``
    (BY_SEAT, BY_BOT, BY_FALLBACK or BY_TIMEOUT). ``took``: the seconds its bot thought (the
    table's bookkeeping, not told)."""

    number: int
    seat: int
    action: dict
    by: str
    took: float = field(default=0.0, compare=False)
    kind = "move"

    def json(self) -> dict:
        return {"kind": self.kind, "number": self.number, "seat": self.seat, "action": self.action, "by": self.by}


@dataclass(frozen=True)
class Logged:
    """What the engine logged (``event``: a deal, a hand's end, an announcement... its log's
    entry ``index``), after ``actions`` actions (0: at the deal). Private parts included: a
    seat is told only what its view shows."""

    index: int
    actions: int
    event: dict
    kind = "log"

    def json(self) -> dict:
        return {"kind": self.kind, "index": self.index, "actions": self.actions, "event": self.event}


@dataclass(frozen=True)
class Forfeited:
    """``seat`` was forfeited after ``actions`` actions: the fallback plays it from now on."""

    seat: int
    actions: int
    forfeit: Forfeit
    kind = "forfeit"

    def json(self) -> dict:
        return {"kind": self.kind, "seat": self.seat, "actions": self.actions, "reason": self.forfeit.reason,
                "detail": self.forfeit.detail}


@dataclass(frozen=True)
class Over:
    """The match is over after ``actions`` actions: its scores and its places (forfeits
    applied, :meth:`Table.places`)."""

    actions: int
    scores: tuple[int, ...]
    places: tuple[int, ...]
    kind = "over"

    def json(self) -> dict:
        return {"kind": self.kind, "actions": self.actions, "scores": list(self.scores), "places": list(self.places)}


TableEvent = Moved | Logged | Forfeited | Over


# --- the players ----------------------------------------------------------------------------


class Network:
    """A seat whose moves arrive from outside the table: it waits for them."""

    def __repr__(self) -> str:
        return "NETWORK"


NETWORK = Network()


class Fresh:
    """A bot made afresh for each decision: ``make(decision)`` with the decision's number (the
    actions the match had applied). It lives one decision, so it has no ``start`` or
    ``finish``, and a table rebuilt from its actions asks the same bot as the one that played
    them."""

    def __init__(self, make: Callable[[int], Bot]) -> None:
        self.make = make


def copy_action(action: dict) -> dict:
    """An action's own copy: a dict of scalars and card lists (far cheaper than deepcopy)."""
    return {k: (v.copy() if isinstance(v, list) else v) for k, v in action.items()}


def view_for(state: engine.State, seat: int) -> dict:
    """What ``seat``'s bot is handed: its view, the legal actions its own copies (a bot that
    changes them cannot change the engine's)."""
    view = state.view(seat)
    if "legal_actions" in view:
        view["legal_actions"] = [copy_action(a) for a in view["legal_actions"]]
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


# --- the table ------------------------------------------------------------------------------


class Table:
    """One match at its table: the engine state, each seat's player, the forfeit policy, and
    the events told so far (:attr:`events`, from this object's making on).

    Made by dealing the match (``game``, ``seed``, ``options``, ``deck``) and replaying
    ``actions``, the actions played so far; ``forfeits``: the seats forfeited so far (they are
    played by the fallback); ``think_left``: each seat's match time left (its
    :class:`ThinkClock`; None: the policy's whole ``match_limit``)."""

    def __init__(self, game: engine.Game | str, players: Sequence[Any], *, seed: int | str,
                 options: Mapping[str, Any] | None = None, deck: Any = None, policy: ForfeitPolicy = ForfeitPolicy(),
                 actions: Sequence[dict] = (), forfeits: Mapping[int, Forfeit] | None = None,
                 think_left: Sequence[float | None] | None = None) -> None:
        if isinstance(game, str):
            game = engine.game(game)
        state = game.new_match(players=len(players), seed=seed, options=options, deck=deck)
        for action in actions:
            state.apply(action)
        self._setup(state, players, seed=seed, played=len(actions), policy=policy, forfeits=forfeits,
                    think_left=think_left)

    @classmethod
    def resume(cls, state: engine.State, players: Sequence[Any], *, seed: int | str, played: int,
               policy: ForfeitPolicy = ForfeitPolicy(), forfeits: Mapping[int, Forfeit] | None = None,
               think_left: Sequence[float | None] | None = None) -> Table:
        """The table of a match whose ``played`` actions are already applied to ``state``
        (which the table takes and plays on)."""
        table = cls.__new__(cls)
        table._setup(state, players, seed=seed, played=played, policy=policy, forfeits=forfeits,
                     think_left=think_left)
        return table

    def _setup(self, state, players, *, seed, played, policy, forfeits, think_left) -> None:
        n = len(players)
        self.state = state
        self.players: list[Any] = list(players)
        self.seed = seed
        self.policy = policy
        self.played = played
        self.forfeits: dict[int, Forfeit] = dict(forfeits or {})
        self.decisions = [0] * n  # the decisions each seat's own player answered (at this table)
        self.fallback_decisions = [0] * n
        self.spent = [0.0] * n  # seconds each seat's own bot thought
        left = list(think_left) if think_left is not None else [None] * n
        self.clocks = [ThinkClock(policy, left[seat]) for seat in range(n)]
        # What the table told, kept cheap: a move as a tuple (number, seat, action, by, took,
        # the length of the engine's log after it), a forfeit as its event; :attr:`events`
        # makes the typed events when asked, so a match nobody listens to (the runner's) pays
        # for no object it does not need. A match just dealt tells its deal (what the engine
        # logged before any action); a resumed one tells only what happens from here.
        self._told: list[Any] = []
        self._network = frozenset(seat for seat, player in enumerate(self.players) if player is NETWORK)
        self._log_dealt = len(state.log)
        self._log_from = 0 if played == 0 else self._log_dealt
        self._deal_told = 1 if played == 0 else 0  # the deal counts as one thing told (Table.told)

    # --- who plays ---------------------------------------------------------------------------

    @property
    def seats(self) -> int:
        return len(self.players)

    def player(self, seat: int) -> Any:
        """Who plays ``seat`` now: its own player, or the fallback once it is forfeited."""
        if seat in self.forfeits:
            return Fresh(lambda decision: create(self.policy.fallback, game=self.state.game.name,
                                                 seed=fallback_seed(self.seed, seat, decision)))
        return self.players[seat]

    def awaited(self) -> int | None:
        """The seat to act now if its move comes from outside (:data:`NETWORK`, not
        forfeited), else None (the table plays it, or the match is over)."""
        seat = self.state.current_player()
        if seat is None or seat in self.forfeits or self.players[seat] is not NETWORK:
            return None
        return seat

    # --- playing -------------------------------------------------------------------------------

    def start(self) -> None:
        """Call the start hooks of the seats' bots (a :class:`Bot` player): one that fails
        forfeits its seat."""
        for seat, player in enumerate(self.players):
            if seat in self.forfeits or player is NETWORK or isinstance(player, Fresh):
                continue
            try:
                _start(player, seat, self.state)
            except BotFailure as exc:
                self.forfeit(seat, exc.reason, exc.detail)
            except Exception as exc:  # noqa: BLE001 - a bot's own failure, whatever it is, forfeits its seat
                self.forfeit(seat, "exception", raised(exc))

    def step(self, *, most: int | None = None, until: float | None = None) -> int | None:
        """Play every turn the table plays itself (its bots', the fallback's), up to the seat it
        waits for, which it returns; None once the match is over, or when it stopped after
        ``most`` actions or at ``until`` (time.monotonic(); after one action at least).

        Each turn: the seat's player (the fallback once it is forfeited) is handed its view
        with copies of the legal actions, by its clock; what it does wrong forfeits the seat
        (:meth:`forfeit`), else its action is applied. The runner's hot loop: kept flat, its
        names local."""
        state, forfeits, network, players = self.state, self.forfeits, self._network, self.players
        clocks, spent, told = self.clocks, self.spent, self._told
        perf_counter = time.perf_counter
        moved = 0
        while not state.is_over():
            seat = state.current_player()
            own = seat not in forfeits
            if own and seat in network:
                return seat
            if (most is not None and moved >= most) or (until is not None and moved and time.monotonic() >= until):
                return None
            moved += 1
            player = players[seat] if own else self.player(seat)
            clock = clocks[seat]
            view = view_for(state, seat)
            began = perf_counter()
            try:
                bot = player.make(self.played) if type(player) is Fresh else player  # making it may fail too
                allowance = clock.start(bot) if own else None
                action = bot.act(view)
            except BotFailure as exc:
                spent[seat] += perf_counter() - began
                self.forfeit(seat, exc.reason, exc.detail)
                continue
            except Exception as exc:
                if not own:
                    raise  # the fallback is a built-in bot: its failure is our bug
                spent[seat] += perf_counter() - began
                self.forfeit(seat, "exception", raised(exc))
                continue
            took = perf_counter() - began
            if not own:
                state.apply(action)  # the fallback is a built-in bot: trust it to be legal
                told.append((self.played, seat, action, BY_FALLBACK, 0.0, len(state.log)))
                self.played += 1
                self.fallback_decisions[seat] += 1
                continue
            spent[seat] += took
            if not bot.clocked and (late := clock.charge(took, allowance)) is not None:
                self.forfeit(seat, "timeout", late)
                continue
            try:  # as _take does, written out: the hot loop
                state.apply(action)
            except engine.IllegalAction as exc:
                self.forfeit(seat, *refused(action, exc))
                continue
            except Exception:  # noqa: BLE001 - an action the engine cannot even compare (unhashable junk)
                self.forfeit(seat, *refused(action))
                continue
            told.append((self.played, seat, action, BY_BOT, took, len(state.log)))
            self.played += 1
            self.decisions[seat] += 1
        return None

    def answer(self, seat: int, action: Any, failure: BotFailure | None = None, *, by: str = BY_BOT,
               took: float = 0.0, time_left: float | None = None) -> bool:
        """A bot's answer for ``seat``, by the rule of the table: its ``failure``, or an action
        the engine refuses, forfeits the seat; else the action is applied. ``time_left``: the
        bot's time left after it (its clock's, when the bot was asked elsewhere). Whether the
        action was applied."""
        if time_left is not None:
            self.clocks[seat].left = time_left
        if failure is not None:
            self.forfeit(seat, failure.reason, failure.detail)
            return False
        if (refusal := self._take(seat, action, by, took)) is not None:
            self.forfeit(seat, *refusal)
            return False
        if by == BY_BOT:
            self.decisions[seat] += 1
        return True

    def _take(self, seat: int, action: Any, by: str, took: float) -> tuple[str, str] | None:
        """Apply a bot's ``action``; the forfeit (reason, detail) if the engine refuses it
        (the state unchanged)."""
        try:
            self._apply(seat, action, by, took)
        except engine.IllegalAction as exc:
            return refused(action, exc)
        except Exception:  # noqa: BLE001 - an action the engine cannot even compare (unhashable junk)
            return refused(action)
        return None

    def act(self, seat: int, action: dict, *, by: str = BY_SEAT) -> None:
        """A move that arrived from outside for ``seat``: applied, or engine.IllegalAction (the
        state unchanged) — refused, not forfeited: the caller answers whoever sent it."""
        turn = self.state.current_player()
        if turn != seat:
            raise engine.IllegalAction(f"it is seat {turn}'s turn, not seat {seat}'s")
        self._apply(seat, action, by)
        if by == BY_SEAT:
            self.decisions[seat] += 1

    def forfeit(self, seat: int, reason: str, detail: str) -> None:
        """Forfeit ``seat`` (its player's bot, if any, is closed): the fallback plays it from
        now on."""
        forfeit = Forfeit(reason, forfeit_detail(detail), self.decisions[seat])
        self.forfeits[seat] = forfeit
        _close(self.players[seat])
        self._told.append(Forfeited(seat, self.played, forfeit))

    def _apply(self, seat: int, action: Any, by: str, took: float = 0.0) -> None:
        state = self.state
        state.apply(action)  # IllegalAction leaves the state as it was
        self._told.append((self.played, seat, action, by, took, len(state.log)))
        self.played += 1

    @property
    def events(self) -> list[TableEvent]:
        """Everything the table told, in order: for a match just dealt, what the engine logged
        at the deal (:class:`Logged`, after 0 actions); each :class:`Moved` followed by what the
        engine logged for it; each :class:`Forfeited` where it happened; :class:`Over` once the
        match is over. Made anew at each call (the table keeps its moves as plain tuples)."""
        return self.events_since(0)

    @property
    def told(self) -> int:
        """How many things the table has told so far (the deal of a match just dealt, each
        move, each forfeit): a mark for :meth:`events_since`."""
        return self._deal_told + len(self._told)

    def events_since(self, told: int) -> list[TableEvent]:
        """What the table told since it had told ``told`` things (its :attr:`told` then): what
        :attr:`events` holds after them (``events_since(0)`` is :attr:`events`, the deal
        included; :class:`Over` once the match is over), made for these alone: a listener that
        reads each move's events as it comes (the replay) pays for each once, where reading
        :attr:`events` each time would pay for all."""
        log, told_items = self.state.log, self._told
        out: list[TableEvent] = []
        if told <= 0:
            out += [Logged(index, 0, log[index]) for index in range(self._log_from, self._log_dealt)]
        told = max(0, told - self._deal_told)  # the moves and forfeits told before the mark
        at = self._log_dealt  # where the log stood at the mark: after the last move before it
        for earlier in range(min(told, len(told_items)) - 1, -1, -1):
            if type(told_items[earlier]) is tuple:
                at = told_items[earlier][5]
                break
        for position in range(told, len(told_items)):
            item = told_items[position]
            if type(item) is tuple:
                number, seat, action, by, took, end = item
                out.append(Moved(number, seat, action, by, took))
                out.extend(Logged(index, number + 1, log[index]) for index in range(at, end))
                at = end
            else:
                out.append(item)
        if self.state.is_over():
            out.append(Over(self.played, tuple(self.state.scores()), tuple(self.places())))
        return out

    # --- the outcome -----------------------------------------------------------------------------

    def places(self) -> list[int]:
        """The engine's places with the forfeits applied (ForfeitPolicy.rank_last): the one
        place a match's places come from."""
        places = self.state.places()
        if self.policy.rank_last and self.forfeits:
            places = forfeit_places(places, sorted(self.forfeits))
        return list(places)

    def finish(self) -> None:
        """Call the finish hooks of the seats' bots still playing (a goodbye: what they do
        changes nothing)."""
        final = self.state.scores()
        for seat, player in enumerate(self.players):
            if seat in self.forfeits or player is NETWORK or isinstance(player, Fresh):
                continue
            try:
                _finish(player, seat, self.state.view(seat), final)
            except Exception:  # noqa: BLE001 - the result is settled; a failing goodbye changes nothing
                pass

    def close(self) -> None:
        """Close every bot the table holds (external processes never outlive the match)."""
        for player in self.players:
            _close(player)


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
        except Exception:  # noqa: BLE001 - a failing close of a finished bot changes nothing
            pass
