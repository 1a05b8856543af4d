"""The ``http`` transport, and the rule for which addresses a bot may be reached at.

Every message is POSTed as JSON to the bot's URL; the answer to ``act`` is the body.

The public-address rule, in one place: :func:`host_may_be_public` says whether a host can be
on the public internet (not ``localhost``, a name under ``.localhost``, or an address
literal outside the public internet); a name is resolved when the bot is called. With
``public_only`` (:class:`HttpBot`), the same rule is applied at every connection and
redirect to the host and to every address it resolves to, and the connection is made to an
address so checked (:class:`PrivateAddress` otherwise). The tournament service also applies
:func:`host_may_be_public` when a bot is registered.
"""

from __future__ import annotations

import errno
import http.client
import ipaddress
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from ..base import BotFailure
from .protocol import ExternalBot, encode

__all__ = ["HttpBot", "PrivateAddress", "host_may_be_public"]

# Proxies from the environment must not see bot traffic (and would break 127.0.0.1 bots).
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class PrivateAddress(OSError):
    """An http bot's host is, or resolves to, an address that is not on the public internet."""


def host_may_be_public(host: str) -> bool:
    """Whether ``host`` (a URL's host: a name or an address literal) may be on the public
    internet: False for ``localhost``, a name under ``.localhost`` and an address literal
    that is not global (loopback, private, link-local, unspecified, reserved...); True for any
    other name, which is resolved, and its addresses held to this rule, at every connection."""
    public = _global(host)
    if public is not None:
        return public
    name = host.lower().rstrip(".")
    return name != "localhost" and not name.endswith(".localhost")


def _global(address: str) -> bool | None:
    """Whether an address literal is on the public internet; None for a name."""
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_global  # "%": an IPv6 zone
    except ValueError:
        return None


def _public_connection(address, timeout=socket._GLOBAL_DEFAULT_TIMEOUT, source_address=None):
    """socket.create_connection, but only to public addresses (:func:`host_may_be_public`):
    the name is resolved once and the connection made to the address checked, so a name
    cannot point elsewhere between the check and the connection (DNS rebinding)."""
    host, port = address
    error: OSError | None = None
    if not host_may_be_public(host):
        raise PrivateAddress(f"{host} is not a public address")
    resolved = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for *_, sockaddr in resolved:  # all of them: a name may mix public and private addresses
        ip = sockaddr[0].split("%", 1)[0]
        if _global(ip) is not True:  # what does not parse as an address is refused too
            raise PrivateAddress(f"{host} resolves to {ip}, which is not a public address")
    for family, kind, proto, _, sockaddr in resolved:
        sock = socket.socket(family, kind, proto)
        try:
            if timeout is not socket._GLOBAL_DEFAULT_TIMEOUT:
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            sock.close()
            error = exc
    raise error or OSError(f"{host}: no address")


class _PublicHTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._create_connection = _public_connection


class _PublicHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._create_connection = _public_connection  # TLS still checks the name, not the address


class _PublicHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(_PublicHTTPConnection, req)


class _PublicHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):
        return self.do_open(_PublicHTTPSConnection, req, context=self._context)


# For a service that runs bots registered by the public: redirects are followed through the
# same handlers, so they are held to the same rule.
_PUBLIC_OPENER = urllib.request.build_opener(
    urllib.request.ProxyHandler({}), _PublicHTTPHandler(), _PublicHTTPSHandler()
)


def opener(public_only: bool) -> urllib.request.OpenerDirector:
    """The URL opener the service's outgoing POSTs use (HTTP bots, webhooks): no proxy from the
    environment and, with ``public_only``, every connection (redirects included) checked to go
    to a public address."""
    return _PUBLIC_OPENER if public_only else _OPENER


class HttpBot(ExternalBot):
    """A bot behind a URL: every message is POSTed as JSON; ``act`` is answered in the body.

    The transport errors (refused connection, an HTTP error status) are ``crash``; no answer
    within the allowance is ``timeout``; an answer bigger than ``answer_bytes`` is
    ``output_limit``. ``start`` and ``finish`` answers are ignored (any 2xx will do).

    With ``public_only``, the bot may only be reached at public internet addresses: a URL whose
    host is not :func:`host_may_be_public` or resolves, at connection time, to a loopback,
    private, link-local or otherwise reserved address is a ``crash`` naming the address. A service running bots registered by
    anyone sets it, so that a bot URL cannot make the service POST to its own network.
    """

    session_outlives = True  # each message is its own request: the bot's server keeps the match

    def __init__(
        self,
        game: str,
        seed: int | str | None = None,
        *,
        url: str,
        limits: Any = None,
        headers: Mapping[str, str] | None = None,
        public_only: bool = False,
    ) -> None:
        super().__init__(game, seed, limits=limits)
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise ValueError(f"an http bot needs an http:// or https:// URL, got {url!r}")
        self.url = url
        self.public_only = public_only
        self.opener = opener(public_only)
        self.headers = {"Content-Type": "application/json", **dict(headers or {})}

    def _post(self, message: dict, timeout: float) -> bytes:
        request = urllib.request.Request(
            self.url, data=encode(message), headers=self.headers, method="POST"
        )
        limit = self.limits.answer_bytes
        try:
            with self.opener.open(request, timeout=max(timeout, 0.001)) as response:
                body = response.read(limit + 1)
        except urllib.error.HTTPError as exc:
            text = exc.read(300).decode("utf-8", "replace")
            raise BotFailure("crash", f"HTTP {exc.code} {exc.reason}: {text!r}") from None
        except (TimeoutError, urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or "timed out" in str(reason):
                raise BotFailure("timeout", self.clock.describe()) from None
            if isinstance(reason, PrivateAddress):
                raise BotFailure("crash", f"{self.url}: {reason}; only public addresses are allowed") from None
            if isinstance(reason, OSError) and reason.errno == errno.ECONNREFUSED:
                raise BotFailure("crash", f"connection refused by {self.url}") from None
            raise BotFailure("crash", f"{self.url}: {reason}") from None
        if len(body) > limit:
            raise BotFailure("output_limit", f"an answer longer than {limit} bytes")
        return body.strip()

    def _start(self, message: dict) -> None:
        self._post(message, self.limits.startup)

    def _ask(self, message: dict, timeout: float) -> bytes:
        return self._post(message, timeout)

    def _tell(self, message: dict) -> None:
        try:
            self._post(message, 1.0)
        except BotFailure:
            pass
