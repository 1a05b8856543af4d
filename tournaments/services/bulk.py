"""One UPDATE for many rows, each with its own values.

Django's ``bulk_update`` writes a CASE expression per column with a WHEN per row; on this
service's hot path (a worker recording a batch of matches) building and planning it cost ~1 ms
a row. Joining the table to a VALUES list is one plain statement on PostgreSQL and on SQLite
(3.33 and later), and is what both planners handle best. Rows can be given as plain tuples,
so the hot path need not load model instances only to write them back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import orjson
from django.db import connections, router
from django.db.models import JSONField, Model

# SQLite's default limit on bound parameters in one statement.
_MAX_PARAMS = 999


def json_text(value) -> str | None:
    """A JSON field's value as the text the database stores. orjson, not json: a match's replay
    record is ~6 KB of small objects, and json.dumps of it cost ~90 us against orjson's ~8."""
    if value is None:
        return None
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # what orjson does not take (e.g. int keys), json does as Django would
        import json

        return json.dumps(value)


def bulk_set(objs: Sequence[Model], fields: Sequence[str]) -> int:
    """Write ``fields`` of every object in ``objs`` (all of one model, all saved) to its row,
    as ``bulk_update`` does: no signals, no ``auto_now``. Returns the number of rows written."""
    if not objs:
        return 0
    return bulk_set_rows(type(objs[0]), fields, [(obj.pk, *(getattr(obj, f) for f in fields)) for obj in objs])


def bulk_set_rows(model: type[Model], fields: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Write ``fields`` of ``model``'s rows: each row is (primary key, value of each field).
    A JSON field's value is the Python value (stored as JSON). Returns the rows written."""
    rows = list(rows)
    if not rows:
        return 0
    meta = model._meta
    connection = connections[router.db_for_write(model)]
    pk = meta.pk
    columns = [meta.get_field(name) for name in fields]
    quote = connection.ops.quote_name
    typed = connection.vendor == "postgresql"  # VALUES columns need types there; SQLite has none

    def placeholder(field) -> str:
        return f"CAST(%s AS {field.cast_db_type(connection)})" if typed else "%s"

    def prepare(field):
        if isinstance(field, JSONField) and field.encoder is None:
            return json_text  # text cast to jsonb (PostgreSQL) or stored as text (SQLite)
        return lambda value: field.get_db_prep_save(value, connection)

    preparers = [prepare(f) for f in [pk, *columns]]
    row_sql = "(" + ", ".join(placeholder(f) for f in [pk, *columns]) + ")"
    table = quote(meta.db_table)
    # A VALUES list's columns are column1, column2, ... on both databases. The statement starts
    # with UPDATE (not WITH), so SQLite reports the rows it changed.
    assignments = ", ".join(f"{quote(f.column)} = v.column{i}" for i, f in enumerate(columns, start=2))
    per_statement = max(1, _MAX_PARAMS // (len(columns) + 1))
    written = 0
    with connection.cursor() as cursor:
        for start in range(0, len(rows), per_statement):
            chunk = rows[start:start + per_statement]
            params = [prep(value) for row in chunk for prep, value in zip(preparers, row)]
            cursor.execute(
                f"UPDATE {table} SET {assignments} FROM (VALUES {', '.join([row_sql] * len(chunk))}) AS v "
                f"WHERE {table}.{quote(pk.column)} = v.column1",
                params,
            )
            written += cursor.rowcount
    return written
