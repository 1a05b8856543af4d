"""Django's Redis cache with one connection pool per process.

Django makes its cache objects per thread and, under ASGI, per request context; each of
Django's RedisCache objects makes its own connection pool. Under uvicorn that is a new pool, so
a new TCP connection to Redis, for every request: measured at 3.6 ms more per API request (the
throttles use the cache on every request). This backend shares one client, and so one pool,
per process and location; redis-py's pools are thread-safe. Its client also keeps one
``redis.Redis`` a pool, where Django's makes a new one for every call (a third of the
throttles' cost: each builds its table of some 170 reply parsers).
"""

from __future__ import annotations

import threading

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.utils.functional import cached_property

_clients: dict = {}
_lock = threading.Lock()


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


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
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


def count_in_window(cache, key: str, seconds: int) -> int:
    """Add one to the counter ``key`` of ``cache``, which lives ``seconds`` from its first count,
    and return it. On Redis one round trip (INCR, and EXPIRE NX: Redis 7 or newer, pipelined); on
    another cache (the embedded default's memory) add and incr."""
    if isinstance(cache, RedisCache):
        key = cache.make_and_validate_key(key)
        with cache._cache.get_client(key, write=True).pipeline(transaction=False) as pipe:
            count, _ = pipe.incr(key).expire(key, seconds, nx=True).execute()
        return count
    cache.add(key, 0, seconds)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr: this count opens it again
        cache.set(key, 1, seconds)
        return 1
