"""The ``http`` transport, and the rule for which addresses a bot may be reached at.

Every message is POSTed as JSON to the bot's URL; the answer to ``act`` is the body.

The public-address rule, in one place: :func:`why_not_public` says why a host (a URL's host: a
name or an address literal) cannot be on the public internet, or None when it may be. An
address is public when it is a global unicast address: IPv4 that :mod:`ipaddress` calls global
and is not multicast; IPv6 in 2000::/3 outside the ranges that are no host's (2001::/23,
Teredo among them, documentation, 6to4), and an IPv6 address that carries an IPv4 one
(IPv4-mapped ``::ffff:0:0/96``, NAT64 ``64:ff9b::/96``) only as that IPv4 address is. Every
other range is refused (IPv4-compatible ``::a.b.c.d``, NAT64's local-use ``64:ff9b:1::/48``,
site-local ``fec0::/10``...), and so is an IPv4 address spelled otherwise than as four decimal
numbers (``127.1``, ``0x7f.1``, ``2130706433``, ``0177.0.0.1``: getaddrinfo reads them all).
A name is resolved when the bot is called. With ``public_only`` (:class:`HttpBot`,
:func:`opener`), the rule is applied at every connection, to the host and to every address it
resolves to, and the connection is made to an address so checked (:class:`PrivateAddress`
otherwise). Redirects are never followed, whoever answers them: a 3xx is the answer.
:func:`failure` words a failed request in its caller's terms (never the address a name
resolved to, nor a file of ours). The tournament service applies :func:`why_not_public` when
a bot or a webhook is registered.

Time: :func:`opener`'s ``timeout`` bounds the whole exchange, not each read. It is a deadline
from the moment the connection is made: connecting, TLS's handshake, sending the request, the
status line, the headers and every read of the body are each given what is left of it, and
none is left is a timeout. A server that trickles its answer a byte at a time (each read
answered well within a per-read timeout) is cut off at the deadline like one that never
answers.
"""

from __future__ import annotations

import errno
import functools
import http.client
import io
import ipaddress
import re
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from ..base import BotFailure
from .protocol import ExternalBot, encode

__all__ = ["REDIRECT_REFUSED", "HttpBot", "PrivateAddress", "failure", "host_may_be_public", "opener", "why_not_public"]

# IPv6 ranges that carry an IPv4 address in their last 32 bits and reach it: IPv4-mapped (a
# socket connects to the IPv4 address itself) and NAT64's well-known prefix (a translator
# does). Such an address is as public as the IPv4 address it carries.
_CARRY_IPV4 = (ipaddress.ip_network("::ffff:0:0/96"), ipaddress.ip_network("64:ff9b::/96"))
# IPv6 hosts are in 2000::/3; in it, these are no host's: IANA's special-purpose block
# (Teredo, benchmarking, ORCHID...), documentation, and 6to4 (a relay to an IPv4 address).
_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")
_NOT_HOSTS = tuple(ipaddress.ip_network(n) for n in ("2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20"))
# What getaddrinfo (inet_aton) reads as an IPv4 address when its last label is a number:
# decimal, octal (a leading 0) or hexadecimal (0x), in one to four parts.
_NUMBER = re.compile(r"(0x[0-9a-f]*|[0-9]+)")
_HOST_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*")  # once IDNA-encoded
REDIRECT_REFUSED = "redirects are not followed: the URL must answer itself"


class PrivateAddress(OSError):
    """An http bot's host is, or resolves to, an address that is not on the public internet."""


def _public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if address.version == 6:
        if any(address in carrier for carrier in _CARRY_IPV4):
            return _public_address(ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF))
        if address not in _GLOBAL_UNICAST or any(address in n for n in _NOT_HOSTS):
            return False
    return address.is_global and not address.is_multicast


def _global(address: str) -> bool | None:
    """Whether an address literal is on the public internet; None for a name."""
    try:
        return _public_address(ipaddress.ip_address(address.split("%", 1)[0]))  # "%": an IPv6 zone
    except ValueError:
        return None


def why_not_public(host: str) -> str | None:
    """Why ``host`` (a URL's host: a name or an address literal) cannot be on the public
    internet, or None when it may be: ``localhost`` and names under ``.localhost``, an address
    literal that is not public (the module's rule), and an IPv4 address in any spelling but
    a.b.c.d are refused; any other name may be public, and is resolved, and its addresses held
    to this rule, at every connection. The name is judged as the resolver will see it:
    IDNA-mapped (fullwidth digits and dots are ASCII ones), without a trailing dot."""
    refused = f"{host} is not a public address"
    public = _global(host)
    if public is not None:
        return None if public else refused
    try:
        name = host.encode("idna").decode("ascii").lower().rstrip(".")
    except UnicodeError:
        name = ""
    public = _global(name)
    if public is not None:
        return None if public else refused
    if not _HOST_NAME.fullmatch(name):  # e.g. "127.0.0.1:80" from a URL's %3a: no name resolves so
        return f"{host} is not a host name"
    if name == "localhost" or name.endswith(".localhost"):
        return refused
    if _NUMBER.fullmatch(name.rsplit(".", 1)[-1]):
        return f"{refused}: an IPv4 address is written as four decimal numbers, a.b.c.d"
    return None


