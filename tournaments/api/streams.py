"""Server-sent event streams of online matches (docs/online.md, "Event streams").

A stream is a feed (tournaments.feeds: what to send, read from the database) woken by the
events hub (tournaments.events: that something changed). Under ASGI (uvicorn, a deployment)
the stream is an async generator: a connection waits on the event loop, not in a thread, and
each read of the database runs in the thread pool (one per change for the streams of a match
that wake together: the others wait for it on the loop). Under WSGI (``runserver``, the test
server) it is a plain generator holding its thread. Either way: every event of the feed, a
keep-alive comment after ``EVENTS_KEEPALIVE_SECONDS`` of silence, a look at the database
every ``EVENTS_POLL_SECONDS`` whatever the hub says, and the end after ``STREAM_MAX_SECONDS``
(the client reconnects with ``Last-Event-ID``) or once the feed is done (a match over).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import caches
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DatabaseError, close_old_connections, connection
from django.http import StreamingHttpResponse
from redis.exceptions import RedisError
from rest_framework import exceptions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.throttling import BaseThrottle

from tournaments import events
from tournaments.cache import RedisCache
from tournaments.errors import ServiceError
from tournaments.feeds import Event

log = logging.getLogger(__name__)

RETRY_MILLISECONDS = 2000  # what an EventSource waits before it reconnects

# Set once the server is stopping (tournaments/asgi.py, at SIGTERM or SIGINT): every stream of
# the process ends at its next look, within a moment, and its client resumes with Last-Event-ID
# on another process or this one restarted; the server does not wait STREAM_MAX_SECONDS for them.
stopping = threading.Event()


def stop_all() -> None:
    """End every stream of this process now (the server is stopping): each is woken, looks at
    its feed a last time and ends; one opened from now on ends after its first look."""
    stopping.set()
    events.hub().wake_all()

# The paths of the event streams. A deployment sends these to the ASGI server (uvicorn: a
# connection held on its event loop) and every other request to the WSGI server (gunicorn:
# plain requests at a fraction of the CPU); docker/nginx.conf routes by this very expression.
STREAM_PATHS = r"^/api/(matches/[^/.]+/(seats/[0-9]+/)?events|seats/events)(\.[a-z0-9]+)?/?$"


class JsonAnswers(BaseContentNegotiation):
    """A stream's refusals (401, 403, 404, 409, 400) are JSON, as everywhere in the API, whatever
    the client's Accept says (an EventSource asks for text/event-stream); the stream itself is a
    StreamingHttpResponse, never rendered."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return JSONRenderer(), JSONRenderer.media_type


def encode(event: Event) -> bytes:
    """One event in the text/event-stream format: its id, its name, its data as one line of
    JSON."""
    data = json.dumps(event.data, cls=DjangoJSONEncoder, separators=(",", ":"))
    head = f"id: {event.id}\n" if event.id else ""
    return f"{head}event: {event.kind}\ndata: {data}\n\n".encode()


def follow_param(request) -> bool:
    """``?follow=false``: send what there is and close (a catch-up, for clients that poll)."""
    value = request.query_params.get("follow", "true")
    if value not in ("true", "false"):
        raise ServiceError("follow is true or false", "follow")
    return value == "true"


def last_event_id(request) -> str | None:
    """The ``Last-Event-ID`` header (an EventSource sends it when it reconnects), or the
    ``last_event_id`` query parameter (for a first connection that resumes)."""
    return request.headers.get("Last-Event-ID") or request.query_params.get("last_event_id")


#: How long a stream's place among its caller's is held without being renewed: a stream renews
#: it at every look at its feed (at least every EVENTS_POLL_SECONDS), so a process that dies
#: with streams open gives their places back within this time.
CLAIM_SECONDS = 60

