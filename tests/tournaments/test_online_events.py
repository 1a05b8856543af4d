"""The event streams of online matches (docs/online.md, "Event streams"): a seat's own views, a
spectator's public views, an account's turns; resuming with Last-Event-ID; who is refused; and
the hub that wakes the streams when a change commits.

Streams are read with ``?follow=false`` (what there is now, then the end) where the test drives
the match itself; the live path (a stream that waits and is woken) is exercised through the
test's live server and, in scripts/test-services, through uvicorn (test_remote_bot.py).
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
import urllib.request
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.signals import request_finished
from django.db import DatabaseError, close_old_connections
from django.test import AsyncClient
from rest_framework.test import APIClient

import engine
from tournaments import events, feeds, online_reads
from tournaments.api import streams
from tournaments.models import Match, MatchAction, Result
from tournaments.services import online, table_store
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tokens import token_create
from tournaments.services.tournaments import entry_add, tournament_cancel, tournament_create, tournament_start

from .helpers import moved, parse_events
from .test_online import GAMES, act, bearer, make_world, opened, plain, start, waiting  # noqa: F401 - opened: a fixture

pytestmark = [pytest.mark.django_db, pytest.mark.services, pytest.mark.usefixtures("service_turns")]


def read(client, url: str, **headers) -> tuple[int, list[dict]]:
    answer = client.get(url, **headers)
    if not answer.streaming:
        return answer.status_code, parse_events(answer.content)
    assert answer["Content-Type"].startswith("text/event-stream") and answer["Cache-Control"] == "no-store"
    return answer.status_code, parse_events(b"".join(answer.streaming_content))


def replay_views(match: Match, position: int | None) -> list:
    """The engine's view for ``position`` after each number of actions: [after 0, after 1, ...],
    replayed from the match's seed and its stored actions."""
    tournament = match.round.tournament
    state = engine.game(tournament.game).new_match(players=match.seats.count(), seed=match.seed,
                                                   options=tournament.options, deck=match.deck)
    views = [plain(state.view(position))]
    for action in MatchAction.objects.filter(match=match).order_by("seq").values_list("action", flat=True):
        state.apply(action)
        views.append(plain(state.view(position)))
    return views


def play_to_the_end(w, rng: random.Random) -> int:
    moves = 0
    while True:
        turn, body = waiting(w)
        if turn is None:
            return moves
        answer = act(w, turn, rng.choice(body["view"]["legal_actions"]), key=f"m-{body['actions']}")
        assert answer.status_code == 200, answer.json()
        moves += 1


# --- a seat's stream ---------------------------------------------------------------------------

@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_seats_stream_carries_its_own_view_after_every_action_and_ends_with_the_result(
        game, opened, django_capture_on_commit_callbacks):
    w = start(make_world(), game, GAMES[game], django_capture_on_commit_callbacks)
    rng = random.Random(game)
    positions = w.online_positions()
    seen = {pos: [] for pos in positions}  # every event each seat's owner received, in order
    last = {pos: None for pos in positions}
    spectator, spectator_last = [], None
    while True:
        for pos in positions:  # each owner catches up from where it stopped
            headers = {"HTTP_LAST_EVENT_ID": last[pos]} if last[pos] is not None else {}
            status, got = read(w.client_at(pos), f"{w.url}/seats/{pos}/events/?follow=false", **headers)
            assert status == 200
            seen[pos].extend(got)
            last[pos] = got[-1]["id"]
        query = f"&last_event_id={spectator_last}" if spectator_last is not None else ""
        status, got = read(w.anonymous, f"{w.url}/events/?follow=false{query}")
        assert status == 200
        spectator.extend(got)
        spectator_last = got[-1]["id"]
        turn, body = waiting(w)
        if turn is None:
            break
        assert act(w, turn, rng.choice(body["view"]["legal_actions"])).status_code == 200

    match = Match.objects.get(pk=w.match.pk)
    result = Result.objects.get(match=match)
    total = MatchAction.objects.filter(match=match).count()
    for pos in positions:
        views = replay_views(match, pos)
        got = seen[pos]
        # One view event per action the owner had not seen (repeats of the current view on
        # reconnection aside), each the engine's view of that seat after that many actions.
        ids = [int(e["id"]) for e in got if e["event"] == "view"]
        assert sorted(set(ids)) == list(range(ids[0], total + 1)), ids
        for event in got[:-1]:
            assert event["event"] == "view"
            data = event["data"]
            assert set(data) == {"match", "position", "actions", "status", "turn", "waiting_for", "deadline_at",
                                 "view", "forfeited"}
            assert data["position"] == pos and data["actions"] == int(event["id"])
            assert data["view"] == views[data["actions"]], (pos, data["actions"])
        assert got[-2]["data"]["status"] == "finished" and got[-2]["data"]["actions"] == total
        assert got[-1] == {"id": str(total), "event": "over", "data": {
            "match": match.pk, "status": "finished", "actions": total, "scores": result.scores,
            "places": result.places}}
    public = replay_views(match, None)
    for event in spectator[:-1]:
        assert "position" not in event["data"] and "forfeited" not in event["data"]
        assert event["data"]["view"] == public[int(event["id"])]
    assert spectator[-1]["event"] == "over"


