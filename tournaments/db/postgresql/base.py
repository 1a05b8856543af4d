"""Django's PostgreSQL backend, with three changes that make a request's queries cheaper.

* **The health check of a kept connection.** With kept connections (DATABASE_CONN_MAX_AGE)
  Django checks a connection before a request's first query (CONN_HEALTH_CHECKS: a ``SELECT
  1``, one more round trip to the server), in case the server or something between dropped it
  while it sat idle. This backend skips the check when the connection did work less than
  ``RECENT_SECONDS`` ago: it answered a moment ago, which is what the check would learn. On a
  busy server that is nearly every request (the check was 7% of a move's POST in gunicorn:
  docs/online.md, "Load"); one idle for longer is checked as before. A connection that breaks
  within that second fails its request, as it would between the check and the query, and
  Django closes it at the request's end.
* **Timestamps read by psycopg's own loader.** Django reads every ``timestamptz`` through a
  subclass of psycopg's pure-Python loader (to set its time zone), ~8 µs a value: half of the
  time a history page's 47 rows took to read. When the sessions are in UTC (USE_TZ with no
  TIME_ZONE for the database: Django's default and ours), psycopg's own loader (C, with
  psycopg-binary) returns the same values, aware in ``datetime.timezone.utc``.
* **Prepared statements for the plain statements** (tournaments/plain.py). Django binds the
  parameters in the client, so PostgreSQL plans every query again (0.3-0.8 ms for a history's
  three-table join: more than running it). :meth:`DatabaseWrapper.prepared_cursor` gives a
  cursor whose parameters the server binds, so that psycopg prepares each statement run through
  it once per connection (``prepare_threshold``; PREPARED_THRESHOLD unless the database's
  OPTIONS say otherwise: ``None`` turns it off, for a pooler that keeps no prepared statements,
  DATABASE_PREPARED_STATEMENTS=0). The ORM's own queries are bound in the client as before,
  never prepared.
"""

from __future__ import annotations

import datetime
import time
from functools import lru_cache

from django.db.backends.postgresql.base import DatabaseWrapper as PostgresWrapper
from django.db.backends.postgresql.base import ServerBindingCursor
from django.db.backends.postgresql.operations import DatabaseOperations as PostgresOperations
from django.db.backends.postgresql.psycopg_any import register_tzloader
from psycopg import adapt, adapters, errors, postgres
from psycopg.pq import Format

RECENT_SECONDS = 1.0
PREPARED_THRESHOLD = 0  # prepared at once: only the few hot statements of tournaments/plain.py run prepared
_TIMESTAMPTZ = postgres.types["timestamptz"].oid
_PREPARED = object()  # the cursor "name" create_cursor reads as: a server-binding cursor


class UtcTimestamptzLoader(adapt.Loader):
    """``timestamptz`` read by psycopg's own loader, for sessions in UTC. ``timezone`` is what
    Django's create_cursor compares with the connection's zone."""

    timezone = datetime.UTC
    _base = adapters.get_loader(_TIMESTAMPTZ, Format.TEXT)  # C where psycopg-binary is installed

    def __init__(self, oid: int, context=None) -> None:
        super().__init__(oid, context)
        self.load = self._base(oid, context).load  # the instance's own: no Python frame a value

    def load(self, data):  # what the instance's own replaces (the class must define it)
        raise NotImplementedError


@lru_cache
def _utc_adapters(template: adapt.AdaptersMap) -> adapt.AdaptersMap:
    context = adapt.AdaptersMap(template)
    context.register_loader("timestamptz", UtcTimestamptzLoader)
    return context


class DatabaseOperations(PostgresOperations):
    def last_executed_query(self, cursor, sql, params):
        """A prepared cursor's statement as the query log shows it: with its values, as Django
        shows those of its server-binding cursors (psycopg keeps only the text with $1)."""
        if isinstance(cursor, ServerBindingCursor):
            try:
                return self.compose_sql(sql, params)
            except errors.DataError:
                return None
        return super().last_executed_query(cursor, sql, params)


class DatabaseWrapper(PostgresWrapper):
    ops_class = DatabaseOperations
    used_at: float | None = None  # time.monotonic() of the last cursor made on this connection

    def get_connection_params(self) -> dict:
        params = super().get_connection_params()
        if self.timezone is datetime.UTC:  # Django sets the session's TimeZone to UTC
            params["context"] = _utc_adapters(params["context"])
        if "prepare_threshold" not in self.settings_dict["OPTIONS"]:
            params["prepare_threshold"] = PREPARED_THRESHOLD
        return params

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

    def prepared_cursor(self):
        """A cursor (Django's wrapper: its errors, its query log) whose parameters the server
        binds: each statement run through it is prepared once per connection."""
        return self._cursor(_PREPARED)

    def create_cursor(self, name=None):
        if name is not _PREPARED:
            return super().create_cursor(name)
        cursor = ServerBindingCursor(self.connection)
        # As Django's create_cursor: the cursor reads timestamps in the connection's zone.
        if self.timezone != self.connection.adapters.get_loader(_TIMESTAMPTZ, Format.TEXT).timezone:
            register_tzloader(self.timezone, cursor)
        return cursor
