"""The streams of one online match in one process share its reads (tournaments.feeds.MatchReader,
docs/online.md "Event streams"): one read per change whichever stream wakes first, each stream
still sent its own seat's view only; a read is never taken by a stream woken after it began; an
action read inside a transaction that rolls back never reaches the other streams; a reader goes
with its last stream.

The tests whose transactions commit (``transaction=True``) are those that share: a read inside
a transaction (every other test's) is the stream's own. The hub is this process's own
(``LocalHub``), so a commit's notification is counted before the test goes on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import random
import threading
import time
import weakref

import pytest
from django.db import transaction

from tournaments import events, feeds
from tournaments.api import streams
from tournaments.models import Match, MatchAction
from tournaments.services import online

from .helpers import parse_events
from .test_online import GAMES, act, make_world, opened, plain, start, waiting  # noqa: F401 - opened: a fixture
from .test_online_events import replay_views, start_committed

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def hub(monkeypatch) -> events.LocalHub:
    """A hub of this test's own, in this process: publishing counts and wakes at once."""
    local = events.LocalHub()
    monkeypatch.setattr(events, "_hub", local)
    return local


def fetched(w) -> Match:
    return Match.objects.select_related("round__tournament").get(pk=w.match.pk)


def stored(w) -> int:
    return MatchAction.objects.filter(match=w.match).count()


def move(w, rng: random.Random) -> None:
    turn, body = waiting(w)
    assert turn is not None
    assert act(w, turn, rng.choice(body["view"]["legal_actions"])).status_code == 200


def check_views(match: Match, position: int | None, got: list[feeds.Event]) -> None:
    """Every view event is the engine's view of ``position`` after that many actions."""
    views = replay_views(match, position)
    for event in got:
        if event.kind == feeds.VIEW:
            assert plain(event.data["view"]) == views[int(event.id)], (position, event.id)
            assert event.data.get("position") == position


@pytest.mark.django_db(transaction=True)
def test_the_streams_of_a_match_share_one_read_per_change_and_each_gets_its_own_view(hub):
    w = start_committed(make_world(), "stoppa")
    match = fetched(w)
    ada, bob = w.position("ada"), w.position("bob-bot")
    followers = {ada: feeds.SeatFeed(match, ada), bob: feeds.SeatFeed(match, bob), None: feeds.SeatFeed(match, None)}
    reader = followers[ada].reader
    assert all(feed.reader is reader for feed in followers.values())
    for feed in followers.values():  # a first look reads for itself
        assert [e.kind for e in feed.poll()] == [feeds.VIEW]
    assert reader.reads == 3
    rng = random.Random(4)
    for _ in range(6):
        move(w, rng)  # commits, then notifies match:<id>
        before = reader.reads
        got = {position: feed.poll() for position, feed in followers.items()}
        assert reader.reads == before + 1  # the first stream read it, the others took that read
        total = stored(w)
        for position, events_got in got.items():
            assert events_got[-1].id == str(total)
            check_views(match, position, events_got)
        # Three readers, three views: ada's cards are not bob's, the spectator sees neither.
        last = {position: events_got[-1].data["view"] for position, events_got in got.items()}
        assert last[ada] != last[bob] and last[None] not in (last[ada], last[bob])
    # A look that no notification brought (a stream's periodic look) reads for itself: a lost
    # notification costs latency, never an event.
    before = reader.reads
    assert followers[ada].poll() == [] and reader.reads == before + 1


@pytest.mark.django_db(transaction=True)
def test_a_stream_takes_the_last_read_without_the_database_only_once_notified_and_read(hub, monkeypatch):
    w = start_committed(make_world(), "sette_e_mezzo")
    match = fetched(w)
    ada, bob = w.position("ada"), w.position("bob-bot")
    first, second = feeds.SeatFeed(match, ada), feeds.SeatFeed(match, bob)
    assert first.poll_cached() is None  # never read: it must
    first.poll()
    second.poll()
    assert second.poll_cached() is None  # nothing notified since its read: a look of its own
    move(w, random.Random(1))
    assert second.poll_cached() is None  # notified, but nobody has read the change yet
    first.poll()
    real = feeds.read_match
    monkeypatch.setattr(feeds, "read_match", lambda *args: pytest.fail("the database was read"))
    got = second.poll_cached()  # what an event loop sends without a thread
    assert got and got[-1].id == str(stored(w))
    check_views(match, bob, got)
    monkeypatch.setattr(feeds, "read_match", real)