def host_may_be_public(host: str) -> bool:
    """Whether ``host`` may be on the public internet (:func:`why_not_public` says why not)."""
    return why_not_public(host) is None


# socket.create_connection's "no timeout given" (private, and so absent from typeshed).
_DEFAULT_TIMEOUT: object = socket._GLOBAL_DEFAULT_TIMEOUT  # type: ignore[attr-defined]


def _public_connection(address, timeout=_DEFAULT_TIMEOUT, source_address=None):
    """socket.create_connection, but only to public addresses (:func:`why_not_public`): the
    name is resolved once and the connection made to the address checked, so a name cannot
    point elsewhere between the check and the connection (DNS rebinding). A name that does not
    resolve and one that resolves to an address that is not public are refused alike, without
    the address: whoever registers names must not learn how the service's network resolves them."""
    host, port = address
    error: OSError | None = None
    why = why_not_public(host)
    if why is not None:
        raise PrivateAddress(why)
    unresolved = PrivateAddress(f"{host} does not resolve to public addresses only")
    try:
        resolved = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise unresolved from None
    # All of them: a name may mix public and private addresses; what does not parse as an
    # address is refused too.
    if not resolved or any(_global(str(sockaddr[0])) is not True for *_, sockaddr in resolved):
        raise unresolved
    for family, kind, proto, _, sockaddr in resolved:
        sock = socket.socket(family, kind, proto)
        try:
            if timeout is not _DEFAULT_TIMEOUT:
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            sock.close()
            error = exc
    raise error or OSError(f"{host}: no address")


def _left(deadline: float) -> float:
    """The seconds left before ``deadline`` (time.monotonic()); none left is a timeout."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out")
    return left


class _ReadInTime(io.RawIOBase):
    """A socket's reads (its SocketIO ``raw``), each given what is left of ``deadline`` as
    the socket's timeout: an answer read in any number of reads takes no longer in all."""

    def __init__(self, raw: io.RawIOBase, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self.raw, self.sock, self.deadline = raw, sock, deadline

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.raw.fileno()

    def readinto(self, buffer) -> int | None:
        self.sock.settimeout(_left(self.deadline))
        return self.raw.readinto(buffer)

    def close(self) -> None:
        if not self.closed:
            self.raw.close()
        super().close()


class _AnswerInTime(http.client.HTTPResponse):
    """An answer whose every read (status line, headers, body) ends by ``deadline``."""

    def __init__(self, sock, *args, deadline: float, **kwargs) -> None:
        super().__init__(sock, *args, **kwargs)
        self.fp = io.BufferedReader(_ReadInTime(self.fp.detach(), sock, deadline))


class _InTime(http.client.HTTPConnection):
    """An HTTP connection whose ``timeout`` is a deadline for the whole exchange, counted from
    the connection's making (urllib makes one per request): connecting, the TLS handshake
    (one call, which Python bounds as a whole by the socket's timeout), every send and every
    read of the answer get what is left of it. ``connect_socket`` makes the socket
    (socket.create_connection, or :func:`_public_connection`). A base of _HTTPConnection and,
    before http.client.HTTPSConnection, of _HTTPSConnection."""

    connect_socket: Callable[..., socket.socket] = staticmethod(socket.create_connection)
    deadline: float | None = None  # none without a timeout (socket._GLOBAL_DEFAULT_TIMEOUT)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Always through connect_socket: the public-address check must not depend on a timeout.
        self._create_connection = self._connect_in_time
        if isinstance(self.timeout, (int, float)):
            self.deadline = time.monotonic() + self.timeout
            # Called as the class is (response_class(sock, method=...)); typeshed says a class.
            self.response_class = functools.partial(_AnswerInTime, deadline=self.deadline)  # type: ignore[assignment]

    def _connect_in_time(self, address, timeout, source_address=None):
        deadline = self.deadline
        if deadline is None:  # no timeout given: the socket's default, as urllib would
            return self.connect_socket(address, timeout, source_address)
        sock = self.connect_socket(address, _left(deadline), source_address)  # bounded by what is left
        sock.settimeout(_left(deadline))  # what TLS's handshake, or the first send, may take
        return sock

    def send(self, data) -> None:
        if self.sock is not None and self.deadline is not None:
            self.sock.settimeout(_left(self.deadline))
        super().send(data)


class _HTTPConnection(_InTime, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_InTime, http.client.HTTPSConnection):
    pass


class _PublicHTTPConnection(_HTTPConnection):
    connect_socket = staticmethod(_public_connection)


class _PublicHTTPSConnection(_HTTPSConnection):
    connect_socket = staticmethod(_public_connection)  # TLS still checks the name, not the address


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, connection: type[http.client.HTTPConnection]) -> None:
        super().__init__()
        self.connection = connection

    def http_open(self, req):
        return self.do_open(self.connection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, connection: type[http.client.HTTPSConnection]) -> None:
        super().__init__()
        self.connection = connection

    def https_open(self, req):
        # HTTPSHandler's own context, which typeshed does not declare.
        return self.do_open(self.connection, req, context=self._context)  # type: ignore[attr-defined]