def test_a_stream_resumes_after_last_event_id_and_sends_the_current_view_on_connect(
        opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "stoppa", GAMES["stoppa"], django_capture_on_commit_callbacks)
    rng = random.Random(3)
    for _ in range(6):
        turn, body = waiting(w)
        assert act(w, turn, rng.choice(body["view"]["legal_actions"])).status_code == 200
    pos = w.online_positions()[0]
    url = f"{w.url}/seats/{pos}/events/?follow=false"
    total = MatchAction.objects.filter(match=w.match).count()
    views = replay_views(w.match, pos)

    # No id: only the view as it stands.
    status, got = read(w.client_at(pos), url)
    assert [(e["id"], e["event"]) for e in got] == [(str(total), "view")]
    assert got[0]["data"]["view"] == views[total]
    # From an id: every view after it, the header and the query parameter alike.
    for headers, query in (({"HTTP_LAST_EVENT_ID": "2"}, ""), ({}, "&last_event_id=2")):
        status, got = read(w.client_at(pos), url + query, **headers)
        assert [int(e["id"]) for e in got] == list(range(3, total + 1))
        assert [e["data"]["view"] for e in got] == views[3:]
    # Up to date: the current view again (a client that reconnects learns where things stand).
    status, got = read(w.client_at(pos), url, HTTP_LAST_EVENT_ID=str(total))
    assert [int(e["id"]) for e in got] == [total]
    # Ids it cannot be: refused, naming the header.
    for bad in ("-1", "abc", "1.5", "99999999", "１"):
        status, got = read(w.client_at(pos), url, HTTP_LAST_EVENT_ID=bad)
        assert status == 400, bad


def test_only_a_seats_owner_streams_its_events(opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "sette_e_mezzo", GAMES["sette_e_mezzo"], django_capture_on_commit_callbacks)
    ada, bob, rnd = w.position("ada"), w.position("bob-bot"), w.position("rnd")
    _, read_only = token_create(user=w.users["ada"], name="dashboard", scopes=["read"])
    _, play_only = token_create(user=w.users["ada"], name="buttons", scopes=["play"])
    denied = {
        "ada's token, bob's bot's seat": (w.owners["ada"], bob),
        "bob's bot token, ada's seat": (w.owners["bob-bot"], ada),
        "a play-only token": (bearer(play_only), ada),
        "the organiser": (w.organiser, ada),
        "a stranger": (w.stranger, bob),
        "anyone, the built-in bot's seat": (w.owners["ada"], rnd),
    }
    for who, (client, pos) in denied.items():
        for accept in ("text/event-stream", "application/json"):
            answer = client.get(f"{w.url}/seats/{pos}/events/?follow=false", HTTP_ACCEPT=accept)
            assert answer.status_code == 403 and not answer.streaming, who
            assert set(answer.json()) == {"error"} and answer.json()["error"]["code"] == "permission_denied"
    assert w.anonymous.get(f"{w.url}/seats/{ada}/events/?follow=false").status_code in (401, 403)
    assert read(bearer(read_only), f"{w.url}/seats/{ada}/events/?follow=false")[0] == 200
    assert w.owners["ada"].get(f"{w.url}/seats/7/events/").status_code == 404
    assert w.owners["ada"].get("/api/matches/999999/seats/0/events/").status_code == 404
    bad = w.owners["ada"].get(f"{w.url}/seats/{ada}/events/?follow=sometimes")
    assert bad.status_code == 400 and "follow" in bad.json()["error"]["fields"]
    # Refusals are JSON, whatever the client asked for.
    for query in ("", "?format=event-stream"):
        answer = w.stranger.get(f"{w.url}/seats/{ada}/events/{query}", HTTP_ACCEPT="text/event-stream")
        assert answer.status_code == 403 and answer["Content-Type"] == "application/json"
        assert answer.json()["error"]["message"] == "only the seat's player's owner sees its cards"


