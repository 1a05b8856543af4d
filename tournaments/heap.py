"""A web server process's heap, settled once it has loaded the app (tournaments/gunicorn_conf.py
for gunicorn's workers, tournaments/asgi.py's lifespan for uvicorn's).

A process's long-lived objects (Django, the app's modules, views, URL patterns, serializers)
are most of what a full garbage collection walks: measured at ~50 ms on this kind of machine,
a pause of the process and of every request queued behind it. Once the app and its URL
patterns are loaded they are moved out of the collector's reach (``gc.freeze``: a full
collection then takes microseconds), and the youngest generation is collected every 20,000
allocations instead of 700, so that a request's short-lived objects, which reference counting
frees, are not promoted to be walked again. bench/api.py, the mixed run: the floor's p99
80-84 -> 28-30 ms (docs/api.md, "Load").
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000


def settle() -> None:
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every view module now, to be frozen with the rest
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)
