"""What the service accepts: a bound for every input a stranger with an account, or a bot
author, can set, so that no request makes the service do unbounded work, store a number
that overflows its column, or fail with a 500.

Pure: data, and small checks that raise :class:`ServiceError` naming the field and the
limit (no ORM; the services call these before they store or run anything). The same numbers
are listed for people in docs/games/*.md ("Limits in tournaments"), docs/bots.md ("Through
the tournament service") and docs/tournaments.md ("Input bounds"). Three budgets decide them:

* **Columns.** Seat.score is a 32-bit integer. Every game option has a ceiling such that the
  largest score a match can reach stays below 2**31 - 1 = 2,147,483,647 by a factor of 10 at
  least; the worst case is worked out next to each game's ceilings.
* **Time.** A bot match is played by one worker under a lease renewed by a heartbeat while
  the worker makes progress (MATCH_STUCK_SECONDS, 900 s by default): at the ceilings the engine
  and the heuristic bots play a match in seconds (at most MATCH_TURNS_MAX turns), and whatever a
  built-in bot's options, its thinking is held to services.clocks (BOT_DECISION_SECONDS a
  decision, a share of BOT_MATCH_SECONDS a match).
  docs/bots.md, "Time at the service's tables", gives the worst case per game.
* **Size.** Lists a request may hold (headers, arguments, tie-breaks, menus of bet amounts the
  engine builds and sends to every bot at each decision) are short.
"""

from __future__ import annotations

import math
import re
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import bots
from tournaments import games
from tournaments.errors import ServiceError
from tournaments.games.base import MATCH_TURNS_MAX, MENU_MAX, Bound  # noqa: F401  (the limits' own names too)

# --------------------------------------------------------------------------- columns

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1  # IntegerField (Seat.score)
POSITIVE_INT_MAX = 2**31 - 1  # PositiveIntegerField (Entry.seed_rank, Round.number, ...)
POSITIVE_SMALL_INT_MAX = 32767  # PositiveSmallIntegerField (table_size, division_size, ...)
SEED_LIMIT = 2**63  # BigIntegerField seeds: 0 <= seed < 2**63, what derive_seed makes
# A league's name and slug leave room for what its divisions' tournaments add to them
# (", season 12345, division 1024" and "-s12345-d1024") within Tournament.name (120) and
# Tournament.slug (80).
LEAGUE_NAME_MAX = 80
LEAGUE_SLUG_MAX = 60
REASON_MAX = 200  # Entry.disqualified, ResultSubmission.reason (kept whole in the audit log too)

# --------------------------------------------------------------------------- tournaments

#: Entrants in one tournament (and players in one league division). A round robin of 1024
#: at tables of two is 1023 rounds of 512 matches: the most one request can set in motion.
MAX_ENTRIES = 1024
ROUND_INTERVAL_MIN = timedelta(minutes=1)  # the periodic tick runs every minute by default
ROUND_INTERVAL_MAX = timedelta(days=366)  # a round a year, leap years included
MOVE_SECONDS_MIN = 5  # an online seat's time per action: a round trip and a thought
MOVE_SECONDS_MAX = 86_400  # a day: correspondence play
BANK_SECONDS_MAX = 7 * 86_400  # an online seat's reserve for a whole match: a week
STARTS_AT_AHEAD_MAX = timedelta(days=3653)  # ten years
#: Every round of a periodic tournament is due within this span of its first: the dates
#: stay far from datetime's year 9999 (an OverflowError in the periodic tick otherwise).
SCHEDULE_SPAN_MAX = timedelta(days=36525)  # a century
POINTS_MAX = 10**6  # |match points| per place; standings add them over at most 1023 rounds
TIEBREAKS_MAX = 16  # more than the known tie-breaks: any longer list repeats one
#: Upper bounds of formats' integer settings (their own checks give the lower bounds, and
#: bound min_seats and advance by the table size). rounds: a Swiss of 100 rounds is far past
#: what ranks 1024 entrants (log2 1024 = 10); cycles: each repeats a whole round robin.
FORMAT_INT_MAX = {"rounds": 100, "cycles": 10}
#: Settings that are numbers (points per place, a bye's points): plain JSON numbers only,
#: never strings (the formats read "1e10000000" as an exact Fraction: seconds of CPU).
FORMAT_NUMBERS = {"points", "bye_points"}

