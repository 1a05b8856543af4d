"""How often a caller may call the API (docs/api.md, "Limits"): per IP when anonymous, per
account whatever it calls with, per token (a bot's token has a bot's budget); 429 with
Retry-After beyond."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tournaments.services.players import player_create
from tournaments.services.tokens import token_create

from .helpers import bot_players, error, make_tournament, play_out

pytestmark = [pytest.mark.django_db, pytest.mark.services]  # leg 2: counted in Redis (CACHE_URL)


@pytest.fixture
def rates(settings):
    def set_rates(**rates):
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates}}

    return set_rates


def bearer(secret: str, address: str = "127.0.0.1") -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def calls(client: APIClient, n: int, path: str = "/api/players/") -> list[int]:
    return [client.get(path).status_code for _ in range(n)]


def assert_throttled(answer) -> None:
    assert answer.status_code == 429
    assert answer["Content-Type"] == "application/json"
    assert int(answer["Retry-After"]) >= 1  # whole seconds to wait
    refusal = error(answer)
    assert refusal["code"] == "throttled" and "throttled" in refusal["message"].lower()


def test_an_anonymous_caller_has_a_budget_per_ip_address(rates):
    rates(anon="3/hour")
    here, there = APIClient(REMOTE_ADDR="203.0.113.5"), APIClient(REMOTE_ADDR="203.0.113.6")
    assert calls(here, 3) == [200] * 3
    assert_throttled(here.get("/api/tournaments/"))  # every endpoint counts against one budget
    assert calls(there, 3) == [200] * 3  # another address has its own


def test_an_anonymous_caller_gets_no_new_budget_by_naming_another_address_in_a_header(rates):
    rates(anon="2/hour")
    assert [APIClient(REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}").get("/api/").status_code
            for i in range(3)] == [200, 200, 429]  # no proxy in front (API_NUM_PROXIES 0): the header is the caller's


def test_behind_one_proxy_the_address_it_saw_is_the_callers(rates, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    rates(anon="2/hour")

    def via_proxy(chain: str) -> APIClient:  # the proxy appends the address it saw to the caller's header
        return APIClient(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=chain)

    assert calls(via_proxy("203.0.113.5"), 2) == [200, 200]
    assert_throttled(via_proxy("192.0.2.1, 203.0.113.5").get("/api/"))  # a forged first entry changes nothing
    assert calls(via_proxy("203.0.113.6"), 2) == [200, 200]  # another caller behind the same proxy


def test_a_token_has_its_own_budget_and_the_account_one_over_all_its_tokens(rates):
    rates(token="2/hour", user="3/hour", anon="1/hour")
    ada = get_user_model().objects.create_user("ada")
    first = bearer(token_create(user=ada, name="one", scopes=["read"])[1])
    second = bearer(token_create(user=ada, name="two", scopes=["read"])[1])
    assert calls(first, 2) == [200, 200]
    assert calls(second, 1) == [200]  # another token has its own budget...
    assert_throttled(second.get("/api/players/"))  # ...but the account's 3 are spent: more tokens, no more room
    assert_throttled(first.get("/api/players/"))
    # Signed-in callers are not counted as anonymous ones (1/minute here).
    ben = get_user_model().objects.create_user("ben")
    assert calls(bearer(token_create(user=ben, name="b", scopes=["read"])[1]), 2) == [200, 200]


def test_a_session_counts_against_its_accounts_budget(rates):
    rates(user="2/hour")
    ada = get_user_model().objects.create_user("ada")
    browser = APIClient()
    browser.force_login(ada)
    assert calls(browser, 2) == [200, 200]
    assert_throttled(browser.get("/api/players/"))


def test_a_token_over_its_own_budget_is_refused_while_its_account_has_room(rates):
    rates(token="2/hour", user="100/hour")
    ada = get_user_model().objects.create_user("ada")
    assert calls(bearer(token_create(user=ada, name="one", scopes=["read"])[1]), 3) == [200, 200, 429]
    assert calls(bearer(token_create(user=ada, name="two", scopes=["read"])[1]), 2) == [200, 200]


def test_a_bots_token_has_the_larger_budget_of_a_playing_bot(rates):
    rates(token="2/hour", bot_token="5/hour", user="100/hour")
    bob = get_user_model().objects.create_user("bob")
    bot = player_create(name="bob-bot", kind="bot", bot_kind="remote", owner=bob)
    plain = bearer(token_create(user=bob, name="desk", scopes=["read"])[1])
    playing = bearer(token_create(user=bob, name="bot", scopes=["read", "play"], bot=bot)[1])
    assert calls(plain, 3) == [200, 200, 429]
    assert calls(playing, 6) == [200] * 5 + [429]


def test_the_tokens_endpoint_keeps_its_tighter_budget(rates):
    rates(tokens="2/hour")
    ada = get_user_model().objects.create_user("ada", password="pw")
    browser = APIClient()
    browser.force_login(ada)
    made = [browser.post("/api/tokens/", {"name": f"t{i}", "scopes": ["read"]}, format="json").status_code
            for i in range(3)]
    assert made == [201, 201, 429]


def test_a_budget_is_counted_in_windows_and_retry_after_says_when_the_next_opens(rates, monkeypatch):
    from tournaments.api import throttles

    rates(anon="2/minute")
    clock = [600.0 + 50]  # 50 s into a one-minute window (600-660)
    monkeypatch.setattr(throttles._Budget, "timer", lambda self: clock[0])
    here = APIClient(REMOTE_ADDR="203.0.113.9")
    assert calls(here, 2) == [200, 200]
    refused = here.get("/api/players/")
    assert_throttled(refused)
    assert int(refused["Retry-After"]) == 10  # the window ends at 660
    clock[0] = 661.0  # the next window
    assert calls(here, 2) == [200, 200]
    assert_throttled(here.get("/api/players/"))


def test_a_windows_counter_counts_each_request_and_is_gone_when_its_window_is():
    from django.core.cache import caches

    from tournaments.cache import count_in_window

    counts = [count_in_window(caches["default"], "budget-test:window", 1) for _ in range(3)]
    assert counts == [1, 2, 3]
    time.sleep(1.2)  # Redis: the EXPIRE set with the first count; memory: its timeout
    assert count_in_window(caches["default"], "budget-test:window", 1) == 1


def test_the_redis_cache_keeps_one_client_a_pool_for_every_call():
    """Django's Redis cache makes a client object for every call; tournaments.cache keeps one
    (each builds a table of reply parsers: a third of what a budget's count cost)."""
    from tournaments.cache import RedisCache

    cache = RedisCache("redis://127.0.0.1:6379/15", {})
    first = cache._cache.get_client("a", write=True)
    assert cache._cache.get_client("b", write=True) is first
    assert cache._cache.get_client("c") is first  # one server: reads and writes share its pool
    assert first.connection_pool is cache._cache._get_connection_pool(True)


def test_with_the_caches_redis_stopped_reads_and_moves_answer_and_budgets_count_per_process(settings, caplog,
                                                                                          monkeypatch):
    """CACHE_URL on a Redis that does not answer (stopped, restarting): every authenticated
    request answered 500 for as long as it was down. Now the budgets count in the process's
    memory, kept answers are kept there, the log says so once, and Redis is tried again a few
    seconds later."""
    import tournaments.cache as kept_cache

    monkeypatch.setattr(kept_cache, "fallback", kept_cache._Fallback())
    settings.CACHES = {**settings.CACHES, "default": {"BACKEND": "tournaments.cache.RedisCache",
                                                      "LOCATION": "redis://127.0.0.1:9/0", "KEY_PREFIX": "mazziere"}}
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {**rates, "anon": "5/minute"}}
    tournament = make_tournament(bot_players(4), slug="cache-down", format="round_robin", format_config={})
    play_out(tournament)
    _, secret = token_create(user=get_user_model().objects.create_user("reader"), name="t", scopes=["read"])
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    began = time.monotonic()
    for path in ("/api/", f"/api/tournaments/{tournament.pk}/", f"/api/tournaments/{tournament.pk}/standings/",
                 f"/api/ladders/{tournament.ladder_id}/leaderboard/", "/api/matches/"):
        assert reader.get(path).status_code == 200, path
    assert time.monotonic() - began < 5  # no request waits for Redis to time out again
    assert caplog.text.count("cannot be reached") == 1
    anonymous = APIClient()
    assert [anonymous.get("/api/").status_code for _ in range(6)] == [200] * 5 + [429]  # counted here


