"""A leaderboard's pages: by a cursor (the links each page gives: one indexed query however deep),
or by an offset (a page number: a web page's "page 37"), each line with its rank, and the count.

A cursor names a line of the board (its value and its player) and that line's rank when the
cursor was made, with the ladder's version then (``applied``): if ratings were applied since,
the rank is counted again, so the ranks a cursor's page shows are always true."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rest_framework import pagination
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from tournaments import selectors
from tournaments.models import RatingLadder

from .kept import kept, kept_response
from .pagination import DEFAULT_LIMIT, LIMIT_TEXT, MAX_LIMIT, MAX_OFFSET, bad_cursor, bounded_int, cursor_text, cursor_values


@dataclass(frozen=True)
class Mark:
    """A line of the board a cursor starts after (``forward``) or ends before."""

    value: float
    player: int
    rank: int
    applied: int
    forward: bool

    def encode(self) -> str:
        return cursor_text([self.value, self.player, self.rank, self.applied, int(self.forward)])

    @classmethod
    def decode(cls, text: str) -> Mark:
        values = cursor_values(text, 200)
        if len(values) != 5:
            raise bad_cursor()
        value, player, rank, applied, forward = values
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
              and all(type(n) is int and n >= 0 for n in (player, rank, applied)) and forward in (0, 1))
        if not ok:
            raise bad_cursor()
        return cls(float(value), player, rank, applied, bool(forward))


BLOCK = 100  # lines of a board read and kept together


def board_window(ladder: RatingLadder, offset: int, limit: int) -> list[tuple]:
    """``limit`` lines of the board from ``offset`` (selectors.BOARD_COLUMNS), read from the
    board's blocks of BLOCK lines, each kept under the ladder's version: a page at any offset
    takes the blocks it covers (two at most for a page of BLOCK lines) instead of making the
    database count its way down to the offset again (a deep page's query scans every line above
    it). Blocks are shared by every process (kept's shared cache)."""
    first, last = offset // BLOCK, (offset + limit - 1) // BLOCK
    lines: list = []
    for block in range(first, last + 1):
        lines += kept(f"board-block:{ladder.pk}:{ladder.applied}:{block}",
                      lambda block=block: selectors.board_rows(ladder.pk, limit=BLOCK, offset=block * BLOCK),
                      shared=True)
    start = offset - first * BLOCK
    return lines[start:start + limit]


class BoardPages(pagination.BasePagination):
    """``?limit=`` (default 100, at most 500) with ``?cursor=`` or ``?offset=``; answered as
    ``{"count", "next", "previous", "results"}``, ``next`` and ``previous`` cursor links."""

    def page(self, request, ladder: RatingLadder) -> Response:
        # A page names one state of the board (the ladder's ``applied``) and its request.
        return kept_response(request, f"board:{ladder.pk}:{ladder.applied}", lambda: self._body(request, ladder))

    def _body(self, request, ladder: RatingLadder) -> dict:
        limit = bounded_int(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        cursor = request.query_params.get("cursor")
        count = kept(f"board-count:{ladder.pk}:{ladder.applied}", lambda: selectors.board_count(ladder.pk))
        if cursor is not None:
            if request.query_params.get("offset") is not None:
                raise ValidationError({"cursor": ["give a cursor or an offset, not both"]})
            mark = Mark.decode(cursor)
            fresh = mark.applied == ladder.applied  # else count again where the marked line is now
            if mark.forward:
                rows = selectors.board_rows(ladder.pk, limit=limit, after=(mark.value, mark.player))
                through = mark.rank if fresh else selectors.board_ahead(ladder.pk, mark.value, mark.player,
                                                                        including=True)
                first = through + 1
            else:
                rows = selectors.board_rows(ladder.pk, limit=limit, before=(mark.value, mark.player))
                ahead = mark.rank - 1 if fresh else selectors.board_ahead(ladder.pk, mark.value, mark.player,
                                                                          including=False)
                first = ahead - len(rows) + 1
        else:
            first = bounded_int(request, "offset", 0, 0, MAX_OFFSET) + 1
            rows = board_window(ladder, first - 1, limit)
        url = remove_query_param(request.build_absolute_uri(), "offset")

        def link(row: tuple, rank: int, forward: bool) -> str:
            return replace_query_param(url, "cursor", Mark(row[2], row[0], rank, ladder.applied, forward).encode())

        last = first + len(rows) - 1
        return {
            "count": count,
            "next": link(rows[-1], last, True) if rows and last < count else None,
            "previous": link(rows[0], first, False) if rows and first > 1 else None,
            "results": [
                {"rank": rank, "player": player, "player_name": name, "rating": value, "mu": mu, "sigma": sigma,
                 "games": games, "provisional": provisional}
                for rank, (player, name, value, mu, sigma, games, provisional) in enumerate(rows, start=first)
            ],
        }

    def get_paginated_response_schema(self, schema: dict) -> dict:
        return pagination.LimitOffsetPagination().get_paginated_response_schema(schema)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [
            {"name": "limit", "in": "query", "required": False,
             "description": LIMIT_TEXT,
             "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}},
            {"name": "cursor", "in": "query", "required": False,
             "description": "where the page starts: the cursor of a page's next or previous link",
             "schema": {"type": "string"}},
            {"name": "offset", "in": "query", "required": False,
             "description": "lines to skip from the top (a page number); not with a cursor",
             "schema": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET}},
        ]