# --------------------------------------------------------------------------- engine options


# Each game's bounds are declared in its module of tournaments/games/ (``option_bounds``,
# ``engine_bounded``, ``options_problem``, with the worst-case scores worked out next to them);
# Bound, MENU_MAX (the most amounts a menu of bets or stakes lists) and MATCH_TURNS_MAX (the
# most turns a match may run) are in tournaments/games/base.py, and named here too.


def check_game_options(game: str, players: int, options: Mapping[str, Any], field: str = "options") -> None:
    """The tournament ceilings for ``options``: the full option set the engine resolved for a
    table of ``players`` (defaults included, so a default that depends on other options, such
    as Stoppa's max_bet = N·ante, is bounded too). An option the limits do not know is
    refused: an engine option is accepted in tournaments only once it is bounded here."""
    declared = games.get(game)
    bounds = declared.option_bounds
    known = declared.engine_bounded
    for name, value in options.items():
        bound = bounds.get(name)
        if bound is None:
            if name not in known:
                raise ServiceError(f"option {name!r} is not accepted in tournaments of {game}", field)
            continue
        if value is None:
            continue
        if not _within(value, bound.low, bound.high, whole=True):
            raise ServiceError(
                f"option {name!r} must be from {bound.low} to {bound.high} in a tournament "
                f"({bound.why}), got {value!r}",
                field,
            )
    problem = declared.options_problem(options)
    if problem is not None:
        raise ServiceError(problem, field)


# --------------------------------------------------------------------------- built-in bots


@dataclass(frozen=True)
class Setting:
    """One option of a built-in bot, as the service accepts it.

    ``kind``: ``int``, ``number`` (int or float, finite), ``choice`` (one of ``choices``),
    ``bot`` (the name of a built-in bot that does not search: a rollout policy) or ``phases``
    (a list of the game's phase names, no repeats). ``nullable``: null takes the bot's
    default."""

    kind: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    nullable: bool = False
    why: str = ""


#: Built-in bots that search: never a rollout policy (an ismcts inside an ismcts multiplies
#: their budgets).
SEARCH_BOTS = frozenset({"ismcts"})

#: Per game, ismcts's ``iterations`` ceiling (``ismcts_iterations`` in tournaments/games/):
#: about one second a decision at the largest table and default options (measured). Longer
#: matches (Spacca il mazzo's ``games``, Piazza's ``french_double``, ``horizon`` "match") make
#: each iteration longer: the service's time (services.clocks) is what holds whatever the options.
_ISMCTS_CEILINGS = {name: game.ismcts_iterations for name, game in games.GAMES.items()
                    if game.ismcts_iterations is not None}

#: The options each built-in bot accepts through the service; anything else is refused.
BOT_OPTIONS: dict[str, dict[str, Setting]] = {
    "random": {},
    "heuristic": {},
    "expectimax": {
        "bank_edge": Setting("number", 0, 1, why="the banker's edge per participant and chip staked"),
    },
    "ismcts": {
        "iterations": Setting("int", 1, max(_ISMCTS_CEILINGS.values()), nullable=True,
                              why="samples a decision; per game at most " + ", ".join(
                                  f"{g} {n}" for g, n in sorted(_ISMCTS_CEILINGS.items()))),
        "time_ms": Setting("number", 1, 1000, nullable=True, why="milliseconds a decision"),
        "rollout": Setting("bot", nullable=True, why="a built-in bot that does not search and plays the game"),
        "exploration": Setting("number", 0, 10, why="UCB's c"),
        "horizon": Setting("choice", choices=("hand", "match"), nullable=True),
        "resample": Setting("int", 0, 20, why="redraws of a determinization, each as costly as a short iteration"),
        "delegate": Setting("phases", nullable=True, why="phases of the game, each at most once"),
        "guard": Setting("number", 0, 10, nullable=True, why="standard errors"),
        "depth": Setting("int", 1, 1000, nullable=True, why="rollout moves before the estimate"),
        "mode": Setting("choice", choices=("tree", "paired"), nullable=True),
    },
}


