"""Django's Redis cache with one connection pool per process, which degrades rather than fails.

Django makes its cache objects per thread and, under ASGI, per request context; each of
Django's RedisCache objects makes its own connection pool. Under uvicorn that is a new pool, so
a new TCP connection to Redis, for every request: measured at 3.6 ms more per API request (the
throttles use the cache on every request). This backend shares one client, and so one pool,
per process and location; redis-py's pools are thread-safe. Its client also keeps one
``redis.Redis`` a pool, where Django's makes a new one for every call (a third of the
throttles' cost: each builds its table of some 170 reply parsers).

Where Redis cannot be reached (stopped, restarting, the network), every call falls back to this
process's memory (a LocMemCache) instead of raising, and the log says so: the budgets then count
per process, kept answers are kept per process, and reads and moves go on (a Redis outage had
been a full API outage: every authenticated request answered 500). After a failure Redis is
left alone for RETRY_SECONDS, so that requests do not each wait for a connection to time out;
connections time out after CONNECT_SECONDS.
"""

from __future__ import annotations

import logging
import threading
import time

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.utils.functional import cached_property
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

_clients: dict = {}
_lock = threading.Lock()

RETRY_SECONDS = 5.0  # after a failure, Redis is tried again this long after
CONNECT_SECONDS = 0.5  # a connection (and a reply) waited for at most this long
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)


class _Fallback:
    """Whether this process's Redis is to be left alone now, and the memory used meanwhile."""

    def __init__(self) -> None:
        self.until = 0.0
        self.local = LocMemCache("mazziere-fallback", {"OPTIONS": {"MAX_ENTRIES": 10_000}})

    @property
    def active(self) -> bool:
        return time.monotonic() < self.until

    def failed(self, exc: BaseException) -> None:
        if not self.active:
            log.warning("the cache's Redis cannot be reached (%s): budgets and kept answers count in this "
                        "process's memory for %s s, then Redis is tried again", exc, RETRY_SECONDS)
        self.until = time.monotonic() + RETRY_SECONDS


fallback = _Fallback()


class KeptClient(RedisCacheClient):
    """Django's Redis client that keeps a ``redis.Redis`` for each of its pools (they are
    thread-safe: every command takes a connection from the pool)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._kept: dict = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._kept.get(index)
        if client is None:
            client = self._kept[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client


def _degrading(name: str):
    """RedisCache's method ``name``, done in this process's memory while Redis cannot be
    reached (and when it turns out it cannot)."""
    redis_method = getattr(DjangoRedisCache, name)
    local_method = getattr(LocMemCache, name)

    def method(self, *args, **kwargs):
        if not fallback.active:
            try:
                return redis_method(self, *args, **kwargs)
            except UNREACHABLE as exc:
                fallback.failed(exc)
        return local_method(fallback.local, *args, **kwargs)

    method.__name__ = name
    return method


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        params = {**params, "OPTIONS": {"socket_connect_timeout": CONNECT_SECONDS, "socket_timeout": CONNECT_SECONDS,
                                        **params.get("OPTIONS", {})}}
        super().__init__(server, params)
        self._class = KeptClient

    @cached_property
    def _cache(self):
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client


for _name in ("add", "get", "set", "touch", "delete", "get_many", "has_key", "incr", "set_many", "delete_many",
              "clear"):
    setattr(RedisCache, _name, _degrading(_name))


def count_in_window(cache, key: str, seconds: int) -> int:
    """Add one to the counter ``key`` of ``cache``, which lives ``seconds`` from its first count,
    and return it. On Redis one round trip (INCR, and EXPIRE NX: Redis 7 or newer, pipelined); on
    another cache (the embedded default's memory) add and incr."""
    if isinstance(cache, RedisCache) and not fallback.active:
        made = cache.make_and_validate_key(key)
        try:
            with cache._cache.get_client(made, write=True).pipeline(transaction=False) as pipe:
                count, _ = pipe.incr(made).expire(made, seconds, nx=True).execute()
            return count
        except UNREACHABLE as exc:
            fallback.failed(exc)
    if isinstance(cache, RedisCache):
        cache = fallback.local  # counted in this process while Redis cannot be reached
    cache.add(key, 0, seconds)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr: this count opens it again
        cache.set(key, 1, seconds)
        return 1
