"""The Game/State contract shared by the four games (shared/design/engine.md).

A :class:`Game` describes one game: its name, player counts and options, and makes new
matches. A :class:`State` is one match in progress. Subclasses implement a handful of hooks
(``_setup``, ``_legal_actions``, ``_do``, ``_why_illegal``, ``scores``, ``view``,
``_copy_into``); the base class gives every game the same public behaviour:

* ``apply`` accepts only an action equal to one of ``legal_actions()`` (card lists compared
  as multisets), raises :class:`IllegalAction` otherwise and leaves the state untouched;
* a seat is never asked when it has exactly one legal action: the engine applies it itself
  (``_do(action, forced=True)``) and the action is not recorded among the caller's actions;
* ``to_json()`` records the inputs and the callers' actions, and :func:`replay` rebuilds the
  match from them;
* the log keeps every event, with who may see it, so ``view(seat)`` can filter it.

Results: ``Game.places(scores)`` gives each seat's place for final scores, as that game ranks
them (today every game: higher is better, equal scores share a place, ``places_from``), and
``State.places()`` is that of the match's ``scores()``. ``Game.zero_sum`` says whether a
finished match's scores always add up to 0 (Stoppa and Sette e mezzo: net chips only change
hands; not Piazza's figure points nor Spacca il mazzo's placement points). A service that
takes results reported by people checks them against both.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Self, TypeVar

Action = dict[str, Any]
Event = dict[str, Any]


class IllegalAction(ValueError):
    """An action that the rules do not allow in this state; the message names the rule."""


def shown(action: Any) -> str:
    """An action as a message shows it: as the JSON it is sent as (``{"type": "pass"}``), not a
    Python repr; anything JSON cannot write, by its repr."""
    try:
        return json.dumps(action, ensure_ascii=False, default=repr)
    except ValueError:  # a circular structure
        return repr(action)


class InvalidOptions(ValueError):
    """Bad ``players``, ``options`` or ``deck`` given to ``new_match``."""


class UnknownGame(ValueError):
    """No game is registered under that name."""


# --------------------------------------------------------------------------- options

_MISSING = object()


@dataclass(frozen=True)
class Option:
    """One configurable rule choice.

    ``default`` may be a callable ``(players) -> value`` for defaults that depend on the
    number of players (``dealer`` is N-1). ``low``/``high`` may be callables of ``players``
    too. ``choices`` restricts a value to a fixed set.
    """

    default: Any
    doc: str
    kind: type | tuple[type, ...] = int
    low: Any = None
    high: Any = None
    choices: tuple[Any, ...] | None = None
    nullable: bool = False

    def resolve_default(self, players: int | None) -> Any:
        if callable(self.default):
            return None if players is None else self.default(players)
        return self.default

    def check(self, name: str, value: Any, players: int) -> Any:
        if value is None and self.nullable:
            return None
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        if isinstance(value, bool) and bool not in kinds:
            raise InvalidOptions(f"option {name!r} must be {_kind_name(kinds)}, got {value!r}")
        if not isinstance(value, kinds):
            raise InvalidOptions(f"option {name!r} must be {_kind_name(kinds)}, got {value!r}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise InvalidOptions(f"option {name!r} must be one of {allowed}, got {value!r}")
        low = self.low(players) if callable(self.low) else self.low
        high = self.high(players) if callable(self.high) else self.high
        if low is not None and value < low:
            raise InvalidOptions(f"option {name!r} must be at least {low}, got {value!r}")
        if high is not None and value > high:
            raise InvalidOptions(f"option {name!r} must be at most {high}, got {value!r}")
        return value


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = {int: "an integer", str: "a string", bool: "true or false", float: "a number"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def dealer_option() -> Option:
    """The ``dealer`` option every game accepts: first dealer/banker seat, default N-1 (EC-0)."""
    return Option(
        default=lambda n: n - 1,
        doc="first dealer (banker) seat; by default the last seat, so seat 0 acts first",
        low=0,
        high=lambda n: n - 1,
    )


# --------------------------------------------------------------------------- games


S = TypeVar("S", bound="State")


class Game(Generic[S]):
    """A game: its identity, its options and a factory of matches.

    Subclasses set ``name``, ``title``, ``min_players``, ``max_players``, ``options`` (a
    mapping of option name to :class:`Option`) and ``state_class``; ``zero_sum`` when every
    finished match's scores add up to 0, and ``places`` when the game ranks final scores
    otherwise than "higher is better, equal scores share a place".
    """

    name: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    options: Mapping[str, Option] = {}
    state_class: type[S]
    #: Whether the scores of every finished match add up to 0 (chips that only change hands).
    zero_sum: bool = False

    def places(self, scores: Sequence[int]) -> list[int]:
        """Each seat's place for final ``scores``, as this game ranks them: 1 = first, higher
        scores first, equal scores sharing a place (1, 1, 3)."""
        return places_from(scores)

    def __repr__(self) -> str:
        return f"<Game {self.name}>"

    def default_options(self, players: int | None = None) -> dict[str, Any]:
        """Every configurable rule choice with its default.

        Defaults that depend on the number of players (such as ``dealer``) are ``None``
        unless ``players`` is given.
        """
        return {name: opt.resolve_default(players) for name, opt in self.options.items()}

    def check_players(self, players: object) -> int:
        if isinstance(players, bool) or not isinstance(players, int):
            raise InvalidOptions(f"players must be an integer, got {players!r}")
        if not self.min_players <= players <= self.max_players:
            raise InvalidOptions(
                f"{self.title} is played by {self.min_players} to {self.max_players} players, "
                f"not {players}"
            )
        return players

    def resolve_options(self, players: int, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The full option set for a match: defaults overridden by ``options``, validated."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise InvalidOptions(
                f"unknown option(s) {', '.join(map(repr, unknown))} for {self.name}; "
                f"valid: {', '.join(sorted(self.options))}"
            )
        resolved = {}
        for name, opt in self.options.items():
            value = options.get(name, _MISSING)
            if value is _MISSING:
                value = opt.resolve_default(players)
            resolved[name] = opt.check(name, value, players)
        self.check_options(players, resolved)
        return resolved

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        """Checks that involve several options or the player count; raise InvalidOptions."""

    def new_match(
        self,
        players: int,
        seed: int | str | None = None,
        options: Mapping[str, Any] | None = None,
        deck: Any = None,
    ) -> S:
        """Start a match. ``seed=None`` draws a fresh seed, recorded in ``to_json()``."""
        players = self.check_players(players)
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        elif isinstance(seed, bool) or not isinstance(seed, (int, str)):
            raise InvalidOptions(f"seed must be an integer or a string, got {seed!r}")
        resolved = self.resolve_options(players, options)
        return self.state_class(self, players, seed, resolved, deck)

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> S:
        """A complete, playable state consistent with ``view`` (a ``view(seat)`` dict).

        For search bots (ISMCTS): everything the view shows is kept exactly; every card the
        seat cannot know (others' hidden cards, the stock, face-down cards, future deals) is
        sampled from the cards unaccounted for, consistently with what the view's public
        events imply. It uses nothing but ``view`` and ``rng`` (so it cannot leak), in a
        canonical order, so the same view and rng state give the same sample; and
        ``sample.view(seat) == view`` except for the fields the game documents. The sample
        is for playing on: its ``to_json()`` does not replay the real match.
        Games without it raise NotImplementedError (ISMCTS is offered only where it exists).
        """
        raise NotImplementedError(f"{self.name} has no determinize")


# --------------------------------------------------------------------------- states


class State:
    """One match in progress. See the module docstring and shared/design/engine.md."""

    #: The order in which ``legal_actions()`` sorts card lists; card lists in actions are
    #: compared as multisets by sorting them with this key.
    card_order: Mapping[str, int] = {}

    def __init__(
        self, game: Game, players: int, seed: int | str, options: dict[str, Any], deck: Any
    ) -> None:
        self.game = game
        self.players = players
        self.seed = seed
        self.options = options
        self.deck = copy.deepcopy(deck)
        self.actions: list[Action] = []  # the callers' actions, canonical form
        self.log: list[Event] = []  # every event, private parts included
        # Parallel to ``log``: None for a public event, else (seats who see it, redacted
        # event for everyone else or None if they see nothing at all).
        self._vis: list[tuple[tuple[int, ...], Event | None] | None] = []
        self._turn: int | None = None
        self._legal: Sequence[Action] | None = None
        self._setup(self.deck)
        self._advance()

    # ------------------------------------------------------------------ hooks

    def _setup(self, deck: Any) -> None:
        """Validate ``deck`` (raise InvalidOptions), deal, and set ``_turn``."""
        raise NotImplementedError

    def _legal_actions(self) -> Sequence[Action]:
        """The legal actions of the seat to act, in canonical order (never called when over).

        A list or a tuple; the base class never mutates it, so a game may return a constant.
        """
        raise NotImplementedError

    def _do(self, action: Action, forced: bool) -> None:
        """Carry out a legal action (an element of ``_legal_actions()``); update ``_turn``."""
        raise NotImplementedError

    def _why_illegal(self, action: Action) -> str:
        """Explain, naming the rule, why ``action`` is not among the legal actions."""
        return f"{shown(action)} is not a legal action now"

    def _copy_into(self, new: Self) -> None:
        """Give ``new`` (a shallow copy of self) its own copies of every mutable container."""
        raise NotImplementedError

    def scores(self) -> list[int]:
        raise NotImplementedError

    def view(self, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    # ------------------------------------------------------------------ contract

    def current_player(self) -> int | None:
        """The seat to act, or None once the match is over."""
        return self._turn

    def is_over(self) -> bool:
        return self._turn is None

    def legal_actions(self) -> list[Action]:
        """The legal actions of the seat to act, in canonical order; [] once over.

        The dicts are shared with the engine: treat them as read-only.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self._turn is None else self._legal_actions()
        return list(legal)

    def apply(self, action: Action) -> None:
        """Play ``action`` for the seat to act; forced actions that follow are applied too."""
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self._turn is None else self._legal_actions()
        for candidate in legal:
            if candidate is action or candidate == action:
                break
        else:
            candidate = self._match_multiset(action, legal)
        self.actions.append(candidate)
        self._legal = None
        self._do(candidate, False)
        self._advance()

    def _match_multiset(self, action: Any, legal: Sequence[Action]) -> Action:
        if self._turn is None:
            raise IllegalAction("the match is over: no action is legal")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction(f"an action is an object with a 'type', got {shown(action)}")
        found = self._as_multiset(action, legal)
        if found is None:
            raise IllegalAction(self._why_refused(action, legal))
        return found

    def _as_multiset(self, action: Action, legal: Sequence[Action]) -> Action | None:
        """The legal action ``action`` is, its cards compared as a multiset; None if none."""
        cards = action.get("cards")
        if isinstance(cards, list) and all(isinstance(c, str) for c in cards):
            order = self.card_order
            if all(c in order for c in cards):
                canonical = dict(action, cards=sorted(cards, key=order.__getitem__))
                for candidate in legal:
                    if candidate == canonical:
                        return candidate
        return None

    def _why_refused(self, action: Action, legal: Sequence[Action]) -> str:
        """Why ``action`` is not legal. An action that would be legal without the keys no legal
        action of its type has now (``{"type": "pass", "amount": 0}``) is refused for those
        keys, named, with the legal action it would be (the game may name its own rule:
        ``_why_extra``); any other, for the game's rule (``_why_illegal``)."""
        kind = action["type"]
        taken = {key for candidate in legal if candidate.get("type") == kind for key in candidate}
        extra = [key for key in action if key not in taken]
        if taken and extra:
            bare = {key: value for key, value in action.items() if key in taken}
            meant = next((candidate for candidate in legal if candidate == bare), None) or self._as_multiset(bare, legal)
            if meant is not None:
                keys = " or ".join(f"'{key}'" for key in extra)
                return (self._why_extra(action, extra)
                        or f"{shown(action)}: '{kind}' takes no {keys} now (legal: {shown(meant)})")
        return self._why_illegal(action)

    def _why_extra(self, action: Action, extra: list[str]) -> str | None:
        """A game's own rule for ``action``, legal but for the keys ``extra``; None: the
        engine's words (the keys are not part of such an action now)."""
        return None

    def _advance(self) -> None:
        """Apply forced actions until a seat has a real choice or the match is over."""
        while self._turn is not None:
            legal = self._legal_actions()
            if len(legal) != 1:
                self._legal = legal
                return
            self._do(legal[0], True)
        self._legal = []

    def places(self) -> list[int]:
        """Each seat's place, 1 = first, as the game ranks the scores (``Game.places``)."""
        return self.game.places(self.scores())

    def ranking(self) -> list[int]:
        """Seats from first to last place; within a shared place, by seat number."""
        places = self.places()
        return sorted(range(self.players), key=lambda s: (places[s], s))

    def clone(self) -> Self:
        """An independent copy, cheap enough for search bots."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.actions = self.actions.copy()
        new.log = self.log.copy()
        new._vis = self._vis.copy()
        self._copy_into(new)
        return new

    def to_json(self) -> dict[str, Any]:
        """The match's inputs and the callers' actions: enough to rebuild it with :func:`load`."""
        return {
            "game": self.game.name,
            "players": self.players,
            "seed": self.seed,
            "options": copy.deepcopy(self.options),
            "deck": copy.deepcopy(self.deck),
            # Actions are flat dicts of scalars and card lists: a two-level copy is enough,
            # and far cheaper than deepcopy on the long action lists of a whole match.
            "actions": [{k: (v.copy() if isinstance(v, list) else v) for k, v in a.items()} for a in self.actions],
        }

    def __repr__(self) -> str:
        turn = "over" if self._turn is None else f"seat {self._turn} to act"
        return f"<{type(self).__name__} {self.players} players, seed {self.seed!r}, {turn}>"

    # ------------------------------------------------------------------ helpers for games

    def _event(
        self, event: Event, seats: int | Iterable[int] | None = None, others: Event | None = None
    ) -> None:
        """Log an event: public if ``seats`` is None, else seen whole only by ``seats``;
        everyone else sees ``others`` (a redacted copy) or nothing at all."""
        self.log.append(event)
        if seats is None:
            self._vis.append(None)
        else:
            self._vis.append(((seats,) if isinstance(seats, int) else tuple(seats), others))

    def _events_for(self, seat: int | None, start: int = 0) -> list[Event]:
        """The log from index ``start`` as ``seat`` may see it (None: a spectator)."""
        out = []
        log = self.log
        vis = self._vis
        for i in range(start, len(log)):
            v = vis[i]
            if v is None:
                out.append(log[i])
            elif seat in v[0]:
                out.append(log[i])
            elif v[1] is not None:
                out.append(v[1])
        return out


def places_from(values: Sequence[float], higher_is_better: bool = True) -> list[int]:
    """Competition places for ``values``: 1 for the best, equal values share (1, 1, 3)."""
    sign = -1 if higher_is_better else 1
    ordered = sorted(sign * v for v in values)
    first: dict[float, int] = {}
    for i, v in enumerate(ordered):
        first.setdefault(v, i + 1)
    return [first[sign * v] for v in values]


def stacked_decks(deck: Any, what: str = "deck") -> list[Any]:
    """Normalise ``deck``: one deck (a list of codes, or a dict for two-stock games) stacks
    the first hand; a list of decks stacks the first hands in turn (EC-1)."""
    if deck is None:
        return []
    if isinstance(deck, dict):
        return [deck]
    if isinstance(deck, (list, tuple)):
        if deck and all(isinstance(d, (list, tuple, dict)) for d in deck):
            return list(deck)
        if all(isinstance(c, str) for c in deck):
            return [deck]
    raise InvalidOptions(f"{what} must be a list of card codes or a list of such decks")


