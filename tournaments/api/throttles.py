"""How often a caller may call the API (docs/api.md, "Limits"). Three budgets, each a number
of requests per period counted in the cache (Redis in a deployment, so every process counts
together), and a request must fit all that apply to it:

* ``anon``: an anonymous caller, per IP address;
* ``user``: a signed-in account, whatever it calls with (its session and all of its tokens
  together), so that making tokens never makes more room;
* ``token`` or ``bot_token``: one token; a token tied to a bot has the larger budget a bot
  playing many tables at once needs.

Each is counted in fixed windows of its period (a counter a window: :class:`_Budget`).

Beyond a budget the answer is 429 with ``Retry-After`` (seconds). The rates are settings
(``API_*_RATE``), read at each request, so a deployment or a test can change them.
"""

from __future__ import annotations

from django.core.cache import caches
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle, SimpleRateThrottle

from tournaments.cache import count_in_window
from tournaments.models import ApiToken


def spend(key: str, rate: str, now: float) -> tuple[bool, float]:
    """Count one request against the budget ``key`` of ``rate`` ("10/minute": DRF's form) in
    the window ``now`` falls in: whether it is within the rate, and when that window ends
    (the time the next opens). One counter a window, so a key is ``key:window``."""
    allowed, seconds = SimpleRateThrottle.parse_rate(None, rate)  # uses nothing of its instance
    window = int(now // seconds)
    count = count_in_window(caches["default"], f"{key}:{window}", seconds + 1)
    return count <= allowed, (window + 1) * seconds


def address(request) -> str:
    """The caller's address as every budget counts it: the connection's, or with
    API_NUM_PROXIES proxies in front the one the nearest of them saw (DRF's rule)."""
    return BaseThrottle().get_ident(request) or ""


class _Budget(SimpleRateThrottle):
    """A budget counted in fixed windows of its period: one counter a window in the cache,
    incremented by each request (Redis INCR: atomic across processes, O(1) per request), the
    request refused once the counter passes the rate. (DRF's own throttles keep the time of
    every request of the period and rewrite that list at each request: thousands of entries
    for a busy bot's token.) A window's edge may let through twice the rate over one period at
    most. The rate is looked up when a request comes (DRF's own freeze the settings at import)."""

    def __init__(self) -> None:  # the rate depends on the request: parse it in allow_request
        pass

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        self.scope = self.scope_for(request)
        if self.scope is None:
            return True
        allowed, self.window_ends = spend(self.get_cache_key(request, view), self.get_rate(), self.timer())
        return allowed

    def wait(self):
        """Seconds until the window ends (Retry-After)."""
        return max(0.0, self.window_ends - self.timer())

    def scope_for(self, request) -> str | None:
        raise NotImplementedError


class AnonymousThrottle(_Budget):
    """Anonymous callers, per IP address."""

    def scope_for(self, request):
        return None if request.user and request.user.is_authenticated else "anon"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class AccountThrottle(_Budget):
    """A signed-in account, all of its sessions and tokens together."""

    def scope_for(self, request):
        return "user" if request.user and request.user.is_authenticated else None

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class TokenThrottle(_Budget):
    """One token; a token tied to a bot has the bots' budget."""

    def scope_for(self, request):
        if not isinstance(request.auth, ApiToken):
            return None
        return "bot_token" if request.auth.bot_id else "token"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}


class ScopeThrottle(ScopedRateThrottle):
    """A view's own budget (its ``throttle_scope``: ``tokens``, ``accounts``), per account or,
    anonymous, per address, its rate read when a request comes. A view's
    ``throttle_scope_methods`` (e.g. POST only: sign-ups) limits what counts. (Sign-in attempts
    have budgets of their own, counted wherever a password is presented: tournaments/signin.py.)"""

    def allow_request(self, request, view):
        methods = getattr(view, "throttle_scope_methods", None)
        if methods is not None and request.method not in methods:
            return True
        return super().allow_request(request, view)

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