def test_a_cancelled_tournaments_streams_end_and_its_turns_are_gone(opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "stoppa", GAMES["stoppa"], django_capture_on_commit_callbacks)
    turn, _ = waiting(w)
    owner = w.client_at(turn)
    assert [e["event"] for e in read(owner, "/api/seats/events/?follow=false")[1]] == ["turn"]
    with django_capture_on_commit_callbacks(execute=True):
        tournament_cancel(tournament=w.match.round.tournament)
    status, got = read(owner, f"{w.url}/seats/{turn}/events/?follow=false")
    assert [e["event"] for e in got] == ["view", "over"]
    assert got[-1]["data"]["status"] == "cancelled" and got[0]["data"]["waiting_for"] is None
    assert got[0]["data"]["deadline_at"] is None  # no clock runs for a match that will not be played
    assert read(owner, "/api/seats/events/?follow=false")[1] == []


# --- an account's turns --------------------------------------------------------------------------

def test_an_accounts_turn_stream_sends_each_awaited_seat_once_with_its_view(opened,
                                                                            django_capture_on_commit_callbacks):
    w = start(make_world(ada_bot=True), "sette_e_mezzo", GAMES["sette_e_mezzo"], django_capture_on_commit_callbacks)
    ada, bot = w.position("ada"), w.position("ada-bot")
    tied = w.owners["ada-bot"]  # tied to ada's bot: its seat's turns only
    everything = w.owners["ada"]
    rng = random.Random(8)
    feed = feeds.TurnFeed(w.users["ada"])  # one connection's feed, polled as its stream would be
    moves = 0
    while True:
        turn, body = waiting(w)
        if turn is None:
            break
        got = feed.poll()
        assert [e.kind for e in got] == ["turn"]
        event = got[0]
        assert event.id == f"{w.match.pk}-{turn}-{body['actions']}"
        assert plain(event.data) == body  # what GET .../seats/{turn}/ answers
        assert feed.poll() == []  # sent once while it waits
        status, streamed = read(everything, "/api/seats/events/?follow=false")
        assert [e["id"] for e in streamed] == [event.id]
        status, streamed = read(tied, "/api/seats/events/?follow=false")
        assert [e["id"] for e in streamed] == ([event.id] if turn == bot else [])
        # Resuming after that very turn does not send it again.
        assert read(everything, "/api/seats/events/?follow=false", HTTP_LAST_EVENT_ID=event.id)[1] == []
        assert act(w, turn, rng.choice(body["view"]["legal_actions"])).status_code == 200
        moves += 1
    assert moves >= 2 and {ada, bot} <= set(w.online_positions())
    assert feed.poll() == []
    assert read(w.stranger, "/api/seats/events/?follow=false")[1] == []
    assert w.anonymous.get("/api/seats/events/?follow=false").status_code in (401, 403)
    assert everything.get("/api/seats/events/", HTTP_LAST_EVENT_ID="1-2").status_code == 400


# --- the hub -----------------------------------------------------------------------------------

