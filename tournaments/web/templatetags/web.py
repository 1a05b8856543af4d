"""Filters the pages' templates share: the service's values in the reader's words and numbers, and
the page's own address for the links that come back to it."""

from __future__ import annotations

from urllib.parse import urlsplit

from django import template
from django.urls import Resolver404, resolve
from django.utils.formats import number_format
from django.utils.http import url_has_allowed_host_and_scheme

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


# --- the page's own address ------------------------------------------------------------------------

def answers_get(path: str) -> bool:
    """Whether a GET of ``path`` (a path of this site) draws a page: a view is found for it and
    it takes GET (a function view's require_http_methods, which keeps its methods only in its
    closure; a class-based view's ``get``). A path no view answers does not."""
    try:
        view = resolve(path).func
    except Resolver404:
        return False
    view_class = getattr(view, "view_class", None)
    if view_class is not None:
        return hasattr(view_class, "get") and "get" in view_class.http_method_names
    while view is not None:
        code = getattr(view, "__code__", None)
        if code is not None and "request_method_list" in code.co_freevars and view.__closure__:
            return "GET" in view.__closure__[code.co_freevars.index("request_method_list")].cell_contents
        view = getattr(view, "__wrapped__", None)
    return True  # no method declared: it takes any


@register.simple_tag(takes_context=True)
def page_url(context) -> str:
    """Where a link or form that comes back to this page goes (the language switch, the sign-in
    link's ``next``): the address asked for, when a GET answers it. A page drawn for a form sent
    to an address only a POST answers (a refused form) is the page the form was sent from (the
    Referer, on this site) or else the nearest address above it that a GET answers (``/organise/
    5/start/`` goes back to ``/organise/5/``): a GET of its own address answers 405, blank."""
    request = context.get("request")
    if request is None:
        return "/"
    if request.method in ("GET", "HEAD") or answers_get(request.path_info):
        return request.get_full_path()
    referer = request.META.get("HTTP_REFERER", "")
    if referer and url_has_allowed_host_and_scheme(referer, allowed_hosts={request.get_host()},
                                                   require_https=request.is_secure()):
        parts = urlsplit(referer)
        if answers_get(parts.path):
            return parts.path + (f"?{parts.query}" if parts.query else "")
    path = request.path_info.rstrip("/")
    while path:
        path = path.rsplit("/", 1)[0]
        if answers_get(path + "/"):
            return path + "/"
    return "/"
