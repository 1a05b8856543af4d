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

from collections.abc import Callable, Sequence

from django.db import connection, models

from tournaments.models import Match, MatchAction, Player, Round, Seat, Tournament

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