def test_a_committed_move_notifies_its_match_and_its_online_seats_owners_and_a_refused_one_nothing(
        opened, django_capture_on_commit_callbacks, monkeypatch):
    w = start(make_world(), "stoppa", GAMES["stoppa"], django_capture_on_commit_callbacks)
    published = []
    monkeypatch.setattr(events.hub(), "publish", lambda channels: published.append(sorted(channels)))
    turn, body = waiting(w)
    other = next(p for p in w.online_positions() if p != turn)
    with django_capture_on_commit_callbacks(execute=True):
        assert act(w, other, body["view"]["legal_actions"][0]).status_code == 409
        assert act(w, turn, {"type": "nonsense"}).status_code == 422
    assert published == []
    with django_capture_on_commit_callbacks(execute=True):
        assert act(w, turn, body["view"]["legal_actions"][0]).status_code == 200
    owners = sorted(events.user_channel(w.users[n].pk) for n in ("ada", "bob"))
    # The move's commit, then each commit of the service's seats' turns (the workers'), if the
    # built-in bot moved next: every one names the match and its online seats' owners.
    assert published and all(one == sorted([events.match_channel(w.match.pk), *owners]) for one in published)
    bots_moved = MatchAction.objects.filter(match=w.match, seq__gt=body["actions"]).exclude(by=online.BY_SEAT).exists()
    assert (len(published) > 1) == bots_moved


def test_the_local_hub_wakes_the_waiters_of_a_channel_only():
    hub = events.LocalHub()
    a, b = hub.listen(["match:1"]), hub.listen(["match:2", "user:5"])
    hub.publish(["match:1"])
    assert a.wait(0) is True and b.wait(0) is False
    assert a.wait(0) is False  # cleared once woken
    hub.publish(["user:5", "user:6"])
    assert b.wait(0) is True and a.wait(0) is False
    # Published while the stream reads (before it waits): the next wait returns at once.
    hub.publish(["match:2"])
    assert b.wait(5) is True
    hub.forget(a)
    hub.forget(b)
    assert hub.waiting() == 0


def test_an_async_waiter_is_woken_from_another_thread():
    hub = events.LocalHub()

    async def scenario():
        waiter = hub.listen(["match:9"], loop=asyncio.get_running_loop())
        assert await waiter.wait_async(0.01) is False
        threading.Timer(0.05, hub.publish, args=(["match:9"],)).start()
        started = time.monotonic()
        assert await waiter.wait_async(5) is True
        assert time.monotonic() - started < 4
        hub.forget(waiter)

    asyncio.run(scenario())


def test_redis_hub_carries_notifications_between_processes(settings):
    if not settings.EVENTS_REDIS_URL:
        pytest.skip("no Redis configured: scripts/test-services runs this")
    sender, receiver = events.RedisHub(settings.EVENTS_REDIS_URL), events.RedisHub(settings.EVENTS_REDIS_URL)
    waiter = receiver.listen(["match:77"])
    deadline = time.monotonic() + 10
    while not waiter.wait(0.1):  # the listener's subscription may take a moment: publish until heard
        assert time.monotonic() < deadline, "the notification never arrived"
        sender.publish(["match:77"])
    other = receiver.listen(["match:78"])
    sender.publish(["match:77"])
    assert waiter.wait(5) is True and other.wait(0.2) is False


@pytest.mark.parametrize("url, channel", [
    ("redis://127.0.0.1:6379/5", "mazziere:5:events"), ("redis://redis:6379", "mazziere:0:events"),
    ("rediss://:secret@cache.example:6380/12", "mazziere:12:events"), ("unix:///run/redis.sock?db=3", "mazziere:3:events"),
])
def test_each_redis_database_is_a_deployment_with_its_own_channel(url, channel):
    assert events.redis_channel(url) == channel
    assert events.RedisHub(url).channel == channel