@pytest.mark.django_db(transaction=True)
def test_a_read_that_began_before_a_notification_is_not_taken_by_the_streams_it_woke(hub, monkeypatch):
    w = start_committed(make_world(), "stoppa")
    match = fetched(w)
    ada, bob = w.position("ada"), w.position("bob-bot")
    first, second = feeds.SeatFeed(match, ada), feeds.SeatFeed(match, bob)
    first.poll()
    second.poll()
    rng = random.Random(6)
    move(w, rng)
    real = feeds.read_match

    def racing(match_id, start, seen):
        got = real(match_id, start, seen)
        move(w, rng)  # committed and notified while the read was under way, after its statement
        return got

    monkeypatch.setattr(feeds, "read_match", racing)
    first.poll()
    monkeypatch.setattr(feeds, "read_match", real)
    reads = first.reader.reads
    got = second.poll()  # woken by both moves: the first stream's read predates the second
    assert first.reader.reads == reads + 1
    assert got[-1].id == str(stored(w))
    check_views(match, bob, got)


@pytest.mark.django_db(transaction=True)
def test_a_forfeit_without_an_action_is_sent_again_under_the_same_id(hub):
    w = start_committed(make_world(), "stoppa")
    match = fetched(w)
    turn, _ = waiting(w)
    other = next(position for position in w.online_positions() if position != turn)
    followers = {position: feeds.SeatFeed(match, position) for position in (turn, other)}
    for feed in followers.values():
        assert feed.poll()[-1].data["forfeited"] is False
    total = stored(w)
    answer = w.organiser.post(f"{w.url}/seats/{other}/forfeit/", {"reason": "gone"}, format="json")
    assert answer.status_code == 200 and stored(w) == total  # not its turn: nothing played yet
    reads = followers[turn].reader.reads
    got = {position: feed.poll() for position, feed in followers.items()}
    assert followers[turn].reader.reads == reads + 1
    assert [(e.id, e.data["forfeited"]) for e in got[other]] == [(str(total), True)]
    assert [(e.id, e.data["forfeited"]) for e in got[turn]] == [(str(total), False)]
    assert followers[turn].reader.snapshot.forfeited == {other}


class Rollback(Exception):
    pass


@pytest.mark.django_db(transaction=True)
def test_an_action_read_inside_a_transaction_that_rolls_back_never_reaches_the_other_streams(hub):
    w = start_committed(make_world(), "stoppa")
    match = fetched(w)
    ada, bob = w.position("ada"), w.position("bob-bot")
    follower = feeds.SeatFeed(match, ada)
    follower.poll()
    committed = stored(w)
    turn, body = waiting(w)
    legal = body["view"]["legal_actions"]
    with pytest.raises(Rollback), transaction.atomic():
        online.seat_act(match_id=match.pk, position=turn, action=legal[0])
        inside = feeds.SeatFeed(match, turn)  # a stream reading inside the transaction sees its writes...
        assert int(inside.poll()[-1].id) > committed
        raise Rollback
    reader = follower.reader
    assert inside.reader is reader
    assert len(reader.actions) == committed and reader.snapshot.count == committed  # ...the others never
    later = feeds.SeatFeed(match, bob)
    assert later.reader is reader and later.poll()[-1].id == str(committed)
    assert follower.poll() == []
    # Another action takes the rolled-back one's number: every stream is sent what is stored.
    assert act(w, turn, legal[-1]).status_code == 200
    for position, feed in ((ada, follower), (bob, later)):
        got = feed.poll()
        assert got[-1].id == str(stored(w))
        check_views(match, position, got)


