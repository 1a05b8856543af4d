"""Model rows read and written in plain SQL, for the few statements that run on every move.

Building a query is most of what a small ORM query costs: a move's POST made six of them, at
about 1 ms each of which some 0.15 ms was the database (docs/online.md, "Load"). The
statements here are written once per database vendor and kept; the rows they read become model
instances exactly as the ORM makes them (``Model.from_db``, each value through the converters
the ORM would apply: a JSON field's text decoded, SQLite's datetime text parsed), and the values
they write go through each field's ``get_db_prep_save``, as a ``save`` sends them. So the code
that uses them sees the same objects, on SQLite and on PostgreSQL alike.

On PostgreSQL they run through :func:`cursor`: prepared once per connection, so that the server
plans them once (tournaments/db/postgresql/base.py).

Use them only where a statement runs on every request of a hot path and the ORM's version is
measured to cost more than the query; everything else reads and writes through the ORM.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import orjson
from django.db import connection, connections, models, router
from django.db.models import JSONField

from tournaments.models import (
    ApiToken,
    Match,
    MatchAction,
    Player,
    Rating,
    RatingChange,
    RatingLadder,
    Result,
    Round,
    Seat,
    Tournament,
)

_made: dict[tuple, object] = {}  # (vendor, key): what a ``made`` builder returned


def made(key: object, build: Callable[[], object]):
    """``build()`` for this connection's vendor, built once (a statement, its columns)."""
    found = _made.get((connection.vendor, key))
    if found is None:
        found = _made[(connection.vendor, key)] = build()
    return found


def cursor():
    """A cursor for this module's statements: on PostgreSQL (our backend), one whose statements
    are prepared once per connection, a history page's read 2.1 -> 0.9 ms; elsewhere Django's."""
    prepared = getattr(connection, "prepared_cursor", None)
    return prepared() if prepared is not None else connection.cursor()


def row(sql: str, params: Sequence) -> tuple | None:
    """The first row ``sql`` reads (through :func:`cursor`), or None."""
    with cursor() as running:
        running.execute(sql, params)
        return running.fetchone()


def rows(sql: str, params: Sequence) -> list[tuple]:
    """Every row ``sql`` reads (through :func:`cursor`)."""
    with cursor() as running:
        running.execute(sql, params)
        return running.fetchall()


def table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def column(model: type[models.Model], name: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(name).column)


def _steps(field: models.Field, alias: str) -> list:
    """The converters the ORM applies to ``field``'s column as the database returns it."""
    col = field.get_col(alias)
    return [*connection.ops.get_db_converters(col), *col.get_db_converters(connection)]


class Columns:
    """All of a model's columns in a SELECT, under a table alias (``select``), and the model
    instance made from them (``make``). Built for one vendor (see :func:`made`)."""

    def __init__(self, model: type[models.Model], alias: str) -> None:
        self.model = model
        self.alias = alias
        self.fields = model._meta.concrete_fields
        self.names = [f.attname for f in self.fields]
        quote = connection.ops.quote_name
        self.select = ", ".join(f"{alias}.{quote(f.column)}" for f in self.fields)
        self._converters = [(i, steps, f.get_col(alias)) for i, f in enumerate(self.fields)
                            if (steps := _steps(f, alias))]
        self._db = connection.alias

    def __len__(self) -> int:
        return len(self.fields)

    def make(self, row: Sequence, start: int = 0) -> models.Model:
        """The instance from ``row``'s columns ``start`` to ``start + len(self)``."""
        values = list(row[start:start + len(self.fields)])
        for i, steps, col in self._converters:
            value = values[i]
            for step in steps:
                value = step(value, col, connection)
            values[i] = value
        return self.model.from_db(self._db, self.names, values)


def partial(model: type[models.Model], values: dict) -> models.Model:
    """An instance of ``model`` with only these fields loaded (by attname; the others deferred,
    read from the database if ever touched), as ``only()`` makes it."""
    names = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db(connection.alias, names, [values[name] for name in names])


def converter(model: type[models.Model], name: str, alias: str = "") -> Callable:
    """What the ORM does to one column's value as the database returns it."""
    field = model._meta.get_field(name)
    col = field.get_col(alias or model._meta.db_table)
    steps = _steps(field, alias or model._meta.db_table)

    def convert(value):
        for step in steps:
            value = step(value, col, connection)
        return value

    return convert


def _prep(model: type[models.Model], values: dict) -> list:
    return [model._meta.get_field(name).get_db_prep_save(value, connection) for name, value in values.items()]