def test_deployments_sharing_a_redis_server_hear_only_their_own_notifications(settings):
    """Redis's publish and subscribe ignore the database number: two deployments on one server
    (each with its own database) must still not wake each other's streams, nor learn each
    other's match and user ids."""
    if not settings.EVENTS_REDIS_URL:
        pytest.skip("no Redis configured: scripts/test-services runs this")
    from redis.connection import parse_url

    ours = settings.EVENTS_REDIS_URL
    theirs = urlsplit(ours)._replace(path=f"/{(parse_url(ours).get('db', 0) + 1) % 16}").geturl()
    sender, receiver, neighbour = events.RedisHub(ours), events.RedisHub(ours), events.RedisHub(theirs)
    assert neighbour.channel != receiver.channel
    waiter = receiver.listen(["match:79", "user:3"])
    deadline = time.monotonic() + 10
    while not waiter.wait(0.1):  # subscribed once our own notification is heard
        assert time.monotonic() < deadline, "the notification never arrived"
        sender.publish(["match:79"])
    neighbour.publish(["match:79"])
    neighbour.publish(["user:3"])
    assert waiter.wait(0.5) is False
    sender.publish(["user:3"])
    assert waiter.wait(5) is True


# --- pacing -------------------------------------------------------------------------------------

class QuietFeed:
    """A feed with nothing to say (or a database that fails, with ``fails``)."""

    channels = ["match:0"]
    done = False

    def __init__(self, fails: bool = False) -> None:
        self.fails, self.polls = fails, 0

    def poll(self):
        self.polls += 1
        if self.fails:
            raise DatabaseError("connection lost")
        return []


def test_a_silent_stream_sends_keep_alives_and_ends_after_its_lifetime(settings):
    settings.EVENTS_POLL_SECONDS, settings.EVENTS_KEEPALIVE_SECONDS, settings.STREAM_MAX_SECONDS = 0.01, 0.02, 0.3
    feed = QuietFeed()
    started = time.monotonic()
    sent = list(streams._sync_stream(feed, follow=True))
    assert time.monotonic() - started < 5
    assert sent[0] == b"retry: 2000\n\n" and set(sent[1:]) == {b": keep-alive\n\n"} and len(sent) >= 3
    assert feed.polls > len(sent) - 1  # it looked at the database between keep-alives too
    assert events.hub().waiting() == 0  # and forgot its waiter


def test_a_servers_stop_ends_its_asgi_streams_at_once(settings):
    """A stream held open waits up to STREAM_MAX_SECONDS, and a server stopping gracefully waits
    for it: told to stop (tournaments.asgi at SIGTERM), every stream looks a last time and ends
    within a moment; one opened while stopping ends after its first look."""
    settings.EVENTS_POLL_SECONDS, settings.EVENTS_KEEPALIVE_SECONDS, settings.STREAM_MAX_SECONDS = 30, 30, 3600
    feeds = [QuietFeed() for _ in range(3)]

    async def scenario():
        async def drain(feed):
            return [chunk async for chunk in streams._async_stream(feed, follow=True)]

        running = [asyncio.create_task(drain(feed)) for feed in feeds]
        await asyncio.sleep(0.3)  # each has looked once and waits
        assert not any(task.done() for task in running)
        started = time.monotonic()
        streams.stop_all()
        ended = await asyncio.wait_for(asyncio.gather(*running), timeout=5)
        late = await asyncio.wait_for(drain(QuietFeed()), timeout=5)
        return time.monotonic() - started, ended, late

    try:
        took, ended, late = asyncio.run(scenario())
    finally:
        streams.stopping.clear()
    assert took < 1
    assert ended == [[b"retry: 2000\n\n"]] * 3 and late == [b"retry: 2000\n\n"]
    assert [feed.polls for feed in feeds] == [2, 2, 2]  # a last look before the end
    assert events.hub().waiting() == 0


def test_the_asgi_app_ends_its_streams_at_sigterm_then_hands_the_signal_to_the_server():
    """At its lifespan's startup the app puts its own handler before the server's (uvicorn's,
    which stops the server): SIGTERM stops the streams, then reaches the server's handler."""
    import signal

    from tournaments import asgi

    heard = []
    before = {signum: signal.getsignal(signum) for signum in asgi.STOP_SIGNALS}

    async def scenario():
        for signum in asgi.STOP_SIGNALS:
            signal.signal(signum, lambda received, frame: heard.append(received))  # the server's
        asgi.end_streams_on_stop()
        signal.raise_signal(signal.SIGTERM)
        await asyncio.sleep(0.1)  # the streams are stopped from the loop
        return streams.stopping.is_set()

    try:
        assert asyncio.run(scenario()) is True
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        streams.stopping.clear()
    assert heard == [signal.SIGTERM]