def test_a_real_redis_stopped_under_the_cache_stops_no_read_and_counts_again_once_it_is_back(settings, caplog,
                                                                                              monkeypatch):
    """The same with a Redis server of the test's own, stopped while requests come and started
    again: reads answer throughout, and once Redis answers again (after the fallback's few
    seconds) the budgets count in it again."""
    import shutil
    import socket
    import subprocess

    import redis

    import tournaments.cache as kept_cache

    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not on this machine")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def start():
        server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=port)
        for _ in range(100):
            try:
                client.ping()
                return server
            except redis.ConnectionError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    monkeypatch.setattr(kept_cache, "fallback", kept_cache._Fallback())
    monkeypatch.setattr(kept_cache, "RETRY_SECONDS", 0.5)
    settings.CACHES = {**settings.CACHES, "default": {"BACKEND": "tournaments.cache.RedisCache",
                                                      "LOCATION": f"redis://127.0.0.1:{port}/0", "KEY_PREFIX": "m"}}
    server = start()
    try:
        reader = APIClient()
        assert reader.get("/api/").status_code == 200
        assert redis.Redis(port=port).dbsize() > 0  # counted in Redis
        server.kill()
        server.wait()
        assert [reader.get("/api/").status_code for _ in range(3)] == [200] * 3
        assert "cannot be reached" in caplog.text
        server = start()
        time.sleep(0.6)  # the fallback's wait
        assert reader.get("/api/").status_code == 200
        assert redis.Redis(port=port).dbsize() > 0  # counted in Redis again
    finally:
        server.kill()
        server.wait()