def _opener(*handlers: urllib.request.BaseHandler) -> urllib.request.OpenerDirector:
    """An opener of http and https URLs only, with no proxy from the environment (it must not
    see bot traffic, and would break 127.0.0.1 bots) and no redirects: a 3xx answer is an
    HTTPError of its status, as any other answer that is not 2xx."""
    director = urllib.request.OpenerDirector()
    for handler in (urllib.request.UnknownHandler(), *handlers, urllib.request.HTTPDefaultErrorHandler(),
                    urllib.request.HTTPErrorProcessor()):
        director.add_handler(handler)
    return director


_OPENER = _opener(_HTTPHandler(_HTTPConnection), _HTTPSHandler(_HTTPSConnection))
_PUBLIC_OPENER = _opener(_HTTPHandler(_PublicHTTPConnection), _HTTPSHandler(_PublicHTTPSConnection))


def opener(public_only: bool) -> urllib.request.OpenerDirector:
    """The URL opener the service's outgoing POSTs use (HTTP bots, webhooks): no proxy, no
    redirects (a host exempt from the rule is exempt for itself, not for where it points) and,
    with ``public_only``, every connection checked to go to a public address. Its ``timeout``
    bounds the whole exchange, the answer's reads through the response included (the
    module's "Time")."""
    return _PUBLIC_OPENER if public_only else _OPENER


def failure(exc: BaseException) -> str:
    """What went wrong with a request, in its caller's terms: a refusal by the public-address
    rule (which names the host, not what it resolved to), no answer in time, a refused
    connection, a TLS failure, an answer that is not HTTP, or the system's words for a network
    error. Never a traceback or a file of ours (OpenSSL's messages carry a C source line)."""
    reason = _reason(exc)
    if isinstance(reason, str):  # urllib's own words, e.g. an unknown URL type
        return reason
    if isinstance(reason, PrivateAddress):
        return str(reason)
    if timed_out(exc):
        return "no answer in time"
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"TLS: the certificate is not accepted ({reason.verify_message})"
    if isinstance(reason, ssl.SSLError):
        return f"TLS failed ({reason.reason or 'the handshake'})"
    if isinstance(reason, http.client.RemoteDisconnected):
        return "the connection was closed without an answer"
    if isinstance(reason, http.client.HTTPException):
        return f"the answer is not HTTP ({type(reason).__name__})"
    if isinstance(reason, socket.gaierror):
        return "the name does not resolve"
    if isinstance(reason, OSError) and reason.errno == errno.ECONNREFUSED:
        return "connection refused"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    if isinstance(reason, ValueError):
        return f"the URL is not valid ({reason})"
    return type(reason).__name__


def _reason(exc: BaseException) -> BaseException | str:
    return exc.reason if isinstance(exc, urllib.error.URLError) else exc


def timed_out(exc: BaseException) -> bool:
    """Whether a request failed for want of an answer in time."""
    reason = _reason(exc)
    return isinstance(reason, TimeoutError) or "timed out" in str(reason)


class HttpBot(ExternalBot):
    """A bot behind a URL: every message is POSTed as JSON; ``act`` is answered in the body.

    The transport errors (refused connection, an HTTP error status) are ``crash``; no whole
    answer within the allowance (the request's deadline: :func:`opener`) is ``timeout``; an
    answer bigger than ``answer_bytes`` is ``output_limit``. ``start`` and ``finish`` answers are ignored (any 2xx will do).

    With ``public_only``, the bot may only be reached at public internet addresses: a URL whose
    host is not :func:`host_may_be_public` or resolves, at connection time, to an address that
    is not public is a ``crash`` naming the host (not what it resolved to). A service running
    bots registered by anyone sets it, so that a bot URL cannot make the service POST to its
    own network. A redirect is never followed: it is a ``crash`` too.
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
        limit = self.limits.answer_bytes
        try:
            request = urllib.request.Request(
                self.url, data=encode(message), headers=self.headers, method="POST"
            )
            with self.opener.open(request, timeout=max(timeout, 0.001)) as response:
                body = response.read(limit + 1)
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                raise BotFailure("crash", f"HTTP {exc.code} {exc.reason}: {REDIRECT_REFUSED}") from None
            text = exc.read(300).decode("utf-8", "replace")
            raise BotFailure("crash", f"HTTP {exc.code} {exc.reason}: {text!r}") from None
        except (OSError, http.client.HTTPException, ValueError) as exc:  # URLError is an OSError
            if timed_out(exc):
                raise BotFailure("timeout", self.clock.describe()) from None
            raise BotFailure("crash", f"{self.url}: {failure(exc)}") from None
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