def test_a_stream_whose_database_fails_ends_cleanly(settings):
    feed = QuietFeed(fails=True)
    assert list(streams._sync_stream(feed, follow=True)) == [b"retry: 2000\n\n"]

    async def scenario():
        return [chunk async for chunk in streams._async_stream(feed, follow=True)]

    assert asyncio.run(scenario()) == [b"retry: 2000\n\n"]
    assert events.hub().waiting() == 0


# --- the live path ------------------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_a_followed_stream_sends_each_move_as_it_is_committed(live_server, settings):
    """Through a real server: the seat's owner holds the stream open; each move made by the
    other seat arrives as an event without asking."""
    settings.ALLOWED_HOSTS = ["*"]
    w = start_committed(make_world(), "stoppa")
    pos = w.online_positions()[0]
    token = w.client_at(pos)._credentials["HTTP_AUTHORIZATION"]
    request = urllib.request.Request(f"{live_server.url}{w.url}/seats/{pos}/events/",
                                     headers={"Authorization": token, "Accept": "text/event-stream"})
    received: list[dict] = []
    with urllib.request.urlopen(request, timeout=20) as stream:
        def listen():
            block = b""
            for line in stream:
                block += line
                if line == b"\n":
                    received.extend(parse_events(block))
                    block = b""

        reader = threading.Thread(target=listen, daemon=True)
        reader.start()
        rng = random.Random(5)
        deadline = time.monotonic() + 60
        while not received:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        play_to_the_end(w, rng)
        reader.join(30)
    assert not reader.is_alive(), "the stream did not end with the match"
    assert received[-1]["event"] == "over"
    total = MatchAction.objects.filter(match=w.match).count()
    ids = [int(e["id"]) for e in received if e["event"] == "view"]
    assert ids == sorted(ids) and sorted(set(ids)) == list(range(ids[0], total + 1))


def start_committed(w, game: str):
    """start() in a test whose transactions commit, once the match is open: with a broker a
    worker process opens it, a moment after the start commits."""
    w = start(w, game, GAMES[game], _commit_now)
    deadline = time.monotonic() + 30
    while Match.objects.get(pk=w.match.pk).status == Match.Status.PENDING:
        assert time.monotonic() < deadline, "the match was never opened"
        time.sleep(0.05)
    return w


class _commit_now:
    """start()'s ``captured`` for a test whose transactions really commit: nothing to capture."""

    def __init__(self, execute=True):
        pass

    def __enter__(self):
        return []

    def __exit__(self, *exc):
        return False


@pytest.mark.django_db(transaction=True)
def test_the_asgi_stream_is_an_async_generator_served_on_the_event_loop():
    w = start_committed(make_world(), "sette_e_mezzo")
    pos = w.online_positions()[0]
    token = w.client_at(pos)._credentials["HTTP_AUTHORIZATION"]

    async def scenario():
        answer = await AsyncClient().get(f"{w.url}/seats/{pos}/events/?follow=false&last_event_id=0",
                                         headers={"Authorization": token})
        assert answer.status_code == 200 and answer.is_async
        body = b"".join([chunk async for chunk in answer.streaming_content])
        return parse_events(body)

    got = asyncio.run(scenario())
    views = replay_views(w.match, pos)
    assert [e["data"]["view"] for e in got] == (views[1:] if len(views) > 1 else views)