def insert(model: type[models.Model], values: dict) -> None:
    """INSERT one row of ``model`` (its columns named as the fields' attnames: ``match_id``);
    fields left out take the database's default, so give every field without one. Errors are
    Django's (IntegrityError on a constraint), as with ``create``."""
    names = tuple(values)

    def build() -> str:
        columns = ", ".join(connection.ops.quote_name(model._meta.get_field(n).column) for n in names)
        return f"INSERT INTO {table(model)} ({columns}) VALUES ({', '.join(['%s'] * len(names))})"

    sql = made(("insert", model, names), build)
    with cursor() as running:
        running.execute(sql, _prep(model, values))


def update(model: type[models.Model], pk: object, values: dict) -> int:
    """UPDATE the row of ``model`` whose primary key is ``pk``; returns the rows changed (0 or 1)."""
    names = tuple(values)

    def build() -> str:
        sets = ", ".join(f"{connection.ops.quote_name(model._meta.get_field(n).column)} = %s" for n in names)
        return f"UPDATE {table(model)} SET {sets} WHERE {connection.ops.quote_name(model._meta.pk.column)} = %s"

    sql = made(("update", model, names), build)
    with cursor() as running:
        running.execute(sql, [*_prep(model, values), pk])
        return running.rowcount


# --- The service's other hand-written statements -------------------------------------------------
#
# Every statement written by hand lives in this module (tests/tournaments/test_plain.py scans the
# others), each in a function named for what it reads or writes, its tables and columns quoted
# (connection.ops.quote_name, through :func:`table` and :func:`column`).

def ping() -> None:
    """Run the trivial ``SELECT 1`` (/healthz: does the database answer?); raises DatabaseError
    when it does not. Through Django's own cursor, not a prepared one: the check is of the
    connection as every request finds it."""
    with connection.cursor() as running:
        running.execute("SELECT 1")
        running.fetchone()


def token_with_user(prefix: str):
    """The API token row of ``prefix`` with its user loaded, or None, in one statement (every
    request with a token reads it: services.tokens.token_find)."""
    def build():
        user_model = ApiToken._meta.get_field("user").related_model
        token, user = Columns(ApiToken, "t"), Columns(user_model, "u")
        sql = (f"SELECT {token.select}, {user.select} FROM {table(ApiToken)} t "
               f"JOIN {table(user_model)} u ON u.{column(user_model, 'id')} = t.{column(ApiToken, 'user')} "
               f"WHERE t.{column(ApiToken, 'prefix')} = %s")
        return sql, token, user

    sql, token, user = made("token_find", build)
    found = row(sql, [prefix])
    if found is None:
        return None
    made_token = token.make(found)
    ApiToken._meta.get_field("user").set_cached_value(made_token, user.make(found, len(token)))
    return made_token


def json_text(value) -> str | None:
    """A JSON field's value as the text the database stores. orjson, not json: a match's replay
    record is ~6 KB of small objects, and json.dumps of it cost ~90 us against orjson's ~8."""
    if value is None:
        return None
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # what orjson does not take (e.g. int keys), json does as Django would
        return json.dumps(value)


# SQLite's default limit on bound parameters in one statement.
_MAX_PARAMS = 999


