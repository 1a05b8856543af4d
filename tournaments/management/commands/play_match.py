"""`manage.py play_match GAME BOT BOT ...`: one seeded match between built-in bots, printed
hand by hand, with no database.

The log is printed from `state.log` without knowing its event types in advance: every event is
shown as `type: key=value ...`. The last seat is the first dealer (the engine's default).
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterable, Sequence
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tournaments import matchplay

from .run_tournament import parse_pairs

# Event types that open a hand, used when events carry no "hand" number: the first of these that
# occurs in the log marks the start of every hand.
HAND_OPENERS = ("hand_start", "new_hand", "start_hand", "hand", "shuffle", "deal")


def format_value(value: Any) -> str:
    """Card lists as "7B KD", nested data compactly, everything else as str()."""
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + " ".join(f"{k}={format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def format_event(event: dict) -> str:
    """One log event as plain text: `type: key=value key=value`."""
    fields = " ".join(f"{key}={format_value(value)}" for key, value in event.items() if key != "type")
    kind = str(event.get("type", "?"))
    return f"{kind}: {fields}" if fields else kind


def split_hands(log: Sequence[dict]) -> list[list[dict]]:
    """Group the log into hands: where events carry an integer "hand" field, a hand starts when
    it changes; otherwise at each event of the first HAND_OPENERS type found in the log. Events
    before the first hand form a group of their own; a log with no recognisable hands is one group."""
    numbered = any(isinstance(event.get("hand"), int) for event in log)
    types = {event.get("type") for event in log}
    opener = None if numbered else next((t for t in HAND_OPENERS if t in types), None)
    groups: list[list[dict]] = [[]]
    current = None
    for event in log:
        if numbered:
            number = event.get("hand")
            starts = isinstance(number, int) and number != current
            current = number if isinstance(number, int) else current
        else:
            starts = event.get("type") == opener
        if starts and groups[-1]:
            groups.append([])
        groups[-1].append(event)
    return [group for group in groups if group]


def print_match(console: Console, outcome: Any, bot_names: Sequence[str], *, seed: int,
                options: dict) -> None:
    """The match's log, hand by hand, then each seat's score and place (a forfeit ranks last)."""
    state = outcome.state
    shown = escape(str(options)) if options else "the game's defaults"
    console.rule(f"[bold]{state.game.title}[/] seed={seed} seats={len(bot_names)} options: {shown}")
    hands = split_hands(state.log)
    for number, events in enumerate(hands, start=1):
        console.rule(f"Hand {number}" if len(hands) > 1 else "Match", style="cyan")
        for event in events:
            kind, _, rest = format_event(event).partition(":")
            console.print(f"[bold]{escape(kind)}[/]{escape(':' + rest) if rest else ''}", highlight=False)
    console.print(final_table(outcome.scores, outcome.places, bot_names))
    for seat, forfeit in sorted(outcome.forfeits.items()):
        console.print(f"seat {seat} forfeited: {escape(forfeit.reason)} {escape(forfeit.detail)}", highlight=False)


def final_table(scores: Iterable[int], places: Iterable[int], bot_names: Sequence[str]) -> Table:
    table = Table(title="Final result")
    table.add_column("Seat", justify="right")
    table.add_column("Bot")
    table.add_column("Score (chips)", justify="right")
    table.add_column("Place", justify="right")
    last = len(bot_names) - 1
    for seat, (name, score, place) in enumerate(zip(bot_names, scores, places)):
        role = f"{name} (first dealer)" if seat == last else name
        table.add_row(str(seat), role, f"{score:+d}", str(place))
    return table


class Command(BaseCommand):
    help = "Play one seeded match between built-in bots and print its log and result."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", help="engine game name, e.g. sette_e_mezzo")
        parser.add_argument("bots", nargs="+", help="one built-in bot name per seat, e.g. random heuristic random")
        parser.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
        parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                            help="engine option, e.g. hands=2 (repeatable)")

    def handle(self, *args: Any, game: str, bots: list[str], seed: int, option: list[str], **opts: Any) -> None:
        match_options = parse_pairs(option, "--option")
        try:
            outcome = matchplay.play(game, bots, seed=seed, options=match_options)
        except ValueError as exc:  # unknown game or bot, bad options
            raise CommandError(str(exc)) from None
        buffer = io.StringIO()
        console = Console(file=buffer, force_terminal=self.stdout.isatty(),
                          width=shutil.get_terminal_size().columns)
        print_match(console, outcome, bots, seed=seed, options=match_options)
        self.stdout.write(buffer.getvalue(), ending="")