def _is_number(value: Any) -> bool:
    """An int or a finite float (never a bool; an int too large for a float is still one)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _whole(value: Any) -> bool:
    """An int, never a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def _within(value: Any, low: Any, high: Any, *, whole: bool) -> bool:
    """``value`` is an integer (``whole``) or a finite number, from ``low`` to ``high``."""
    return (_whole(value) if whole else _is_number(value)) and low <= value <= high


def _range(low: Any, high: Any) -> str:
    return f"from {low} to {high}"


def check_bot_options(bot: str, options: Any, field: str = "bot_config.options") -> dict:
    """A built-in bot's options, each checked against :data:`BOT_OPTIONS` whatever the game
    (types, choices, bounds); an option the bot does not accept through the service is
    refused, naming those it does. The checks that depend on the game are
    :func:`bot_options_problem`'s."""
    if not isinstance(options, dict):
        raise ServiceError(f"{field} must be an object", "bot_config")
    accepted = BOT_OPTIONS.get(bot)
    if accepted is None:
        raise ServiceError(f"built-in bot {bot!r} is not accepted by the service", "bot_config")
    unknown = sorted(str(k) for k in options if k not in accepted)
    if unknown:
        takes = f"it accepts {', '.join(sorted(accepted))}" if accepted else "it takes no options"
        raise ServiceError(f"{field}: {bot} has no option {', '.join(map(repr, unknown))}; {takes}", "bot_config")
    for name, value in options.items():
        spec = accepted[name]
        where = f"{field}.{name}"
        if value is None:
            if not spec.nullable:
                raise ServiceError(f"{where} may not be null", "bot_config")
            continue
        if spec.kind in ("int", "number"):
            whole = spec.kind == "int"
            if not _within(value, spec.low, spec.high, whole=whole):
                what = "an integer" if whole else "a number"
                why = f" ({spec.why})" if spec.why else ""
                raise ServiceError(f"{where} must be {what} {_range(spec.low, spec.high)}{why}, got {value!r}",
                                   "bot_config")
        elif spec.kind == "choice":
            if value not in spec.choices:
                raise ServiceError(f"{where} must be one of {', '.join(map(repr, spec.choices))}, got {value!r}",
                                   "bot_config")
        elif spec.kind == "bot":
            rollouts = sorted(set(BOT_OPTIONS) - SEARCH_BOTS)
            if value not in rollouts:
                raise ServiceError(f"{where} must be a built-in bot that does not search: one of "
                                   f"{', '.join(rollouts)}, got {value!r}", "bot_config")
        elif spec.kind == "phases":
            every = sorted({p for game in games.GAMES.values() for p in game.phases})
            longest = max(len(game.phases) for game in games.GAMES.values())
            if (not isinstance(value, list) or len(value) > longest
                    or not all(isinstance(p, str) and p in every for p in value) or len(set(value)) != len(value)):
                raise ServiceError(f"{where} must list at most {longest} phase names, each once, from: "
                                   f"{', '.join(every)}; got {value!r}", "bot_config")
    return dict(options)


def bot_options_problem(bot: str, game: str, options: Mapping[str, Any]) -> str | None:
    """What keeps a built-in bot with these options (already through :func:`check_bot_options`)
    from playing ``game`` through the service, or None."""
    if bot != "ismcts":
        return None
    declared = games.GAMES.get(game)
    iterations = options.get("iterations")
    ceiling = declared.ismcts_iterations if declared is not None else None
    if iterations is not None and ceiling is not None and iterations > ceiling:
        return f"iterations must be at most {ceiling} for {game} (about a second a decision), got {iterations}"
    rollout = options.get("rollout")
    if rollout is not None:
        if rollout not in bots.available(game):
            return f"rollout {rollout!r} does not play {game}"
    delegate = options.get("delegate")
    if delegate:
        phases = declared.phases if declared is not None else ()
        wrong = [p for p in delegate if p not in phases]
        if wrong:
            names = ", ".join(phases) if phases else "none: its views have no phase"
            return f"delegate: {', '.join(map(repr, wrong))} is not a phase of {game} (its phases: {names})"
    return None