@pytest.mark.django_db(transaction=True)
def test_streams_woken_together_wait_for_one_read_and_take_it(hub, monkeypatch):
    w = start_committed(make_world(), "stoppa")
    match = fetched(w)
    ada, bob = w.position("ada"), w.position("bob-bot")
    followers = {ada: feeds.SeatFeed(match, ada), bob: feeds.SeatFeed(match, bob)}
    for feed in followers.values():
        feed.poll()
    reader = followers[ada].reader
    move(w, random.Random(2))
    # The read as the database answers it now, served slowly from the threads (which then need
    # no database of their own).
    answer = feeds.read_match(match.pk, len(reader.actions), 0)
    calls = []

    def slow(match_id, start, seen):
        calls.append(start)
        time.sleep(0.2)
        return dataclasses.replace(answer, seen=seen)

    monkeypatch.setattr(feeds, "read_match", slow)
    barrier = threading.Barrier(len(followers))
    got = {}

    def poll(position):
        barrier.wait(5)
        got[position] = followers[position].poll()

    threads = [threading.Thread(target=poll, args=(position,)) for position in followers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert calls == [answer.first]
    for position, events_got in got.items():
        assert events_got[-1].id == str(answer.count)
        check_views(match, position, events_got)


@pytest.mark.django_db(transaction=True)
def test_streams_on_an_event_loop_woken_together_take_one_thread_for_their_one_read(hub, monkeypatch):
    w = start_committed(make_world(), "stoppa")
    match = fetched(w)
    followers = [feeds.SeatFeed(match, position) for position in (*w.online_positions(), None)]
    for feed in followers:
        feed.poll()
    reader = followers[0].reader
    move(w, random.Random(7))
    reads, threads = reader.reads, []
    real = streams._poll_in_pool

    def counted(feed):
        threads.append(feed.position)
        return real(feed)

    monkeypatch.setattr(streams, "_poll_in_pool", counted)

    async def scenario():  # as the notification wakes them: all at once, on one loop
        return await asyncio.gather(*(streams._poll_async(feed) for feed in followers))

    answers = asyncio.run(scenario())
    assert len(threads) == 1 and reader.reads == reads + 1  # the others waited on the loop
    total = stored(w)
    for feed, chunks in zip(followers, answers):
        got = parse_events(b"".join(chunks))
        assert got[-1]["id"] == str(total)
        views = replay_views(match, feed.position)
        assert [plain(e["data"]["view"]) for e in got] == [views[int(e["id"])] for e in got]


def test_a_match_reader_lives_as_long_as_its_streams(hub, opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "stoppa", GAMES["stoppa"], django_capture_on_commit_callbacks)
    match = fetched(w)
    first, second = feeds.SeatFeed(match, w.position("ada")), feeds.SeatFeed(match, None)
    reader = weakref.ref(first.reader)
    assert second.reader is reader() and hub.marked() == 1
    del first
    gc.collect()
    assert reader() is not None and hub.marked() == 1
    del second
    gc.collect()
    assert reader() is None and hub.marked() == 0  # its mark forgotten too
    assert feeds.SeatFeed(match, None).reader is not None and hub.marked() == 1  # a new one for a new stream


def test_a_read_inside_a_transaction_is_the_streams_own(hub, opened, django_capture_on_commit_callbacks):
    # Every test of tests/tournaments/test_online_events.py runs inside one: its streams never
    # share, and each still gets every view.
    w = start(make_world(), "stoppa", GAMES["stoppa"], django_capture_on_commit_callbacks)
    match = fetched(w)
    ada = w.position("ada")
    follower = feeds.SeatFeed(match, ada)
    follower.poll()
    move(w, random.Random(3))
    got = follower.poll()
    assert got[-1].id == str(stored(w)) and follower.reader.actions == []
    check_views(match, ada, got)


def test_a_mark_is_counted_before_the_waiters_of_its_notification_wake():
    hub = events.LocalHub()
    mark = hub.mark(["match:3"])
    waiter = hub.listen(["match:3"])
    counted = []
    waiter.wake = lambda: counted.append(mark.count)  # what a woken stream would find
    hub.publish(["match:3", "user:1"])
    hub.publish(["match:4"])
    assert counted == [1] and mark.count == 1
    hub.wake_all()  # a Redis listener back after an outage
    assert counted == [1, 2]
    hub.forget(mark)
    hub.forget(waiter)
    assert hub.marked() == 0 and hub.waiting() == 0


class CachedFeed:
    """A feed whose every event is already read: the ASGI stream never sends it to a thread."""

    channels = ["match:0"]
    done = False

    def poll(self):
        raise AssertionError("sent to a thread")

    def poll_cached(self):
        self.done = True
        return [feeds.Event(id="1", kind=feeds.VIEW, data={"match": 0})]


def test_the_asgi_stream_answers_on_the_event_loop_what_needs_no_read():
    async def scenario():
        return [chunk async for chunk in streams._async_stream(CachedFeed(), follow=True)]

    assert asyncio.run(scenario()) == [b"retry: 2000\n\n", b'id: 1\nevent: view\ndata: {"match":0}\n\n']
    assert events.hub().waiting() == 0
