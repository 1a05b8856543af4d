"""The external-bot protocol, whatever carries it: messages, limits and the clock.

Messages: ``start`` (game, seat, players, options, seed, time limits, first view), ``act``
(the view, legal actions included; the answer is ``{"action": {...}}``) and ``finish``
(final view and scores). Only ``act`` is answered. docs/bots.md is the bot author's
reference.

Limits (:class:`Limits`): start-up time (added to the first decision's allowance), time per
decision, a time bank per match that pays for decisions over their limit, memory (RLIMIT_AS),
answer size and total output, and a bounded stderr tail. Breaking one raises
:class:`~bots.base.BotFailure`, which the match runner turns into a forfeit; it never stops a
match.

:class:`ExternalBot` is what both transports share (the messages, the clock, the match id);
a transport (:mod:`bots.external.subprocess`, :mod:`bots.external.http`) implements its
``_start``, ``_ask`` and ``_tell`` hooks.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ..base import Action, Bot, BotFailure, View

__all__ = ["PROTOCOL", "ExternalBot", "Limits"]

PROTOCOL = 1


@dataclass(frozen=True)
class Limits:
    """What an external bot may use in one match. Times in seconds, sizes in bytes.

    A decision may take ``decision`` seconds; time beyond that is drawn from ``bank``, and a
    decision that would overdraw the bank is a timeout. The first decision also gets
    ``startup`` seconds for starting the program. ``memory_mb`` is the address-space limit
    (RLIMIT_AS): runtimes that reserve address space up front need room (node: 1 GiB at
    least). ``answer_bytes`` caps one answer line, ``output_bytes`` all of stdout in the
    match; ``stderr_bytes`` is how much of stderr's tail is kept for the forfeit detail.
    """

    startup: float = 10.0
    decision: float = 1.0
    bank: float = 10.0
    memory_mb: int = 2048
    answer_bytes: int = 64 * 1024
    output_bytes: int = 4 * 1024 * 1024
    stderr_bytes: int = 8 * 1024

    @classmethod
    def of(cls, value: Limits | Mapping[str, Any] | None) -> Limits:
        """Limits from a Limits, a dict of some of its fields, or None (the defaults)."""
        if value is None:
            return cls()
        if isinstance(value, Limits):
            return value
        unknown = set(value) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown limit(s) {', '.join(sorted(unknown))}")
        return replace(cls(), **value)

    def for_bot(self) -> dict[str, float]:
        """The time limits as told to the bot in ``start``."""
        return {"startup": self.startup, "decision": self.decision, "bank": self.bank}


class _Clock:
    """Time per decision plus a bank for overruns; the first decision also gets start-up."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.bank = limits.bank
        self.first = True

    def allowance(self) -> float:
        base = self.limits.decision + (self.limits.startup if self.first else 0.0)
        return base + max(self.bank, 0.0)

    def charge(self, elapsed: float) -> None:
        base = self.limits.decision + (self.limits.startup if self.first else 0.0)
        self.first = False
        if elapsed > base:
            self.bank -= elapsed - base

    def describe(self) -> str:
        startup = f" + {self.limits.startup} s start-up" if self.first else ""
        return (
            f"no answer within {self.limits.decision} s per decision{startup}"
            f" + {max(self.bank, 0.0):.3f} s left in the time bank"
        )


class ExternalBot(Bot):
    """What both transports share: the messages, the clock, the match id."""

    #: Whether the bot's side of a match outlives this object: an HTTP bot's does (its server
    #: keeps the match between requests), a subprocess bot's process does not.
    session_outlives = False
    clocked = True  # its Limits, enforced by the transport (a process killed, a request cut)

    def __init__(self, game: str, seed: int | str | None = None, *, limits: Any = None) -> None:
        super().__init__(game, seed)
        self.limits = Limits.of(limits)
        self.clock = _Clock(self.limits)
        self.match_id = uuid.uuid4().hex
        self.seat: int | None = None
        self.started = False

    def resume(self, seat: int, *, match: str, bank: float | None, started: bool) -> None:
        """Go on with a match this bot plays one decision at a time, each maybe in another
        process (an online table, where the match waits for people between its turns): the
        match's id as the bot knows it, what is left of its time bank (None: all of it), and
        whether it has had ``start``. A bot whose side of the match does not outlive this
        object (a subprocess) is sent ``start`` again, and has its start-up time again."""
        self.match_id = match
        self.seat = seat
        if bank is not None:
            self.clock.bank = bank
        if started and self.session_outlives:
            self.started = True
            self.clock.first = False

    @property
    def bank_left(self) -> float:
        """The seconds left in the bot's time bank for this match."""
        return max(self.clock.bank, 0.0)

    # -- the Bot interface; the runner calls start_match/finish_match when it can

    def start(self, seat: int, view: View) -> None:
        self.start_match(seat, view, players=view.get("players"), options={})

    def start_match(
        self, seat: int, view: View, *, players: int | None, options: Mapping[str, Any]
    ) -> None:
        self.seat = seat
        self.started = True
        self._start(
            {
                "type": "start",
                "protocol": PROTOCOL,
                "match": self.match_id,
                "game": self.game,
                "seat": seat,
                "players": players,
                "options": dict(options),
                "seed": self.seed,
                "time_limits": self.limits.for_bot(),
                "view": view,
            }
        )

    def act(self, view: View) -> Action:
        if not self.started:
            self.start(view.get("seat", 0), view)
        message = {
            "type": "act",
            "match": self.match_id,
            "time_bank": round(max(self.clock.bank, 0.0), 3),
            "view": view,
        }
        allowance = self.clock.allowance()
        began = time.monotonic()
        answer = self._ask(message, allowance)
        elapsed = time.monotonic() - began
        if elapsed > allowance:
            raise BotFailure("timeout", self.clock.describe() + self._tail())
        self.clock.charge(elapsed)
        return _action_of(answer)

    def finish(self, seat: int, view: View) -> None:
        self.finish_match(seat, view, scores=view.get("scores"))

    def finish_match(self, seat: int, view: View, *, scores: Sequence[int] | None) -> None:
        if self.started:
            self._tell({"type": "finish", "match": self.match_id, "view": view,
                        "scores": None if scores is None else list(scores)})

    def close(self) -> None:
        """Release everything the bot holds; safe to call more than once."""

    # -- transport hooks

    def _start(self, message: dict) -> None:
        raise NotImplementedError

    def _ask(self, message: dict, timeout: float) -> bytes:
        raise NotImplementedError

    def _tell(self, message: dict) -> None:
        raise NotImplementedError

    def _tail(self) -> str:
        return ""


def _action_of(answer: bytes) -> Action:
    """The action in an answer line ``{"action": {...}}``; anything else is malformed."""
    shown = answer[:300].decode("utf-8", "replace") + ("..." if len(answer) > 300 else "")
    try:
        message = json.loads(answer)
    except ValueError as exc:
        raise BotFailure("malformed", f"answer is not JSON ({exc}): {shown!r}") from None
    if not isinstance(message, dict) or "action" not in message:
        raise BotFailure("malformed", f'answer is not an object with "action": {shown!r}')
    return message["action"]


def encode(message: dict) -> bytes:
    """A message as the transports send it: one line of compact JSON."""
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()