# --- the states kept between requests ----------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_a_process_keeps_only_committed_states_of_an_online_match(monkeypatch):
    w = start_committed(make_world(), "stoppa")
    rng = random.Random(2)
    turn, body = waiting(w)
    assert act(w, turn, rng.choice(body["view"]["legal_actions"])).status_code == 200
    match = Match.objects.select_related("round__tournament").get(pk=w.match.pk)
    stored = MatchAction.objects.filter(match=match).count()
    kept = online_reads.replays.get(match)
    assert kept is not None and kept[0] == stored  # the move's commit kept the state after it
    assert plain(kept[1].view(None)) == replay_views(match, None)[stored]

    # A move whose transaction fails after the engine applied it: nothing of it is kept.
    turn, body = waiting(w)

    def fail(table):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(table_store, "announce", fail)
    with pytest.raises(RuntimeError):
        online.seat_act(match_id=match.pk, position=turn, action=body["view"]["legal_actions"][0])
    monkeypatch.undo()
    assert MatchAction.objects.filter(match=match).count() == stored
    assert online_reads.replays.get(match)[0] == stored
    table = online_reads.table_load(match)
    assert table.actions == stored and plain(table.state.view(turn)) == replay_views(match, turn)[stored]

    # Another match that reuses the id (a test database does) is never served this one's state.
    Match.objects.filter(pk=match.pk).update(started_at=match.started_at + timedelta(seconds=1))
    assert online_reads.replays.get(Match.objects.get(pk=match.pk)) is None


def test_a_caller_holds_at_most_streams_per_caller_streams_at_once(opened, django_capture_on_commit_callbacks,
                                                                     settings):
    settings.STREAMS_PER_CALLER = 2
    w = start(make_world(), "sette_e_mezzo", GAMES["sette_e_mezzo"], django_capture_on_commit_callbacks)
    ada = w.position("ada")
    url = f"{w.url}/seats/{ada}/events/"
    held = [w.owners["ada"].get(url) for _ in range(2)]  # open, not read: they hold their slots
    assert [answer.status_code for answer in held] == [200, 200]
    refused = w.owners["ada"].get(url)
    assert refused.status_code == 429 and not refused.streaming and int(refused["Retry-After"]) >= 1
    assert refused.json()["error"]["code"] == "throttled" and "at most 2" in refused.json()["error"]["message"]
    # Other callers have their own: another account, and anonymous spectators by address.
    assert w.owners["bob-bot"].get(f"{w.url}/seats/{w.position('bob-bot')}/events/").status_code == 200
    spectators = [w.anonymous.get(f"{w.url}/events/", REMOTE_ADDR="198.51.100.1") for _ in range(3)]
    assert [answer.status_code for answer in spectators] == [200, 200, 429]
    assert w.anonymous.get(f"{w.url}/events/", REMOTE_ADDR="198.51.100.2").status_code == 200
    # A stream closed (its end, or its client gone) gives its slot back, once. (As the test
    # client does when it closes an answer: the end of a request must not close the test's
    # database connection.)
    request_finished.disconnect(close_old_connections)
    try:
        held[0].close()
        held[0].close()
    finally:
        request_finished.connect(close_old_connections)
    assert streams.open_streams.count(f"user:{w.users['ada'].pk}") == 1
    again = w.owners["ada"].get(url)
    assert again.status_code == 200
    assert w.owners["ada"].get(url).status_code == 429


def test_a_callers_streams_are_counted_across_processes_and_a_dead_processs_run_out(settings, monkeypatch):
    """Two web processes (each its own count) share the cache's Redis: a caller's streams are
    counted together; the places of a process that died without giving them back run out after
    CLAIM_SECONDS unless renewed."""
    from django.core.cache import caches
    from rest_framework.exceptions import Throttled

    from tournaments.cache import RedisCache

    if not isinstance(caches["default"], RedisCache):
        pytest.skip("a cache on Redis (CACHE_URL): scripts/test-services runs this")
    settings.STREAMS_PER_CALLER = 2
    one, two = streams._Open(), streams._Open()
    _first, second = one.take("user:9"), two.take("user:9")
    for process in (one, two):
        with pytest.raises(Throttled):
            process.take("user:9")
    assert one.take("user:10") and streams._Open().count("user:9") == 2  # another caller's are its own
    two.give_back("user:9", second)
    third = two.take("user:9")
    # Later: ``one`` died holding ``_first``; ``two`` renewed ``third``.
    later = time.time() + streams.CLAIM_SECONDS / 2
    monkeypatch.setattr(streams.time, "time", lambda: later)
    two.renew("user:9", third)
    later += streams.CLAIM_SECONDS / 2 + 1
    assert two.take("user:9")  # first's place ran out
    with pytest.raises(Throttled):
        two.take("user:9")  # third's is held


