"""Django's PostgreSQL backend, but for the health check of a kept connection.

With kept connections (DATABASE_CONN_MAX_AGE) Django checks a connection before a request's
first query (CONN_HEALTH_CHECKS: a ``SELECT 1``, one more round trip to the server), in case
the server or something between dropped it while it sat idle. This backend skips the check
when the connection did work less than ``RECENT_SECONDS`` ago: it answered a moment ago, which
is what the check would learn. On a busy server that is nearly every request (the check was 7%
of a move's POST in gunicorn: docs/online.md, "Load"); one idle for longer is checked as before.
A connection that breaks within that second fails its request, as it would between the check
and the query, and Django closes it at the request's end.
"""

from __future__ import annotations

import time

from django.db.backends.postgresql.base import DatabaseWrapper as PostgresWrapper

RECENT_SECONDS = 1.0


class DatabaseWrapper(PostgresWrapper):
    used_at: float | None = None  # time.monotonic() of the last cursor made on this connection

    def close_if_health_check_failed(self) -> None:
        if (self.connection is not None and not self.health_check_done and self.used_at is not None
                and time.monotonic() - self.used_at < RECENT_SECONDS):
            self.health_check_done = True  # used a moment ago: as good as checked
            return
        super().close_if_health_check_failed()

    def _cursor(self, name=None):
        cursor = super()._cursor(name)
        self.used_at = time.monotonic()
        return cursor
