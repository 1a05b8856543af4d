"""Answers kept in this process's memory under a key that names one exact state of what they
show (a leaderboard page under its ladder's ``applied``, standings under the key of their
inputs, a finished match's replay): such an answer is never stale, only unused, so it needs no
invalidation. Django's local-memory cache ("local", bounded: tournaments/config.py) holds them;
a request that finds one costs a lookup.

The answers the API sends as JSON are also kept in the shared cache (Redis where CACHE_URL is
set), so that each is built once for all processes, and a process whose bounded memory let one
go takes it back in a fraction of a millisecond instead of building it again (a big
tournament's standings: tens to hundreds of ms) while its queue waits. bench/api.py, random
histories: 661 -> 1,067 req/s."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.core.cache import caches
from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

KEEP_SECONDS = 3600  # an answer about a state that has passed is not asked for again: let it go


def kept(key: str, build: Callable[[], dict], *, shared: bool = False) -> dict:
    """The body kept under ``key``, built (and kept) if there is none; ``shared``: kept in the
    shared cache too, and looked for there before it is built."""
    key = hashlib.blake2b(key.encode(), digest_size=20).hexdigest()  # any text, one short safe key
    body = caches["local"].get(key)
    if body is None:
        body = caches["default"].get(f"kept:{key}") if shared else None
        if body is None:
            body = build()
            if shared:
                caches["default"].set(f"kept:{key}", body, KEEP_SECONDS)
        caches["local"].set(key, body, KEEP_SECONDS)
    return body


def kept_response(request, key: str, build: Callable[[], dict]) -> HttpResponse:
    """:func:`kept` for the answer to ``request``, kept as the JSON it is sent as (rendered
    once, as DRF's JSONRenderer renders it; shared between processes); the key takes in the
    whole URL (its page, its links' host). Another answer's format (the browsable API) is
    rendered each time."""
    url = request.build_absolute_uri()
    renderer = getattr(request, "accepted_renderer", None)
    if not isinstance(renderer, JSONRenderer) or "indent" in (request.accepted_media_type or ""):
        return Response(kept(f"{key}:{url}", build))
    body = kept(f"{key}:{url}:json", lambda: renderer.render(build()), shared=True)
    return HttpResponse(body, content_type="application/json")
