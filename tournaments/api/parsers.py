"""What the API reads from a request body: JSON, and nothing else (docs/api.md, "Requests").

Every endpoint takes ``Content-Type: application/json``; a body of any other type is refused
415 before a view runs (tournaments/api/middleware.py), and the schema declares JSON bodies only
(drf-spectacular reads DEFAULT_PARSER_CLASSES). A browser's form posted cross-site cannot send
that type without the site's leave, which is one more thing between another site and a session.

A body is read by :class:`JsonParser`, DRF's, which also refuses JSON nested deeper than
:data:`MAX_DEPTH`: no field of the API is deeper than a few levels, and Python's parser would
stop at some thousand with a RecursionError (a 500) after recursing that far.
"""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError

MEDIA_TYPE = "application/json"
MAX_DEPTH = 32
TOO_DEEP = f"JSON parse error - the body is nested deeper than {MAX_DEPTH} levels"


def depth(value) -> int:
    """How deep ``value`` nests: 0 for a string or number, 1 for ``[]`` or ``{"a": 1}``, one more
    for each list or object inside another. Iterative, and it stops once past MAX_DEPTH."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            break
        stack.extend((inner, level + 1) for inner in item)
    return deepest


class JsonParser(parsers.JSONParser):
    """DRF's JSON parser, refusing a body nested deeper than MAX_DEPTH with a 400
    (``parse_error``) that says so."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(TOO_DEEP) from None
        if depth(data) > MAX_DEPTH:
            raise ParseError(TOO_DEEP)
        return data