# --------------------------------------------------------------------------- external bots

#: Accepted keys of a bot_config per external kind.
HTTP_KEYS = ("url", "headers", "limits")
SUBPROCESS_KEYS = ("command", "limits")
URL_MAX = 2000  # what browsers and proxies reliably carry
HEADERS_MAX = 10
HEADER_NAME_MAX = 64
HEADER_VALUE_MAX = 4096  # room for a long bearer token (a JWT)
#: Headers the HTTP client or the protocol sets itself: a bot's config may not replace them.
RESERVED_HEADERS = frozenset({
    "host", "content-length", "content-type", "transfer-encoding", "connection", "keep-alive", "te",
    "trailer", "upgrade", "expect", "proxy-authorization", "proxy-connection",
})
COMMAND_ARGS_MAX = 64
COMMAND_ARG_MAX = 1000
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # an HTTP header name (RFC 9110 token)
_VISIBLE = re.compile(r"^[\t\x20-\x7e]*$")  # a header value: visible ASCII, spaces and tabs only


@dataclass(frozen=True)
class LimitBound:
    """One field of :class:`bots.external.Limits`: its floor, ceiling and unit."""

    low: float
    high: float
    whole: bool
    unit: str


#: The fields of bots.external.Limits a bot's config may set, with floor and ceiling. An
#: external seat may take up to startup + decisions × decision + bank seconds in a match.
EXTERNAL_LIMITS: dict[str, LimitBound] = {
    "startup": LimitBound(0.1, 60.0, False, "seconds"),
    "decision": LimitBound(0.01, 10.0, False, "seconds"),
    "bank": LimitBound(0.01, 120.0, False, "seconds"),
    "memory_mb": LimitBound(64, 4096, True, "MiB"),  # node needs 1 GiB of address space
    "answer_bytes": LimitBound(256, 1024 * 1024, True, "bytes"),
    "output_bytes": LimitBound(1024, 64 * 1024 * 1024, True, "bytes"),
    "stderr_bytes": LimitBound(256, 64 * 1024, True, "bytes"),  # a tail kept in memory
}


def check_external_limits(limits: Any, field: str = "bot_config.limits") -> dict:
    """An external bot's limits: some fields of bots.external.Limits, each within
    :data:`EXTERNAL_LIMITS`."""
    if not isinstance(limits, dict):
        raise ServiceError(f"{field} must be an object", "bot_config")
    unknown = sorted(str(k) for k in limits if k not in EXTERNAL_LIMITS)
    if unknown:
        raise ServiceError(f"{field} has no field {', '.join(map(repr, unknown))}; its fields: "
                           f"{', '.join(EXTERNAL_LIMITS)}", "bot_config")
    for name, value in limits.items():
        bound = EXTERNAL_LIMITS[name]
        if not _within(value, bound.low, bound.high, whole=bound.whole):
            what = "an integer" if bound.whole else "a number"
            raise ServiceError(f"{field}.{name} must be {what} of {bound.unit} {_range(bound.low, bound.high)}, "
                               f"got {value!r}", "bot_config")
    return dict(limits)


def check_keys(config: Mapping, accepted: Sequence[str], kind: str) -> None:
    """Refuse a bot_config key that bots of ``kind`` do not have, naming the ones they do."""
    unknown = sorted(str(k) for k in config if k not in accepted)
    if unknown:
        raise ServiceError(f"bot_config of {kind} bot has no key {', '.join(map(repr, unknown))}; "
                           f"its keys: {', '.join(accepted)}", "bot_config")


def url_host(url: Any) -> str:
    """The host a request to ``url`` goes to: its %-escapes decoded, as urllib decodes them
    before it connects (``127%2e0%2e0%2e1`` is 127.0.0.1); "" when it has none or does not parse."""
    try:
        return urllib.parse.unquote(urllib.parse.urlsplit(url).hostname or "")
    except (ValueError, TypeError, AttributeError):
        return ""