def set_rows(model: type[models.Model], fields: Sequence[str], given: Sequence[Sequence]) -> int:
    """Write ``fields`` of ``model``'s rows, each row given as (primary key, value of each field),
    in one UPDATE joined to a VALUES list per chunk (services.bulk.bulk_set_rows says why).
    A JSON field's value is the Python value (stored as JSON). Returns the rows written."""
    meta = model._meta
    db = connections[router.db_for_write(model)]
    pk = meta.pk
    columns = [meta.get_field(name) for name in fields]
    quote = db.ops.quote_name
    typed = db.vendor == "postgresql"  # VALUES columns need types there; SQLite has none

    def placeholder(field) -> str:
        return f"CAST(%s AS {field.cast_db_type(db)})" if typed else "%s"

    def prepare(field):
        if isinstance(field, JSONField) and field.encoder is None:
            return json_text  # text cast to jsonb (PostgreSQL) or stored as text (SQLite)
        return lambda value: field.get_db_prep_save(value, db)

    preparers = [prepare(f) for f in [pk, *columns]]
    row_sql = "(" + ", ".join(placeholder(f) for f in [pk, *columns]) + ")"
    name = quote(meta.db_table)
    # A VALUES list's columns are column1, column2, ... on both databases. The statement starts
    # with UPDATE (not WITH), so SQLite reports the rows it changed.
    assignments = ", ".join(f"{quote(f.column)} = v.column{i}" for i, f in enumerate(columns, start=2))
    per_statement = max(1, _MAX_PARAMS // (len(columns) + 1))
    written = 0
    with db.cursor() as running:
        for start in range(0, len(given), per_statement):
            chunk = given[start:start + per_statement]
            params = [prep(value) for one in chunk for prep, value in zip(preparers, one)]
            running.execute(
                f"UPDATE {name} SET {assignments} FROM (VALUES {', '.join([row_sql] * len(chunk))}) AS v "
                f"WHERE {name}.{quote(pk.column)} = v.column1",
                params,
            )
            written += running.rowcount
    return written


STANDINGS_STATE = ("status", "format", "format_config", "table_size", "duplicate", "points_by_place", "tiebreaks",
                   "standings_version")


def standings_state(tournament_id: int) -> tuple | None:
    """The tournament's columns its standings are computed under (:data:`STANDINGS_STATE`, its
    standings version last), or None: no such tournament (selectors.standings_key). The JSON
    columns come as their text on both backends (no converter)."""
    def build():
        return (f"SELECT {', '.join(column(Tournament, name) for name in STANDINGS_STATE)} "
                f"FROM {table(Tournament)} WHERE {column(Tournament, 'id')} = %s")

    return row(made("selectors.standings_key", build), [tournament_id])


def board_rows(ladder_id: int, *, limit: int, offset: int = 0, after: tuple[float, int] | None = None,
               before: tuple[float, int] | None = None) -> list[tuple]:
    """Lines of a ladder's leaderboard (player id, player name, value, mu, sigma, games,
    provisional), best first: ``limit`` of them from ``offset``, or just after (or just before)
    the line ``(value, player id)`` (selectors.board_rows says why its shape is this one)."""
    def build():
        c = column
        player, value, ladder = c(Rating, "player"), c(Rating, "value"), c(Rating, "ladder")
        inner = ", ".join(c(Rating, name) for name in ("player", "value", "mu", "sigma", "games", "provisional"))
        outer = ", ".join(f"w.{c(Rating, name)}" for name in ("value", "mu", "sigma", "games", "provisional"))
        base = (f"SELECT w.{player}, (SELECT p.{c(Player, 'name')} FROM {table(Player)} p "
                f"WHERE p.{c(Player, 'id')} = w.{player}), {outer} FROM "
                f"(SELECT {inner} FROM {table(Rating)} WHERE {ladder} = %s{{where}} "
                f"ORDER BY {{order}} LIMIT %s OFFSET %s) w ORDER BY w.{value} DESC, w.{player}")
        # The first condition bounds the index scan, the second breaks ties.
        return {"first": base.format(where="", order=f"{value} DESC, {player}"),
                "after": base.format(where=f" AND {value} <= %s AND ({value} < %s OR {player} > %s)",
                                     order=f"{value} DESC, {player}"),
                "before": base.format(where=f" AND {value} >= %s AND ({value} > %s OR {player} < %s)",
                                      order=f"{value}, {player} DESC")}

    statements = made("selectors.board_rows", build)
    if after is not None:
        sql, params = statements["after"], [ladder_id, after[0], after[0], after[1]]
    elif before is not None:
        sql, params = statements["before"], [ladder_id, before[0], before[0], before[1]]
    else:
        sql, params = statements["first"], [ladder_id]
    return [(*found[:6], bool(found[6])) for found in rows(sql, [*params, limit, offset])]


def ladder_applied(ladder_id: int) -> tuple | None:
    """The ladder's ``applied`` as a one-column row, or None: no such ladder (selectors.ladder_version)."""
    def build():
        return (f"SELECT {column(RatingLadder, 'applied')} FROM {table(RatingLadder)} "
                f"WHERE {column(RatingLadder, 'id')} = %s")

    return row(made("selectors.ladder_version", build), [ladder_id])


def history_rows(ladder_id: int, player_id: int, names: Sequence[str], *, limit: int, after: int | None = None,
                 before: int | None = None) -> list[tuple]:
    """A player's rating changes on a ladder, each the columns ``names`` (a change's fields, and
    ``match__round__tournament_id``: its match's round's tournament), its ``created_at`` as the
    ORM gives it: the first ``limit`` in the order applied after the sequence number ``after``,
    or the last ``limit`` before ``before``, nearest first (selectors.history_rows)."""
    names = tuple(names)

    def build():
        t, c = table, column
        select = ", ".join(f"r.{c(Round, 'tournament')}" if name == "match__round__tournament_id"
                           else f"rc.{c(RatingChange, name)}" for name in names)
        sql = (f"SELECT {select} FROM {t(RatingChange)} rc "
               f"JOIN {t(Match)} m ON m.{c(Match, 'id')} = rc.{c(RatingChange, 'match')} "
               f"JOIN {t(Round)} r ON r.{c(Round, 'id')} = m.{c(Match, 'round')} "
               f"WHERE rc.{c(RatingChange, 'ladder')} = %s AND rc.{c(RatingChange, 'player')} = %s")
        seq = f"rc.{c(RatingChange, 'sequence')}"
        return ({"first": f"{sql} ORDER BY {seq} LIMIT %s", "after": f"{sql} AND {seq} > %s ORDER BY {seq} LIMIT %s",
                 "before": f"{sql} AND {seq} < %s ORDER BY {seq} DESC LIMIT %s"},
                converter(RatingChange, "created_at", "rc"))

    statements, created_at = made(("selectors.history_rows", names), build)
    if before is not None:
        sql, params = statements["before"], [ladder_id, player_id, before, limit]
    elif after is not None:
        sql, params = statements["after"], [ladder_id, player_id, after, limit]
    else:
        sql, params = statements["first"], [ladder_id, player_id, limit]
    at = names.index("created_at") if "created_at" in names else None
    found = rows(sql, params)
    if at is None:
        return found
    return [(*one[:at], created_at(one[at]), *one[at + 1:]) for one in found]


def match_outcome_row(match_id: int) -> tuple | None:
    """A match's status, deal, finishing time (as the ORM gives it), round id and round status,
    or None: no such match (selectors.match_outcome_state)."""
    def build():
        c = column
        return (f"SELECT m.{c(Match, 'status')}, m.{c(Match, 'deal')}, m.{c(Match, 'finished_at')}, "
                f"m.{c(Match, 'round')}, r.{c(Round, 'status')} FROM {table(Match)} m "
                f"JOIN {table(Round)} r ON r.{c(Round, 'id')} = m.{c(Match, 'round')} "
                f"WHERE m.{c(Match, 'id')} = %s", converter(Match, "finished_at", "m"))

    sql, finished_at = made("selectors.match_outcome_state", build)
    found = row(sql, [match_id])
    if found is None:
        return None
    status, deal, finished, round_id, round_status = found
    return status, deal, finished_at(finished), round_id, round_status


def match_record(match_id: int):
    """A match's replay record as the ORM gives it; None when it has none (a result reported by
    people) or there is no such match (selectors.match_record)."""
    def build():
        c = column
        return (f"SELECT m.{c(Match, 'record')} FROM {table(Match)} m WHERE m.{c(Match, 'id')} = %s",
                converter(Match, "record", "m"))

    sql, record = made("selectors.match_record", build)
    found = row(sql, [match_id])
    return None if found is None else record(found[0])


# --- online matches -------------------------------------------------------------------------
# Every request that moves or shows an online match reads it (tournaments.online_reads): these
# two statements are written once here, which halves what a move's POST costs the web process.

def _match_statement():
    t, c = table, column
    match, rnd, tournament = Columns(Match, "m"), Columns(Round, "r"), Columns(Tournament, "t")
    sql = (f"SELECT {match.select}, {rnd.select}, {tournament.select} FROM {t(Match)} m "
           f"JOIN {t(Round)} r ON r.{c(Round, 'id')} = m.{c(Match, 'round')} "
           f"JOIN {t(Tournament)} t ON t.{c(Tournament, 'id')} = r.{c(Round, 'tournament')} "
           f"WHERE m.{c(Match, 'id')} = %s")
    # The match's row alone is locked (its round and tournament are only read), as
    # select_for_update(of=("self",)); SQLite has no row locks (its writes are serialised).
    locked = sql + " FOR UPDATE OF m" if connection.features.has_select_for_update_of else sql
    return sql, locked, match, rnd, tournament


def match_read(match_id: int, *, lock: bool = False, skip_locked: bool = False) -> Match | None:
    """The match with its round and its tournament (one statement), its row locked until the
    transaction ends if ``lock``; None: no such match, or (``skip_locked``) its row is locked
    by another transaction, which a periodic task leaves to it rather than wait."""
    sql, locked, match, rnd, tournament = made("online.match", _match_statement)
    if lock and skip_locked and connection.features.has_select_for_update_skip_locked:
        locked += " SKIP LOCKED"
    found_row = row(locked if lock else sql, [match_id])
    if found_row is None:
        return None
    found, at = match.make(found_row), len(match)
    its_round = rnd.make(found_row, at)
    Round._meta.get_field("tournament").set_cached_value(its_round, tournament.make(found_row, at + len(rnd)))
    Match._meta.get_field("round").set_cached_value(found, its_round)
    return found


def _seats_statement():
    t, c = table, column
    seat, player = Columns(Seat, "s"), Columns(Player, "p")
    seq = c(MatchAction, "seq")
    # The actions come joined to seat 0's row only: one statement reads both, seat 0 repeated
    # once per action (and once, with NULLs, when there is none).
    sql = (f"SELECT {seat.select}, {player.select}, a.{seq}, a.{c(MatchAction, 'action')} FROM {t(Seat)} s "
           f"JOIN {t(Player)} p ON p.{c(Player, 'id')} = s.{c(Seat, 'player')} "
           f"LEFT JOIN {t(MatchAction)} a ON a.{c(MatchAction, 'match')} = s.{c(Seat, 'match')} "
           f"AND s.{c(Seat, 'position')} = 0 AND a.{seq} >= %s "
           f"WHERE s.{c(Seat, 'match')} = %s ORDER BY s.{c(Seat, 'position')}, a.{seq}")
    return sql, seat, player, converter(MatchAction, "action", "a")


def seats_and_actions(match: Match, first: int) -> tuple[list[Seat], list]:
    """The match's seats in turn order (with their players), and its actions from number
    ``first`` on: one statement, so one snapshot."""
    sql, seat, player, action_of = made("online.seats", _seats_statement)
    found = rows(sql, [first, match.pk])
    seats: list[Seat] = []
    actions: list = []
    at, last = len(seat), len(seat) + len(player)
    pk = seat.names.index(Seat._meta.pk.attname)
    match_field, player_field = Seat._meta.get_field("match"), Seat._meta.get_field("player")
    for each in found:
        if each[last] is not None:
            if each[last] != first + len(actions):  # append-only, numbered from 0: never
                raise RuntimeError(f"match {match.pk}: its actions from {first} are not in sequence")
            actions.append(action_of(each[last + 1]))
        if seats and seats[-1].pk == each[pk]:
            continue  # seat 0 again, for its next action
        made_seat = seat.make(each)
        match_field.set_cached_value(made_seat, match)
        player_field.set_cached_value(made_seat, player.make(each, at))
        seats.append(made_seat)
    return seats, actions


def _feed_statement() -> tuple:
    """The read of :func:`match_feed_rows`, with its columns' converters."""
    t, c = table, column
    match_pk = c(Match, "id")
    sql = (
        f"SELECT m.{c(Match, 'status')}, m.{c(Match, 'deadline_at')}, t.{c(Tournament, 'status')}, "
        # The forfeited positions as a bit mask: one column, in the same statement.
        f"(SELECT SUM(CAST(1 AS BIGINT) << s.{c(Seat, 'position')}) FROM {t(Seat)} s "
        f"WHERE s.{c(Seat, 'match')} = m.{match_pk} AND s.{c(Seat, 'forfeit_reason')} <> ''), "
        f"res.{c(Result, 'scores')}, res.{c(Result, 'places')}, a.{c(MatchAction, 'seq')}, "
        f"a.{c(MatchAction, 'action')} "
        f"FROM {t(Match)} m "
        f"JOIN {t(Round)} r ON r.{c(Round, 'id')} = m.{c(Match, 'round')} "
        f"JOIN {t(Tournament)} t ON t.{c(Tournament, 'id')} = r.{c(Round, 'tournament')} "
        f"LEFT JOIN {t(Result)} res ON res.{c(Result, 'match')} = m.{match_pk} "
        f"LEFT JOIN {t(MatchAction)} a ON a.{c(MatchAction, 'match')} = m.{match_pk} "
        f"AND a.{c(MatchAction, 'seq')} >= %s "
        f"WHERE m.{match_pk} = %s ORDER BY a.{c(MatchAction, 'seq')}"
    )
    return (sql, converter(Match, "deadline_at", "m"), converter(Result, "scores", "res"),
            converter(Result, "places", "res"), converter(MatchAction, "action", "a"))


def match_feed_rows(match_id: int, first: int) -> tuple[list[tuple], tuple]:
    """What an online match's streams read of it (feeds.read_match), in one statement, so one
    snapshot: rows of (match status, deadline, tournament status, forfeited positions as a bit
    mask, result scores, result places, action number, action), one per action from number
    ``first`` on (one with NULL action columns when there is none; none: no such match); and
    the converters of the deadline, scores, places and action columns."""
    sql, *converters = made("feeds.read_match", _feed_statement)
    return rows(sql, [first, match_id]), tuple(converters)
