"""HTTP bots run by the service may only be reached at public addresses (public_only), so a
registered URL cannot make the service POST into its own network."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import bots
from bots.external import PrivateAddress, host_may_be_public
from bots.external.http import _public_connection

from .helpers import GAME, play, table_with
from .test_http import FAST, random_player, serve


@pytest.fixture
def local_bot():
    server, url, seen = serve(random_player())
    yield url, seen
    server.shutdown()
    server.server_close()


def test_a_bot_on_a_loopback_address_plays_unless_public_only_is_asked(local_bot):
    url, seen = local_bot
    outcome = play(table_with(bots.create("http", game=GAME, seed=1, url=url, limits=FAST)))
    assert outcome.forfeits == {} and seen

    seen.clear()
    outcome = play(table_with(bots.create("http", game=GAME, seed=1, url=url, limits=FAST, public_only=True)))
    assert outcome.forfeits[0].reason == "crash"
    assert "127.0.0.1" in outcome.forfeits[0].detail and "public" in outcome.forfeits[0].detail
    assert seen == []  # the request never left


def test_a_name_is_refused_if_any_of_its_addresses_is_not_public(monkeypatch):
    answers = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 80)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", 80)),
    ]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: answers)
    with pytest.raises(PrivateAddress, match="bots.example does not resolve to public addresses only"):
        _public_connection(("bots.example", 80), timeout=1)


@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "169.254.169.254", "192.168.1.20", "fd00::1", "0.0.0.0"])
def test_loopback_private_link_local_and_unspecified_addresses_are_refused(monkeypatch, address):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [(family, socket.SOCK_STREAM, 6, "", (address, 80))])
    with pytest.raises(PrivateAddress, match="not resolve to public addresses"):
        _public_connection(("bots.example", 80), timeout=1)


@pytest.mark.parametrize("host, public", [
    ("localhost", False), ("LocalHost.", False), ("bots.localhost", False), ("127.0.0.1", False),
    ("::1", False), ("10.1.2.3", False), ("169.254.169.254", False), ("fe80::1%eth0", False),
    ("0.0.0.0", False), ("93.184.216.34", True), ("2606:4700::1111", True), ("bots.example.org", True),
])
def test_a_host_may_be_public_unless_it_is_plainly_not(host, public):
    assert host_may_be_public(host) is public


def test_a_localhost_name_is_refused_before_it_is_resolved(monkeypatch):
    def resolve(*args, **kwargs):
        raise AssertionError("resolved")

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    with pytest.raises(PrivateAddress, match="bots.localhost is not a public address"):
        _public_connection(("bots.localhost", 80), timeout=1)


# Hosts that are not on the public internet however they are written: the IPv6 ranges that
# carry or reach an IPv4 address (judged by it, or refused outright), IPv6 ranges Python's
# ipaddress calls global but are no host's (site-local, multicast), and IPv4 addresses in the
# spellings getaddrinfo accepts besides a.b.c.d (a number, octal, hexadecimal, fewer parts).
NOT_PUBLIC_HOSTS = [
    "::127.0.0.1",  # IPv4-compatible
    "::ffff:10.0.0.1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",  # IPv4-mapped
    "::ffff:0:a00:1",  # IPv4-translated
    "64:ff9b::10.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1",  # NAT64, well-known prefix
    "64:ff9b:1::a00:1", "64:ff9b:1:fffe::5db8:d822",  # NAT64, local-use prefix
    "2002:a00:1::1", "2002:5db8:d822::1",  # 6to4 (a public IPv4 too: a relay's, not a host's)
    "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "fec0::1", "ff02::1", "ff0e::1",  # site-local, multicast
    "224.0.0.1", "100.64.0.1", "198.18.0.1",  # multicast, shared (CGN), benchmarking
    "167772161", "2130706433", "0x7f000001", "0x7f.1", "127.1", "0177.0.0.1", "10.1", "0",
    "127.0.0.1.", "010.0.0.1", "0x0a.0x00.0x00.0x01",
    "\uff11\uff12\uff17.\uff10.\uff10.\uff11",  # fullwidth digits: 127.0.0.1 once IDNA-mapped
]
PUBLIC_HOSTS = ["93.184.216.34", "2606:4700::1111", "::ffff:93.184.216.34", "64:ff9b::93.184.216.34",
                "bots.example.org", "0x7f.example.org", "1.example"]


@pytest.mark.parametrize("host", NOT_PUBLIC_HOSTS)
def test_every_spelling_of_an_address_off_the_public_internet_is_refused(host):
    assert host_may_be_public(host) is False


@pytest.mark.parametrize("host", PUBLIC_HOSTS)
def test_public_addresses_and_names_may_be_public_however_they_embed_an_address(host):
    assert host_may_be_public(host) is True


RESOLVED_NOT_PUBLIC = ["::127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a00:1",
                       "2002:a00:1::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fec0::1", "ff02::1", "224.0.0.1"]


def resolving(monkeypatch, name: str, address: str) -> None:
    """Make ``name`` resolve to ``address`` alone (other names as usual), and make a connection
    to ``address`` fail the test: a test of the refusal sends nothing there, even against code
    that would not refuse."""
    real_resolve, real_connect = socket.getaddrinfo, socket.socket.connect
    family = socket.AF_INET6 if ":" in address else socket.AF_INET

    def resolve(host, *args, **kwargs):
        if host == name:
            return [(family, socket.SOCK_STREAM, 6, "", (address, 80))]
        return real_resolve(host, *args, **kwargs)

    def connect(sock, to):
        if to[0] == address:
            raise AssertionError(f"connected to {address}")
        return real_connect(sock, to)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.mark.parametrize("address", RESOLVED_NOT_PUBLIC)
def test_a_name_resolving_to_such_an_address_is_refused_at_connection_without_telling_it(monkeypatch, address):
    resolving(monkeypatch, "bots.example", address)
    with pytest.raises(PrivateAddress) as refused:
        _public_connection(("bots.example", 80), timeout=1)
    assert "bots.example" in str(refused.value) and address not in str(refused.value)


@pytest.mark.parametrize("spelling", ["127.1", "2130706433", "0x7f.1", "0177.0.0.1", "0x7f000001"])
def test_a_numeric_spelling_of_loopback_is_refused_at_connection_and_its_server_gets_nothing(spelling):
    server, url, seen = serve(random_player())
    try:
        port = server.server_address[1]
        bot = bots.create("http", game=GAME, seed=1, url=f"http://{spelling}:{port}/bot", limits=FAST,
                          public_only=True)
        outcome = play(table_with(bot))
    finally:
        server.shutdown()
        server.server_close()
    assert outcome.forfeits[0].reason == "crash" and "not a public address" in outcome.forfeits[0].detail
    assert "127.0.0.1" not in outcome.forfeits[0].detail  # what the name resolved to is not told
    assert seen == []


def test_a_refusal_after_resolving_names_neither_the_address_nor_our_code(monkeypatch):
    resolving(monkeypatch, "bots.example", "10.0.0.5")
    bot = bots.create("http", game=GAME, seed=1, url="http://bots.example/bot", limits=FAST, public_only=True)
    forfeit = play(table_with(bot)).forfeits[0]
    assert forfeit.reason == "crash" and "bots.example" in forfeit.detail
    assert "10.0.0.5" not in forfeit.detail and "Traceback" not in forfeit.detail and ".py" not in forfeit.detail


def redirecting(to: str):
    """A bot server on 127.0.0.1 answering every POST with a 302 (or ``code``) to ``to``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(302)
            self.send_header("Location", to)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/bot"


