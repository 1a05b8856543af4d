"""How often a caller may call the API (docs/api.md, "Limits"). Three budgets, each a number
of requests per period counted in the cache (Redis in a deployment, so every process counts
together), and a request must fit all that apply to it:

* ``anon``: an anonymous caller, per IP address;
* ``user``: a signed-in account, whatever it calls with (its session and all of its tokens
  together), so that making tokens never makes more room;
* ``token`` or ``bot_token``: one token; a token tied to a bot has the larger budget a bot
  playing many tables at once needs.

Beyond a budget the answer is 429 with ``Retry-After`` (seconds). The rates are settings
(``API_*_RATE``), read at each request, so a deployment or a test can change them.
"""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle

from tournaments.models import ApiToken


class _Budget(SimpleRateThrottle):
    """A SimpleRateThrottle whose rate is looked up when a request comes, not when the class
    is made (DRF's own freeze the settings at import)."""

    def __init__(self) -> None:  # the rate depends on the request: parse it in allow_request
        pass

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        self.scope = self.scope_for(request)
        if self.scope is None:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

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
    """A view's own budget (its ``throttle_scope``: ``tokens``, ``accounts``, ``sign_in``), per account or,
    anonymous, per address, its rate read when a request comes."""

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