def check_http_url(url: Any, field: str = "bot_config.url", key: str = "bot_config") -> str:
    """An http bot's URL (or a webhook's: ``key`` is the request's field the error names): a
    string of at most URL_MAX characters, no spaces or control characters, that parses, http or
    https, with a host and no user:password (credentials go in ``headers``)."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ServiceError(f"{field} must be an http:// or https:// URL", key)
    if len(url) > URL_MAX:
        raise ServiceError(f"{field} must be at most {URL_MAX} characters, got {len(url)}", key)
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise ServiceError(f"{field} may not hold spaces or control characters (percent-encode them)", key)
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 -- raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise ServiceError(f"{field} does not parse as a URL: {exc}", key) from None
    if not parts.hostname:
        raise ServiceError(f"{field} must name a host", key)
    if parts.username is not None or parts.password is not None:
        raise ServiceError(f"{field} may not hold a user or password: send credentials in bot_config.headers",
                           key)
    return url


def check_http_headers(headers: Any, field: str = "bot_config.headers") -> dict:
    """Extra headers sent with every message to an http bot (e.g. ``Authorization``): at most
    HEADERS_MAX, names HTTP tokens of at most HEADER_NAME_MAX characters (each once, not one
    the client sets itself), values of at most HEADER_VALUE_MAX visible ASCII characters."""
    if not isinstance(headers, dict):
        raise ServiceError(f"{field} must be an object of header names and values", "bot_config")
    if len(headers) > HEADERS_MAX:
        raise ServiceError(f"{field} may hold at most {HEADERS_MAX} headers, got {len(headers)}", "bot_config")
    seen = set()
    for name, value in headers.items():
        if not isinstance(name, str) or not 1 <= len(name) <= HEADER_NAME_MAX or not _TOKEN.match(name):
            raise ServiceError(f"{field}: header name {name!r} must be 1 to {HEADER_NAME_MAX} letters, digits "
                               "or !#$%&'*+-.^_`|~", "bot_config")
        lowered = name.lower()
        if lowered in RESERVED_HEADERS:
            raise ServiceError(f"{field}: header {name!r} is set by the service, not by a bot's config", "bot_config")
        if lowered in seen:
            raise ServiceError(f"{field}: header {name!r} is given twice", "bot_config")
        seen.add(lowered)
        if not isinstance(value, str) or len(value) > HEADER_VALUE_MAX or not _VISIBLE.match(value):
            raise ServiceError(f"{field}.{name} must be a string of at most {HEADER_VALUE_MAX} visible ASCII "
                               "characters (no line breaks)", "bot_config")
    return dict(headers)


def check_http_config(config: Mapping[str, Any]) -> dict:
    """An http bot's bot_config: ``url``, optional ``headers`` and ``limits``; nothing else."""
    check_keys(config, HTTP_KEYS, "an http")
    checked = {"url": check_http_url(config.get("url"))}
    if config.get("headers") is not None:
        checked["headers"] = check_http_headers(config["headers"])
    if config.get("limits") is not None:
        checked["limits"] = check_external_limits(config["limits"])
    return checked


def check_subprocess_config(config: Mapping[str, Any]) -> dict:
    """A subprocess bot's bot_config: ``command`` (an argv list of at most COMMAND_ARGS_MAX
    strings of at most COMMAND_ARG_MAX characters, no NUL, the program not empty) and optional
    ``limits``; nothing else."""
    check_keys(config, SUBPROCESS_KEYS, "a subprocess")
    command = config.get("command")
    if not (isinstance(command, list) and command and all(isinstance(a, str) for a in command) and command[0]):
        raise ServiceError("bot_config.command must be a non-empty list of strings", "bot_config")
    if len(command) > COMMAND_ARGS_MAX:
        raise ServiceError(f"bot_config.command may hold at most {COMMAND_ARGS_MAX} arguments, got {len(command)}",
                           "bot_config")
    for i, arg in enumerate(command):
        if len(arg) > COMMAND_ARG_MAX or "\x00" in arg:
            raise ServiceError(f"bot_config.command[{i}] must be at most {COMMAND_ARG_MAX} characters, without NUL",
                               "bot_config")
    checked: dict[str, Any] = {"command": list(command)}
    if config.get("limits") is not None:
        checked["limits"] = check_external_limits(config["limits"])
    return checked


