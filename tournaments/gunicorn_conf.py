"""gunicorn's settings for the web service that its command line cannot say (docker/compose.yaml,
bench/api.py: ``--config python:tournaments.gunicorn_conf``)."""

from __future__ import annotations

from tournaments import heap


def post_worker_init(worker) -> None:
    """The worker has loaded the app: settle its heap (tournaments/heap.py)."""
    heap.settle()
