"""gunicorn's settings for the web service that its command line cannot say (docker/compose.yaml,
bench/api.py: ``--config python:tournaments.gunicorn_conf``)."""

from __future__ import annotations

import os

from tournaments import heap

# Read by the app the workers load (settings.WSGI_STREAMS): event streams are refused here, with
# a 503 naming the ASGI server (tournaments/wsgi.py), never served on one of the few threads.
os.environ.setdefault("WSGI_STREAMS", "false")


def post_worker_init(worker) -> None:
    """The worker has loaded the app: settle its heap (tournaments/heap.py)."""
    heap.settle()