# --------------------------------------------------------------------------- numbers and times


def check_int(value: Any, field: str, low: int, high: int, what: str = "") -> int:
    """An integer (not a bool) from ``low`` to ``high``; ``what`` says why the bound."""
    if not _within(value, low, high, whole=True):
        why = f" ({what})" if what else ""
        raise ServiceError(f"{field} must be an integer from {low} to {high}{why}, got {value!r}", field)
    return value


def check_seed(value: Any, field: str = "seed") -> int:
    """A seed: 0 <= seed < 2**63 (a 64-bit column, and what derive_seed makes)."""
    if not _within(value, 0, SEED_LIMIT - 1, whole=True):
        raise ServiceError(f"{field} must be an integer from 0 to 2**63 - 1 ({SEED_LIMIT - 1}), got {value!r}", field)
    return value


def check_text(value: Any, field: str, max_length: int) -> str:
    if not isinstance(value, str) or len(value) > max_length:
        raise ServiceError(f"{field} must be a string of at most {max_length} characters", field)
    return value


def _duration(value: timedelta) -> str:
    return "1 minute" if value == ROUND_INTERVAL_MIN else f"{value.days} days"


def check_round_interval(value: Any, field: str = "round_interval", required: bool = False) -> timedelta | None:
    """Time between two rounds: from ROUND_INTERVAL_MIN to ROUND_INTERVAL_MAX (None, when not
    ``required``: rounds follow one another at once)."""
    if value is None and not required:
        return None
    if not isinstance(value, timedelta) or not ROUND_INTERVAL_MIN <= value <= ROUND_INTERVAL_MAX:
        got = value if isinstance(value, timedelta) else repr(value)
        raise ServiceError(
            f"{field} must be a duration from {_duration(ROUND_INTERVAL_MIN)} to {_duration(ROUND_INTERVAL_MAX)}, "
            f"got {got}",
            field,
        )
    return value


def check_starts_at(value: Any, now: datetime, field: str = "starts_at") -> datetime | None:
    """When a tournament starts: None (when started), or a date at most ten years ahead."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise ServiceError(f"{field} must be a date and time", field)
    if value.utcoffset() is None:
        raise ServiceError(f"{field} must be a date and time with its time zone", field)
    if value - now > STARTS_AT_AHEAD_MAX:
        raise ServiceError(f"{field} must be at most 10 years ahead ({STARTS_AT_AHEAD_MAX.days} days), got {value}",
                           field)
    return value


def check_schedule(interval: timedelta | None, rounds: int | None, field: str = "round_interval") -> None:
    """A periodic tournament's ``rounds`` rounds, one every ``interval``, are all due within
    SCHEDULE_SPAN_MAX of the first (dates stay far from the year 9999)."""
    if interval is None or not rounds or rounds < 2:
        return
    span = interval.total_seconds() * (rounds - 1)
    if span > SCHEDULE_SPAN_MAX.total_seconds():
        raise ServiceError(
            f"{rounds} rounds a {interval} apart would take {span / 86400 / 365.25:.0f} years: a tournament's "
            f"rounds must all be due within 100 years",
            field,
        )


def check_points_by_place(points: Sequence[Any], field: str = "points_by_place") -> None:
    """Match points: finite numbers of at most POINTS_MAX in size."""
    for p in points:
        if not _is_number(p) or abs(p) > POINTS_MAX:
            raise ServiceError(f"{field} must hold finite numbers from -{POINTS_MAX} to {POINTS_MAX}, got {p!r}", field)


def check_tiebreaks(tiebreaks: Sequence[Any], field: str = "tiebreaks") -> None:
    """At most TIEBREAKS_MAX names, none twice (the standings refuse a repeated one)."""
    if len(tiebreaks) > TIEBREAKS_MAX:
        raise ServiceError(f"{field} may list at most {TIEBREAKS_MAX} names, got {len(tiebreaks)}", field)
    repeated = sorted({str(t) for t in tiebreaks if list(tiebreaks).count(t) > 1})
    if repeated:
        raise ServiceError(f"{field} lists {', '.join(repeated)} more than once: each tie-break at most once", field)


def check_format_config(config: Mapping[str, Any], field: str = "format_config") -> None:
    """The upper bounds of a format's settings (FORMAT_INT_MAX) and plain numbers for points
    (FORMAT_NUMBERS); the format checks the rest."""
    for name, value in config.items():
        high = FORMAT_INT_MAX.get(name)
        if high is not None and _whole(value) and value > high:
            raise ServiceError(f"{name} must be at most {high} in a tournament, got {value}", field)
        if name in FORMAT_NUMBERS and value is not None:
            values = value if isinstance(value, list) else [value]
            for v in values:
                if not _is_number(v) or abs(v) > POINTS_MAX:
                    raise ServiceError(f"{name} must hold numbers from -{POINTS_MAX} to {POINTS_MAX}, got {v!r}",
                                       field)


# --------------------------------------------------------------------------- results


def check_scores(scores: Any, n: int, field: str = "scores") -> list[int]:
    """A result's scores: one integer per seat, each within the 32-bit score column."""
    if not isinstance(scores, list) or len(scores) != n or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in scores
    ):
        raise ServiceError(f"scores must list {n} integers, one per seat", field)
    for seat, score in enumerate(scores):
        if not INT32_MIN <= score <= INT32_MAX:
            raise ServiceError(
                f"scores must be integers from {INT32_MIN} to {INT32_MAX} (a 32-bit integer column): "
                f"seat {seat} has {score}",
                field,
            )
    return scores