def test_streams_are_counted_per_process_while_the_caches_redis_cannot_be_reached(settings, caplog):
    from rest_framework.exceptions import Throttled

    from tournaments.cache import RedisCache

    settings.STREAMS_PER_CALLER = 1
    unreachable = RedisCache("redis://127.0.0.1:9/0", {"OPTIONS": {"socket_connect_timeout": 0.5}})

    class Cut(streams._Open):
        def _redis(self):
            return unreachable

    process = Cut()
    token = process.take("user:3")
    with pytest.raises(Throttled):
        process.take("user:3")
    assert "counted per process" in caplog.text
    process.give_back("user:3", token)
    assert process.take("user:3")


# --- bounded answers -------------------------------------------------------------------------

def test_a_long_matchs_catch_up_and_views_are_bounded_in_bytes(django_capture_on_commit_callbacks):
    """The red team's recipe: an online Spacca il mazzo of nearly 10,000 turns (the most the
    limits allow), its one person's seat forfeited at once, the bots playing it out in the
    workers; then an anonymous spectator and the person ask for every view since the start. A
    view once carried the whole game's events (411 KB after ~9,500 actions) and the catch-up
    every view: 1.69 GB in one answer."""
    owner = get_user_model().objects.create_user("long-ada")
    ada = player_create(name="long-ada", kind="person", owner=owner)
    tournament = tournament_create(name="Long", slug="long", game="spacca_il_mazzo", table_size=2,
                                   format="round_robin", format_config={}, options={"games": 10, "turn_limit": 1000},
                                   online=True, seed=4, owner=owner)
    for player in (ada, builtin_bot_get_or_create(bot="random")):
        entry_add(tournament=tournament, player=player)
    with django_capture_on_commit_callbacks(execute=True):
        _, progress = tournament_start(tournament=tournament)
    match = Match.objects.get(round__tournament=tournament)
    moved(online.online_matches_open(match_ids=[match.pk]))
    position = match.seats.get(player=ada).position
    moved(online.seat_forfeit(match_id=match.pk, position=position, reason="gone", actor=owner))
    match.refresh_from_db()
    actions = MatchAction.objects.filter(match=match).count()
    assert match.status == Match.Status.FINISHED and actions > 9_000

    person = APIClient()
    person.force_authenticate(owner)
    for client, url in ((APIClient(), f"/api/matches/{match.pk}/events/"),
                        (person, f"/api/matches/{match.pk}/seats/{position}/events/")):
        answer = client.get(f"{url}?follow=false&last_event_id=0")
        body = b"".join(answer.streaming_content)
        assert answer.status_code == 200 and len(body) < 100_000, len(body)
        got = parse_events(body)
        assert [e["event"] for e in got] == ["resync", "view", "over"]
        assert got[0]["data"] == {"match": match.pk, "after": 0, "actions": actions, "skipped": actions - 1}
        view = got[1]["data"]["view"]
        assert len(view["events"]) == online_reads.VIEW_EVENTS and view["events_skipped"] > 0
        assert got[1]["id"] == str(actions)
    # A reader a few actions behind gets each view it missed; each view is bounded.
    answer = APIClient().get(f"/api/matches/{match.pk}/events/?follow=false&last_event_id={actions - 5}")
    got = parse_events(b"".join(answer.streaming_content))
    assert [e["id"] for e in got if e["event"] == "view"] == [str(n) for n in range(actions - 4, actions + 1)]
    assert all(len(e["data"]["view"]["events"]) <= online_reads.VIEW_EVENTS for e in got if e["event"] == "view")
    table = APIClient().get(f"/api/matches/{match.pk}/table/")
    assert table.status_code == 200 and len(table.content) < 30_000
