"""How the API's lists come in pages (docs/api.md, "Lists").

Three kinds, by what a list's order allows:

* :class:`Pages`: ``?limit=`` and ``?offset=``, with the count: short lists and lists whose
  order changes as they grow (standings, entries, rounds, the top-level lists).
* :class:`Cursor`: ``?limit=`` and ``?cursor=``, the links a page gives: lists in an order that
  never changes (a ladder's history, matches, audit), so that the next page neither repeats
  nor skips a line when the list grows meanwhile, and a deep page costs what the first does.
* the leaderboard's own (:mod:`tournaments.api.boards`): a cursor, or an offset for a page
  number, with the count.

The top-level lists of things people name also take ``?ordering=`` (:class:`Ordering`).

Every bad ``limit``, ``offset`` or ``cursor`` is a 400 naming it, never silently replaced.
"""

from __future__ import annotations

import base64
import binascii
import json

from rest_framework import filters, pagination
from rest_framework.exceptions import ValidationError

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
MAX_OFFSET = 1_000_000
BAD_CURSOR = "not a cursor this list gave"


def bad_cursor() -> ValidationError:
    return ValidationError({"cursor": [BAD_CURSOR]})


def cursor_text(values: list) -> str:
    """A cursor of the lists that page by their own (a leaderboard, a history): its values as
    compact JSON in URL-safe base64, without padding."""
    raw = json.dumps(values, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def cursor_values(text: str, max_chars: int) -> list:
    """The values of a cursor :func:`cursor_text` made (the caller checks what each is), or a
    400 naming the cursor."""
    try:
        if len(text) > max_chars:
            raise ValueError
        values = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise bad_cursor() from None
    if not isinstance(values, list):
        raise bad_cursor()
    return values


def whole_number(text: str, max_digits: int) -> bool:
    """``text`` is a whole number written in at most ``max_digits`` ASCII digits: what ``int``
    reads and a bound can be checked on. (``str.isdigit`` alone takes "²" and "٣", which ``int``
    refuses, and any number of digits, which ``int`` refuses past 4,300.)"""
    return text.isascii() and text.isdigit() and len(text) <= max_digits


def bounded_int(request, name: str, default: int, low: int, high: int) -> int:
    """Query parameter ``name`` as an integer in [low, high], ``default`` when absent (400 else)."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not whole_number(raw, len(str(high))) or not low <= int(raw) <= high:
        raise ValidationError({name: [f"{name} is a whole number from {low} to {high}"]})
    return int(raw)


def bounded(parameters: list[dict], bounds: dict[str, tuple[int, int, str]]) -> list[dict]:
    """DRF's schema of a paginator's query parameters, with the bounds each is held to
    (``{name: (low, high, description)}``), so that the schema says what the API refuses."""
    for parameter in parameters:
        if parameter["name"] in bounds:
            low, high, description = bounds[parameter["name"]]
            parameter["schema"] = {**parameter["schema"], "minimum": low, "maximum": high}
            parameter["description"] = description
    return parameters


LIMIT_TEXT = f"lines a page (default {DEFAULT_LIMIT}, at most {MAX_LIMIT})"


class Pages(pagination.LimitOffsetPagination):
    default_limit = DEFAULT_LIMIT
    max_limit = MAX_LIMIT

    def get_limit(self, request) -> int:
        return bounded_int(request, self.limit_query_param, self.default_limit, 1, self.max_limit)

    def get_offset(self, request) -> int:
        return bounded_int(request, self.offset_query_param, 0, 0, MAX_OFFSET)

    def get_schema_operation_parameters(self, view):
        return bounded(super().get_schema_operation_parameters(view), {
            self.limit_query_param: (1, self.max_limit, LIMIT_TEXT),
            self.offset_query_param: (0, MAX_OFFSET, "lines to skip"),
        })


class Cursor(pagination.CursorPagination):
    """Pages by a cursor over an order that never changes (``ordering``: a unique integer
    field, e.g. the id). A cursor's position is a value of that field, which this list's links
    only ever give as a whole number: any other is refused before the database sees it."""

    page_size = DEFAULT_LIMIT
    page_size_query_param = "limit"
    max_page_size = MAX_LIMIT
    ordering = "id"

    def get_page_size(self, request) -> int:
        return bounded_int(request, self.page_size_query_param, self.page_size, 1, self.max_page_size)

    def get_schema_operation_parameters(self, view):
        return bounded(super().get_schema_operation_parameters(view),
                       {self.page_size_query_param: (1, self.max_page_size, LIMIT_TEXT)})

    def decode_cursor(self, request):
        try:
            cursor = super().decode_cursor(request)
        except pagination.NotFound:  # DRF's answer to a cursor it cannot read is a 404
            raise bad_cursor() from None
        if cursor is not None and cursor.position is not None and not whole_number(cursor.position, 18):
            raise bad_cursor()  # "abc" or 2**70 would reach the database's integer column
        return cursor


def cursor_by(field: str) -> type[Cursor]:
    """A :class:`Cursor` over ``field`` (e.g. ``"sequence"``)."""
    return type(f"CursorBy{field.title()}", (Cursor,), {"ordering": field})


class Ordering(filters.OrderingFilter):
    """``?ordering=field`` or ``-field`` (comma-separated), among the view's ``ordering_fields``
    only; a field it does not take is a 400 naming them (DRF's own would ignore it)."""

    def remove_invalid_fields(self, queryset, fields, view, request):
        valid = super().remove_invalid_fields(queryset, fields, view, request)
        if len(valid) != len(fields):
            allowed = ", ".join(name for name, _ in self.get_valid_fields(queryset, view, {"request": request}))
            raise ValidationError({self.ordering_param: [f"order by {allowed} (a - before one: descending)"]})
        return valid

    def get_schema_operation_parameters(self, view):
        """The schema names the fields, as a pattern of what the list takes."""
        parameters = super().get_schema_operation_parameters(view)
        names = "|".join(name if isinstance(name, str) else name[0] for name in getattr(view, "ordering_fields", ()))
        if names:
            term = f"-?({names})"
            parameters[0]["schema"] = {**parameters[0]["schema"], "pattern": f"^{term}(,{term})*$"}
            parameters[0]["description"] = (f"order by {names.replace('|', ', ')}, comma-separated "
                                            "(a - before one: descending)")
        return parameters