@pytest.mark.parametrize("target_host", ["127.0.0.1", "127.0.0.2"])
def test_a_redirect_is_not_followed_even_from_a_host_exempt_from_the_rule(target_host):
    # public_only=False is what the service gives a host in HTTP_BOTS_ALLOWED_HOSTS: its
    # exemption is its own, and does not carry over to where it redirects.
    target = ThreadingHTTPServer((target_host, 0), BaseHTTPRequestHandler)
    got = []
    target.RequestHandlerClass = type("Recording", (BaseHTTPRequestHandler,), {
        "do_GET": lambda self: got.append(self.path), "do_POST": lambda self: got.append(self.path),
        "log_message": lambda self, *a: None})
    threading.Thread(target=target.serve_forever, daemon=True).start()
    server, url = redirecting(f"http://{target_host}:{target.server_address[1]}/elsewhere")
    try:
        forfeit = play(table_with(bots.create("http", game=GAME, seed=1, url=url, limits=FAST))).forfeits[0]
    finally:
        for s in (server, target):
            s.shutdown()
            s.server_close()
    assert got == []  # the redirect was not followed
    assert forfeit.reason == "crash" and "HTTP 302" in forfeit.detail and "redirect" in forfeit.detail


def test_an_answer_that_is_not_http_is_a_crash_without_a_traceback():
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def garbage():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.recv(65536)
                conn.sendall(b"HELLO THERE\r\n\r\n")

    threading.Thread(target=garbage, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/bot"
        forfeit = play(table_with(bots.create("http", game=GAME, seed=1, url=url, limits=FAST))).forfeits[0]
    finally:
        stop.set()
        listener.close()
    assert forfeit.reason == "crash" and "not HTTP" in forfeit.detail
    assert "Traceback" not in forfeit.detail and ".py" not in forfeit.detail


def test_a_name_that_does_not_resolve_is_refused_in_the_same_words_as_one_resolving_inside(monkeypatch):
    # Whether an internal name exists is not told either.
    def unknown(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    with pytest.raises(PrivateAddress, match="^db.internal does not resolve to public addresses only$"):
        _public_connection(("db.internal", 80), timeout=1)


def test_the_public_opener_refuses_a_private_address_even_without_a_timeout(local_bot):
    # The check must not hang on the deadline's machinery: a caller that gives no timeout
    # (urllib's default) is refused like one that does, and the request never leaves.
    import urllib.error
    import urllib.request

    from bots.external.http import opener

    url, seen = local_bot
    request = urllib.request.Request(url, data=b"{}", headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.URLError) as refused:
        opener(public_only=True).open(request)
    assert isinstance(refused.value.reason, PrivateAddress)
    assert seen == []
    try:  # the same request without public_only reaches the bot (which has no use for "{}")
        opener(public_only=False).open(request).close()
    except OSError:  # its answer, if any, is not the point
        pass
    assert seen
