"""Who is told that an online match changed: bare notifications, fanned out to the event
streams of every web process (docs/online.md, "Event streams").

A notification names a *channel* and nothing else — ``match:42`` (the match moved, opened, a
seat was forfeited, its clock changed) or ``user:7`` (a match where user 7's players hold an
online seat did) — never a card, an action or a view. A stream that hears one reads what
changed from the database, where the services committed it, and renders it for its own seat
(tournaments.feeds). So nothing secret ever crosses Redis, a lost notification costs only
latency (every stream also looks again every ``EVENTS_POLL_SECONDS``), and a notification is
published only once the transaction that made the change has committed
(``transaction.on_commit``): a stream never reads a change that may still be rolled back.

Two hubs, chosen by the ``EVENTS_REDIS_URL`` setting:

* **in-process** (unset, the embedded default): publishing wakes the waiters of this process.
  Enough for ``runserver`` and the tests, where the moves and the streams share a process.
* **Redis** (set; it defaults to a ``redis://`` CELERY_BROKER_URL): publishing is one Redis
  ``PUBLISH`` per commit, naming its channels, from whichever process committed (a web request,
  a Celery worker's timeout); each web process runs one listener thread (``SUBSCRIBE``) that
  wakes its own waiters. The Redis channel is the deployment's own (:func:`redis_channel`).

A waiter is registered *before* its stream first reads the database and is only cleared when
it wakes, so a notification published while the stream reads is never missed. A :class:`Mark`
counts a channel's notifications for whoever shares reads between streams (tournaments.feeds:
one read of a match per change, whichever of its streams wakes first): every mark of a
notification is counted before any waiter of it wakes, so a woken stream always sees the count
that its notification added.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)


def redis_channel(url: str) -> str:
    """The one Redis channel of a deployment's notifications, ``mazziere:<db>:events`` for the
    database number of the events' Redis URL (``redis://host:6379/3``: 3; none: 0). Redis's
    publish and subscribe ignore the database, while deployments that share a server keep to
    databases of their own (their queues and caches must not mix either): so each hears its own
    matches and users only. Each message is the names of the channels one commit notifies,
    separated by spaces (one message per commit, not one per channel: a move notifies its match
    and each online seat's owner, and every web process parses every message)."""
    from redis.connection import parse_url  # celery[redis]'s client; only where a Redis hub is configured

    return f"mazziere:{parse_url(url).get('db', 0)}:events"


def match_channel(match_id: int) -> str:
    return f"match:{match_id}"


def user_channel(user_id: int) -> str:
    return f"user:{user_id}"


class Waiter:
    """One stream's wake-up flag over a set of channels, waited on from a thread or from an
    event loop (the loop given at creation)."""

    def __init__(self, channels: frozenset[str], loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.channels = channels
        self._flag = threading.Event()
        self._loop = loop
        self._async_flag = asyncio.Event() if loop is not None else None

    def wake(self) -> None:
        self._flag.set()
        if self._loop is not None:
            try:
                self._loop.call_soon_threadsafe(self._async_flag.set)
            except RuntimeError:  # the loop has closed: nobody waits any more
                pass

    def wait(self, timeout: float) -> bool:
        """Block until woken or ``timeout`` seconds; True when woken. Clears the flag."""
        woke = self._flag.wait(timeout)
        self._flag.clear()
        return woke

    async def wait_async(self, timeout: float) -> bool:
        """:meth:`wait` for a coroutine on the waiter's loop."""
        try:
            async with asyncio.timeout(timeout):  # no task of its own, unlike wait_for
                await self._async_flag.wait()
            woke = True
        except TimeoutError:
            woke = False
        self._async_flag.clear()
        self._flag.clear()
        return woke


class Mark:
    """How many notifications of its channels this process has heard (``count``), counted by
    the hub before it wakes any waiter of the same notification."""

    def __init__(self, channels: frozenset[str]) -> None:
        self.channels = channels
        self.count = 0
        self._lock = threading.Lock()  # two publishing threads must not lose a count

    def wake(self) -> None:
        with self._lock:
            self.count += 1


class LocalHub:
    """The waiters and marks of this process, by channel; ``publish`` counts the marks, then
    wakes the waiters."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[Waiter]] = defaultdict(set)
        self._marks: dict[str, set[Mark]] = defaultdict(set)

    def listen(self, channels: Iterable[str], *, loop: asyncio.AbstractEventLoop | None = None) -> Waiter:
        waiter = Waiter(frozenset(channels), loop)
        with self._lock:
            for channel in waiter.channels:
                self._waiters[channel].add(waiter)
        return waiter

    def mark(self, channels: Iterable[str]) -> Mark:
        """A new :class:`Mark` of ``channels``, counted until :meth:`forget`."""
        mark = Mark(frozenset(channels))
        with self._lock:
            for channel in mark.channels:
                self._marks[channel].add(mark)
        return mark

    def forget(self, waiter: Waiter | Mark) -> None:
        registry = self._marks if isinstance(waiter, Mark) else self._waiters
        with self._lock:
            for channel in waiter.channels:
                waiting = registry.get(channel)
                if waiting is not None:
                    waiting.discard(waiter)
                    if not waiting:
                        del registry[channel]

    def wake(self, channels: Iterable[str]) -> None:
        with self._lock:
            marks = {m for channel in channels for m in self._marks.get(channel, ())}
            woken = {w for channel in channels for w in self._waiters.get(channel, ())}
        self._wake(marks, woken)

    def wake_all(self) -> None:
        with self._lock:
            marks = {m for marked in self._marks.values() for m in marked}
            woken = {w for waiting in self._waiters.values() for w in waiting}
        self._wake(marks, woken)

    @staticmethod
    def _wake(marks: set[Mark], woken: set[Waiter]) -> None:
        # Marks first: a stream woken by this notification must find it counted.
        for mark in marks:
            mark.wake()
        for waiter in woken:
            waiter.wake()

    def waiting(self) -> int:
        """How many waiters are registered (for tests and the health of a process)."""
        with self._lock:
            return len({w for waiting in self._waiters.values() for w in waiting})

    def marked(self) -> int:
        """How many marks are registered (for tests: a match's shared reader goes with its
        last stream)."""
        with self._lock:
            return len({m for marked in self._marks.values() for m in marked})

    def publish(self, channels: Iterable[str]) -> None:
        self.wake(channels)


class RedisHub(LocalHub):
    """:class:`LocalHub` across processes: ``publish`` goes to Redis, and a listener thread
    (started by the first ``listen``) wakes this process's waiters for each message. When Redis
    is unreachable the listener retries every second and, once back, wakes every waiter (what
    was published meanwhile was lost: the streams read again)."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.channel = redis_channel(url)
        self._client = None
        self._listener: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def _redis(self):
        if self._client is None:
            import redis  # celery[redis]'s client; imported only where a Redis hub is configured

            self._client = redis.Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=5)
        return self._client

    def publish(self, channels: Iterable[str]) -> None:
        channels = list(channels)
        if not channels:
            return
        try:
            self._redis().publish(self.channel, " ".join(channels).encode())
        except Exception:
            log.warning("event notification for %s not published", list(channels), exc_info=True)

    def listen(self, channels: Iterable[str], *, loop: asyncio.AbstractEventLoop | None = None) -> Waiter:
        self._ensure_listener()
        return super().listen(channels, loop=loop)

    def _ensure_listener(self) -> None:
        if self._listener is not None and self._listener.is_alive():
            return
        with self._start_lock:
            if self._listener is None or not self._listener.is_alive():
                self._listener = threading.Thread(target=self._listen_forever, name="mazziere-events", daemon=True)
                self._listener.start()

    def _listen_forever(self) -> None:
        import redis

        while True:
            try:
                pubsub = redis.Redis.from_url(self.url, socket_connect_timeout=5).pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self.channel)
                self.wake_all()  # (re)connected: whatever was published while away is read again
                for message in pubsub.listen():
                    data = message.get("data")
                    if isinstance(data, bytes) and message.get("type") == "message":
                        self.wake(data.decode().split())
            except Exception:
                log.warning("event listener lost Redis at %s; retrying", self.url, exc_info=True)
                time.sleep(1.0)


_hub: LocalHub | None = None
_hub_lock = threading.Lock()


def hub() -> LocalHub:
    """This process's hub, made from the settings on first use."""
    global _hub
    if _hub is None:
        with _hub_lock:
            if _hub is None:
                url = settings.EVENTS_REDIS_URL
                _hub = RedisHub(url) if url else LocalHub()
    return _hub


def publish_on_commit(channels: Iterable[str]) -> None:
    """Publish ``channels`` once the current transaction commits (at once outside one)."""
    channels = sorted(set(channels))
    if channels:
        transaction.on_commit(lambda: hub().publish(channels))
