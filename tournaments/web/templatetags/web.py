"""Filters the pages' templates share: the service's values in the reader's words and numbers."""

from __future__ import annotations

from django import template
from django.utils.formats import number_format

from tournaments.models import RatingLadder
from tournaments.web import terms

register = template.Library()

MINUS = "\u2212"  # a real minus sign: as wide as the plus, and read as "minus"


@register.filter
def game(name: str) -> str:
    return terms.game_name(name)


@register.filter
def format_name(name: str) -> str:
    return terms.format_name(name)


@register.filter
def tournament_status(status: str) -> str:
    return str(terms.TOURNAMENT_STATUSES.get(status, status))


@register.filter
def match_status(status: str) -> str:
    return str(terms.MATCH_STATUSES.get(status, status))


@register.filter
def round_status(status: str) -> str:
    return str(terms.ROUND_STATUSES.get(status, status))


@register.filter
def player_kind(kind: str) -> str:
    return str(terms.PLAYER_KINDS.get(kind, kind))


@register.filter
def bot_kind(kind: str) -> str:
    return str(terms.BOT_KINDS.get(kind, kind))


@register.filter
def tiebreak_name(name: str) -> str:
    return str(terms.TIEBREAK_NAMES.get(name, name))


@register.filter
def rating_system(system: str) -> str:
    return terms.RATING_SYSTEMS.get(system, system)


@register.filter
def ordinal(n: int) -> str:
    return terms.ordinal(int(n))


@register.filter
def reached(label: str | None) -> terms.Said | None:
    return terms.reached(label)


@register.filter
def stage(label: str) -> str:
    return terms.stage(label) or label


def _rating_decimals(ladder: RatingLadder | None) -> int:
    # Elo ratings are in the hundreds and thousands: whole numbers say enough; openskill's
    # mu − 3σ lives around 0-50 and needs a decimal.
    return 0 if ladder is not None and ladder.system == "elo" else 1


@register.filter
def rating(value: float | None, ladder: RatingLadder | None = None) -> str:
    """A leaderboard value as the ladder's system is read, in the reader's number format."""
    if value is None:
        return "—"
    return number_format(value, decimal_pos=_rating_decimals(ladder), use_l10n=True)


@register.filter
def signed(value: float, ladder: RatingLadder | None = None) -> str:
    """A change with its sign: +12, −3, ±0."""
    shown = number_format(abs(value), decimal_pos=_rating_decimals(ladder), use_l10n=True)
    if float(shown.replace(",", ".")) == 0:
        return f"±{shown}"
    return f"+{shown}" if value > 0 else f"{MINUS}{shown}"


@register.filter
def points(value) -> str:
    """Match points and tie-break values as the API writes them (an integer, a float for
    halves and quarters, "p/q" otherwise), in the reader's number format; None: —."""
    if value is None:
        return "—"
    if isinstance(value, str):
        shown = value
    elif isinstance(value, float) and not value.is_integer():
        shown = number_format(value, decimal_pos=len(repr(value).split(".")[1]), use_l10n=True)
    else:
        shown = number_format(int(value), use_l10n=True)
    return MINUS + shown[1:] if shown.startswith("-") else shown
