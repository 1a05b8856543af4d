"""HTTP bots run by the service may only be reached at public addresses (public_only), so a
registered URL cannot make the service POST into its own network."""

from __future__ import annotations

import socket

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
    with pytest.raises(PrivateAddress, match="10.0.0.7"):
        _public_connection(("bots.example", 80), timeout=1)


@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "169.254.169.254", "192.168.1.20", "fd00::1", "0.0.0.0"])
def test_loopback_private_link_local_and_unspecified_addresses_are_refused(monkeypatch, address):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [(family, socket.SOCK_STREAM, 6, "", (address, 80))])
    with pytest.raises(PrivateAddress, match="not a public address"):
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
