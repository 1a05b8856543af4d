"""One UPDATE for many rows, each with its own values.

Django's ``bulk_update`` writes a CASE expression per column with a WHEN per row; on this
service's hot path (a worker recording a batch of matches) building and planning it cost ~1 ms
a row. Joining the table to a VALUES list is one plain statement on PostgreSQL and on SQLite
(3.33 and later), and is what both planners handle best. Rows can be given as plain tuples,
so the hot path need not load model instances only to write them back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db.models import Model

from tournaments import plain

# A JSON field's value as the text the database stores (orjson: tournaments.plain.json_text).
json_text = plain.json_text


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
    return plain.set_rows(model, fields, rows)
