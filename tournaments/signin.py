"""Budgets on presenting a password (docs/api.md, "Limits"): every way to sign in with a
username and password, whatever the path (HTTP Basic on the API, ``POST /api/session/``, the
admin's login, the pages' sign-in form), goes through Django's ``authenticate()``, and the
first backend it asks is :class:`SignInBudget`, which counts the attempt before any password
is hashed and checked:

* per address (``API_SIGN_IN_RATE``, 10/minute): one caller guessing, whatever usernames it
  tries;
* per account, the username tried (``API_SIGN_IN_ACCOUNT_RATE``, 20/hour): many addresses
  guessing one account's password. Counted only for attempts within their address's budget,
  so a caller already refused spends nothing of the account's.

Beyond either, the attempt is refused (:class:`SignInRefused`), the right password too: 429
with ``Retry-After``, in the API's JSON shape on the API (DRF answers it: it is a ``Throttled``),
a page in the site's layout elsewhere (tournaments.web.middleware.SignInRefusedMiddleware; the
pages' sign-in form shows it above the form). The budget only stops passwords: a token, or a
session already signed in, presents none, so a stranger spending an account's budget never
stops its owner's programs nor their open sessions, only their signing in again with the
password until the window ends.

Counted in the cache in fixed windows, like the API's own budgets (tournaments/api/throttles.py).
"""

from __future__ import annotations

import hashlib
import math
import time

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from rest_framework import exceptions
from rest_framework.settings import api_settings

from tournaments.api.throttles import address, spend

ADDRESS = "sign_in"  # API_SIGN_IN_RATE
ACCOUNT = "sign_in_account"  # API_SIGN_IN_ACCOUNT_RATE

clock = time.time  # the windows' time (tests hold it still)


class SignInRefused(exceptions.Throttled):
    """Too many attempts: from this address (``by`` "address") or at this account ("account").
    ``wait``: whole seconds until the window ends. DRF adds "Expected available in N seconds."."""

    def __init__(self, by: str, wait: int) -> None:
        self.by = by
        where = "from this address" if by == "address" else "for this account"
        super().__init__(wait=wait, detail=f"Too many sign-in attempts {where}.")


def account_key(username: str) -> str:
    """The account's counter: the username as tried, without its case (``Ada`` and ``ada`` are
    one account: tournaments.services.accounts), hashed so any text makes a short key."""
    return hashlib.sha256(username.casefold().encode("utf-8", "surrogatepass")).hexdigest()[:32]


def attempt(request, username: str) -> None:
    """Count one attempt to sign in as ``username`` from ``request``'s address; raises
    :class:`SignInRefused` beyond either budget (the address's first: a refused caller does
    not spend the account's). ``request`` None (a call from the shell): the account's only."""
    rates = api_settings.DEFAULT_THROTTLE_RATES
    now = clock()
    budgets = [("account", ACCOUNT, account_key(username))]
    if request is not None:
        budgets.insert(0, ("address", ADDRESS, address(request)))
    for by, scope, ident in budgets:
        allowed, ends = spend(f"throttle_{scope}_{ident}", rates[scope], now)
        if not allowed:
            raise SignInRefused(by, max(1, math.ceil(ends - now)))


class SignInBudget:
    """An authentication backend that authenticates nobody: first in AUTHENTICATION_BACKENDS,
    it counts each username-and-password attempt (:func:`attempt`) and refuses those beyond
    the budgets, and leaves the others to the next backend (Django's ModelBackend), which
    checks the password. It has no ``get_user``: sessions never name it, and stay
    ModelBackend's."""

    def authenticate(self, request, username=None, password=None, **credentials):
        if password is None:  # not a password: another backend's credentials
            return None
        if username is None:
            username = credentials.get(get_user_model().USERNAME_FIELD)
        attempt(request, str(username or ""))
        return None

    async def aauthenticate(self, request, username=None, password=None, **credentials):
        return await sync_to_async(self.authenticate)(request, username, password, **credentials)