# Take a place among a caller's streams, atomically in Redis: drop the places whose claim ran
# out, refuse if ARGV[3] are held, else hold this one (ARGV[4]) until ARGV[2].
_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], math.ceil(ARGV[2] - ARGV[1]) + 1)
return 1
"""


class _Open:
    """The streams open per caller (an account, or an address when anonymous): at most
    STREAMS_PER_CALLER at once, so that one caller cannot hold the service's connections (or,
    under WSGI, its threads). Counted where every web process counts: in the cache's Redis
    (CACHE_URL, as a deployment sets it), a sorted set per caller, each stream a member whose
    score is when its place runs out (renewed while it lives: CLAIM_SECONDS); in this process's
    memory where the cache is (the embedded default: one process), or while Redis cannot be
    reached (then per process, and the log says so)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, set[str]] = {}  # this process's streams, by caller
        self._script = None

    def _redis(self):
        cache = caches["default"]
        return cache if isinstance(cache, RedisCache) else None

    def _key(self, cache, caller: str) -> str:
        return cache.make_and_validate_key(f"streams:{caller}")

    def take(self, caller: str) -> str:
        """A place for one more stream of ``caller`` (its token, to renew and give back), or 429
        (throttled) when it holds the most it may."""
        limit = settings.STREAMS_PER_CALLER
        token = uuid.uuid4().hex
        held = self._take_shared(caller, token, limit)
        with self._lock:
            mine = self._open.setdefault(caller, set())
            if held is None:  # no shared count: this process's
                held = len(mine) < limit
            if held:
                mine.add(token)
            elif not mine:
                self._open.pop(caller, None)
        if not held:
            raise exceptions.Throttled(wait=RETRY_MILLISECONDS / 1000, detail=(
                f"at most {limit} event streams at once per account (or address): close one first"))
        return token

    def _take_shared(self, caller: str, token: str, limit: int) -> bool | None:
        cache = self._redis()
        if cache is None:
            return None
        key, now = self._key(cache, caller), time.time()
        try:
            client = cache._cache.get_client(key, write=True)
            if self._script is None:
                self._script = client.register_script(_TAKE)
            return bool(self._script(keys=[key], args=[now, now + CLAIM_SECONDS, limit, token], client=client))
        except RedisError:
            log.warning("event streams counted per process: the cache's Redis cannot be reached", exc_info=True)
            return None

    def renew(self, caller: str, token: str) -> None:
        """The stream is alive: hold its place another CLAIM_SECONDS."""
        cache = self._redis()
        if cache is None:
            return
        key, now = self._key(cache, caller), time.time()
        try:
            client = cache._cache.get_client(key, write=True)
            with client.pipeline(transaction=False) as pipe:
                pipe.zadd(key, {token: now + CLAIM_SECONDS}, xx=True).expire(key, CLAIM_SECONDS + 1).execute()
        except RedisError:
            pass  # its place runs out, and is taken again by the next stream's count

    def give_back(self, caller: str, token: str) -> None:
        with self._lock:
            mine = self._open.get(caller, set())
            mine.discard(token)
            if not mine:
                self._open.pop(caller, None)
        cache = self._redis()
        if cache is not None:
            try:
                cache._cache.get_client(self._key(cache, caller), write=True).zrem(self._key(cache, caller), token)
            except RedisError:
                pass  # runs out after CLAIM_SECONDS

    def count(self, caller: str) -> int:
        """The streams ``caller`` holds: every process's where they are counted together."""
        cache = self._redis()
        if cache is not None:
            key = self._key(cache, caller)
            client = cache._cache.get_client(key)
            client.zremrangebyscore(key, "-inf", time.time())
            return client.zcard(key)
        with self._lock:
            return len(self._open.get(caller, ()))

    def clear(self) -> None:
        with self._lock:
            self._open.clear()


open_streams = _Open()