def check_places(places: Any, n: int, field: str = "places") -> list[int]:
    """A result's places: one integer per seat, a competition ranking (place p shared by k
    seats, the next place p + k; so every place is from 1 to n)."""
    if not isinstance(places, list) or len(places) != n or not all(
        isinstance(p, int) and not isinstance(p, bool) for p in places
    ):
        raise ServiceError(f"places must list {n} integers, one per seat", field)
    expected = 1
    for place in sorted(set(places)):
        if place != expected:
            raise ServiceError(f"places {places} skip or repeat: expected place {expected} next", field)
        expected += places.count(place)
    return places


def check_reported(game: Any, scores: list[int], places: list[int]) -> None:
    """A result people report must agree with itself: in a zero-sum game (``game.zero_sum``)
    the scores add up to 0, and the places are those the game gives these scores
    (``game.places``). The message names the seats at fault."""
    if getattr(game, "zero_sum", False) and sum(scores) != 0:
        raise ServiceError(
            f"scores of a {game.title} match add up to 0 (chips only change hands); these add up to {sum(scores)}",
            "scores",
        )
    expected = list(game.places(scores))
    if list(places) == expected:
        return
    n = len(scores)
    worst = None  # the most glaring contradiction: the widest score gap placed wrongly
    for a in range(n):
        for b in range(n):
            if scores[a] > scores[b] and places[a] >= places[b]:
                gap = scores[a] - scores[b]
                if worst is None or gap > worst[0]:
                    worst = (gap, a, b)
    if worst is not None:
        _, a, b = worst
        how = "is placed behind it" if places[a] > places[b] else f"shares its place {places[a]}"
        raise ServiceError(
            f"places must follow the scores: seat {a} scored {scores[a]}, more than seat {b} ({scores[b]}), "
            f"but {how}; for these scores the places are {expected}",
            "places",
        )
    for a in range(n):
        for b in range(a + 1, n):
            if scores[a] == scores[b] and places[a] != places[b]:
                raise ServiceError(
                    f"places must follow the scores: seat {a} and seat {b} scored the same ({scores[a]}) but are "
                    f"placed {places[a]} and {places[b]}: equal scores share a place; for these scores the places "
                    f"are {expected}",
                    "places",
                )
    raise ServiceError(f"places must follow the scores: for scores {scores} the places are {expected}", "places")
