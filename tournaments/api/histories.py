"""A player's rating history on a ladder, a page at a time, by the cursors of its ``next`` and
``previous`` links (docs/api.md, "Lists").

The order (the sequence the ladder applied the changes in) never changes and a player has one
change a sequence number, so a cursor is the sequence of the line a page ends after (or starts
before, reading back): each page is one indexed query however deep, and a page never repeats nor
skips a line when ratings are applied meanwhile. The query is plain SQL (selectors.history_rows):
a page is read on every miss of the kept answers, and the ORM's building of it and DRF's
cursor paging cost twice the query."""

from __future__ import annotations

from rest_framework import pagination
from rest_framework.utils.urls import replace_query_param

from tournaments import selectors

from .pagination import DEFAULT_LIMIT, LIMIT_TEXT, MAX_LIMIT, bad_cursor, bounded_int, cursor_text, cursor_values
from .serializers import rating_change_rows

MAX_SEQUENCE = 2**63 - 1


def _encode(sequence: int, forward: bool) -> str:
    return cursor_text([sequence, int(forward)])


def _decode(text: str) -> tuple[int, bool]:
    values = cursor_values(text, 100)
    if not (len(values) == 2 and type(values[0]) is int and 0 <= values[0] <= MAX_SEQUENCE and values[1] in (0, 1)):
        raise bad_cursor()
    return values[0], bool(values[1])


class HistoryPages(pagination.BasePagination):
    """``?limit=`` (default 100, at most 500) and ``?cursor=``; answered as ``{"next",
    "previous", "results"}``, each line as RatingChangeSerializer shows it."""

    def body(self, request, ladder_id: int, player_id: int) -> dict:
        limit = bounded_int(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        cursor = request.query_params.get("cursor")
        sequence, forward = _decode(cursor) if cursor is not None else (None, True)
        after, before = (sequence, None) if forward else (None, sequence)
        rows = selectors.history_rows(ladder_id, player_id, limit=limit + 1, after=after, before=before)
        more = len(rows) > limit  # one line beyond the page, in the direction read
        rows = rows[:limit]
        if not forward:
            rows.reverse()
        url = request.build_absolute_uri()

        def link(row: dict, forward: bool) -> str:
            return replace_query_param(url, "cursor", _encode(row["sequence"], forward))

        # Read forward, there are lines before if a cursor brought us here; read back, there are
        # lines after (we came from them).
        has_next, has_previous = (more, cursor is not None) if forward else (True, more)
        return {
            "next": link(rows[-1], True) if rows and has_next else None,
            "previous": link(rows[0], False) if rows and has_previous else None,
            "results": rating_change_rows(rows),
        }

    def get_paginated_response_schema(self, schema: dict) -> dict:
        return pagination.CursorPagination().get_paginated_response_schema(schema)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [
            {"name": "cursor", "in": "query", "required": False,
             "description": "where the page starts: the cursor of a page's next or previous link",
             "schema": {"type": "string"}},
            {"name": "limit", "in": "query", "required": False,
             "description": LIMIT_TEXT,
             "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}},
        ]