def caller_key(request) -> str:
    """Whose a stream is: the account, or the address of an anonymous caller."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"address:{BaseThrottle().get_ident(request)}"  # as the budgets count it (API_NUM_PROXIES)


class _StreamResponse(StreamingHttpResponse):
    """A stream's response, which gives its caller's place back when the server closes it (its
    end, the client gone, or never started), once."""

    def __init__(self, *args, place: tuple[str, str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._place = place

    def close(self) -> None:
        try:
            super().close()
        finally:
            place, self._place = self._place, None
            if place is not None:
                open_streams.give_back(*place)


def event_stream(request, feed, *, follow: bool = True) -> StreamingHttpResponse:
    """The response that streams ``feed`` (a SeatFeed or TurnFeed); 429 when the caller holds
    STREAMS_PER_CALLER streams already."""
    caller = caller_key(request)
    place = (caller, open_streams.take(caller))
    if isinstance(request._request, ASGIRequest):
        body = _async_stream(feed, follow, place)
        # The request's thread is done with the database: hand its connection back now (to the
        # pool, DATABASE_POOL), not when the stream ends, or each open stream would hold one.
        if not connection.in_atomic_block:
            connection.close()
    else:
        body = _sync_stream(feed, follow, place)
    response = _StreamResponse(body, content_type="text/event-stream; charset=utf-8", place=place)
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy such as nginx must not hold the events back
    return response


def _poll(feed) -> list[bytes]:
    return [encode(event) for event in feed.poll()]


def _poll_in_pool(feed) -> list[bytes]:
    """:func:`_poll` in a thread of the event loop's pool, which no request_finished signal
    ever reaches: its connection is handed back (to the pool, DATABASE_POOL) or closed by age
    here, as Django does at the end of each request."""
    try:
        return _poll(feed)
    finally:
        close_old_connections()


class _Pace:
    """What a stream sends when, the same whether it waits in a thread or on the event loop:
    the events read, a keep-alive after EVENTS_KEEPALIVE_SECONDS of silence, the end when the
    feed is done, when not following, or after STREAM_MAX_SECONDS."""

    def __init__(self, feed, follow: bool, place: tuple[str, str] | None) -> None:
        self.feed, self.follow, self.place = feed, follow, place
        self.started = self.last_sent = self.renewed = time.monotonic()

    def renew(self) -> None:
        """Hold the stream's place among its caller's (a look at least every
        EVENTS_POLL_SECONDS renews it well within CLAIM_SECONDS)."""
        if self.place is not None and time.monotonic() - self.renewed >= CLAIM_SECONDS / 4:
            self.renewed = time.monotonic()
            open_streams.renew(*self.place)

    def sent(self, chunks: list[bytes]) -> bytes:
        self.last_sent = time.monotonic()
        return b"".join(chunks)

    def over(self) -> bool:
        return (self.feed.done or not self.follow or stopping.is_set()
                or time.monotonic() - self.started >= settings.STREAM_MAX_SECONDS)

    def keep_alive(self, woke: bool) -> bytes:
        if woke or time.monotonic() - self.last_sent < settings.EVENTS_KEEPALIVE_SECONDS:
            return b""
        self.last_sent = time.monotonic()
        return b": keep-alive\n\n"


def _failed() -> None:
    log.warning("event stream closed: the database failed", exc_info=True)  # the client reconnects


def _sync_stream(feed, follow: bool, place: tuple[str, str] | None = None):
    hub = events.hub()
    waiter = hub.listen(feed.channels)  # before the first read: nothing published meanwhile is missed
    pace = _Pace(feed, follow, place)
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n".encode()
        while True:
            pace.renew()
            try:
                chunks = _poll(feed)
            except DatabaseError:
                _failed()
                return
            if chunks:
                yield pace.sent(chunks)
            if pace.over():
                return
            if beat := pace.keep_alive(waiter.wait(settings.EVENTS_POLL_SECONDS)):
                yield beat
    finally:
        hub.forget(waiter)


async def _poll_async(feed) -> list[bytes]:
    """One look of ``feed`` from the event loop. A feed whose match another stream of this
    process has read since the notification (tournaments.feeds.MatchReader) answers on the
    loop, without a thread; so does one whose read another stream of the loop has set out to
    make, once that read is done. Else the look runs in a thread of the pool."""
    poll = sync_to_async(_poll_in_pool, thread_sensitive=False)
    if not hasattr(feed, "poll_cached"):
        return await poll(feed)
    got = feed.poll_cached()
    if got is None:
        future, mine = feed.claim()
        if mine:
            try:
                return await poll(feed)
            finally:
                future.set_result(None)
        # Shielded: a waiter that goes away must not cancel the read the others await.
        await asyncio.shield(asyncio.wrap_future(future))
        got = feed.poll_cached()
        if got is None:  # notified again meanwhile, or the read failed: a look of its own
            return await poll(feed)
    return [encode(event) for event in got]


async def _async_stream(feed, follow: bool, place: tuple[str, str] | None = None):
    hub = events.hub()
    waiter = hub.listen(feed.channels, loop=asyncio.get_running_loop())
    pace = _Pace(feed, follow, place)
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n".encode()
        while True:
            if place is not None and time.monotonic() - pace.renewed >= CLAIM_SECONDS / 4:
                await sync_to_async(pace.renew, thread_sensitive=False)()  # Redis: not on the loop
            try:
                chunks = await _poll_async(feed)
            except DatabaseError:
                _failed()
                return
            if chunks:
                yield pace.sent(chunks)
            if pace.over():
                return
            if beat := pace.keep_alive(await waiter.wait_async(settings.EVENTS_POLL_SECONDS)):
                yield beat
    finally:
        hub.forget(waiter)
