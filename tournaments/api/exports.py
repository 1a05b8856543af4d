"""Exports (docs/api.md, "Exports"): a tournament's matches and a ladder's ledger as a stream of
newline-delimited JSON (one object a line) or CSV, of any length in bounded memory.

Rows are read a page at a time in key order and each page is serialized as the API's own lists
serialize it, so an export never shows what the list would not. Under ASGI the body is an async
generator that reads each page in the thread pool (a sync one would be read whole before the
first byte: Django buffers sync iterators there); under WSGI a plain generator.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import close_old_connections
from django.http import StreamingHttpResponse

from tournaments.errors import ServiceError

PAGE_ROWS = 500  # objects read per query
KINDS = {"ndjson": "application/x-ndjson", "csv": "text/csv; charset=utf-8"}

# One page: the rows after ``after`` (a key; None: from the start), and the key to go on from
# (None: that was the last page).
Fetch = Callable[[object], tuple[list[dict], object]]


def kind_param(request) -> str:
    """``?as=ndjson`` (the default) or ``?as=csv``."""
    kind = request.query_params.get("as", "ndjson")
    if kind not in KINDS:
        raise ServiceError(f"as is one of {', '.join(KINDS)}", "as")
    return kind


def export_response(request, fetch: Fetch, *, kind: str, columns: list[str], rows_of: Callable[[dict], Iterable[dict]],
                    filename: str) -> StreamingHttpResponse:
    """The streamed export: each object ``fetch`` reads, as one line of JSON, or as the CSV rows
    ``rows_of`` makes of it (``columns``, a header line first)."""
    encode = _ndjson if kind == "ndjson" else _csv(columns, rows_of)
    if isinstance(request._request, ASGIRequest):
        body = _async_pages(fetch, encode, header=_header(kind, columns))
    else:
        body = _sync_pages(fetch, encode, header=_header(kind, columns))
    response = StreamingHttpResponse(body, content_type=KINDS[kind])
    response["Content-Disposition"] = f'attachment; filename="{filename}.{kind}"'
    return response


def _header(kind: str, columns: list[str]) -> bytes:
    return _csv_lines([columns]) if kind == "csv" else b""


def _ndjson(objects: list[dict]) -> bytes:
    return "".join(json.dumps(o, cls=DjangoJSONEncoder, separators=(",", ":")) + "\n" for o in objects).encode()


def _csv(columns: list[str], rows_of: Callable[[dict], Iterable[dict]]) -> Callable[[list[dict]], bytes]:
    def encode(objects: list[dict]) -> bytes:
        return _csv_lines([[_cell(row.get(c)) for c in columns] for o in objects for row in rows_of(o)])

    return encode


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    elif isinstance(value, (list, dict)):
        text = json.dumps(value, cls=DjangoJSONEncoder)
    else:
        text = str(value)
    # A cell a spreadsheet would run as a formula is quoted as text (CSV injection).
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _number(text) else text


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _csv_lines(rows: list[list]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def _sync_pages(fetch: Fetch, encode, *, header: bytes):
    if header:
        yield header
    after = None
    while True:
        objects, after = fetch(after)
        if objects:
            yield encode(objects)
        if after is None:
            return


def _fetch_in_pool(fetch: Fetch, after):
    """A page read in a thread of the event loop's pool, which no request_finished reaches: its
    connection is handed back here, as Django does at the end of a request."""
    try:
        return fetch(after)
    finally:
        close_old_connections()


async def _async_pages(fetch: Fetch, encode, *, header: bytes):
    if header:
        yield header
    read = sync_to_async(_fetch_in_pool, thread_sensitive=False)
    after = None
    while True:
        objects, after = await read(fetch, after)
        if objects:
            yield encode(objects)
        if after is None:
            return


def pages_of(queryset, serialize: Callable[[list], list[dict]], *, key: str = "pk") -> Fetch:
    """A :data:`Fetch` over ``queryset`` in ``key`` order (a unique, indexed field), PAGE_ROWS at
    a time, each page serialized by ``serialize``."""
    def fetch(after):
        page = queryset.order_by(key)
        if after is not None:
            page = page.filter(**{f"{key}__gt": after})
        items = list(page[:PAGE_ROWS])
        if not items:
            return [], None
        last = getattr(items[-1], key)
        return serialize(items), (last if len(items) == PAGE_ROWS else None)

    return fetch
