"""The service's bots at online tables take no request, no lock and no clock hostage (the
hardening issue): a built-in bot with the most expensive options its bounds allow thinks in a
worker, by its time (services.clocks), outside the match's lock, while a person's move is
answered at once and another organiser's clock is applied on time.

Played with real processes, a Celery worker and PostgreSQL (scripts/test-services): on the
embedded defaults the tests' in-memory SQLite cannot be written by two threads at once. There,
test_online.py shows a move's request playing no bot."""

from __future__ import annotations

import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connections, transaction
from rest_framework.test import APIClient

from tournaments import online_reads
from tournaments.models import AuditEvent, Match
from tournaments.services import dispatch, online
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tournaments import entry_add, tournament_cancel, tournament_create, tournament_start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

# Within every published bound (tournaments.limits): 300 samples a decision (Stoppa's ceiling),
# each played to the end of a 50-hand match, every decision searched. Unbounded by time, one
# decision took 25-45 s.
DEEP = {"iterations": 300, "delegate": [], "horizon": "match"}


def opened(name, game, options, entrants, move_seconds, seed):
    """An online round robin of ``entrants`` started and its one match sent to be opened (by the
    workers: the embedded thread, or a Celery worker); returns the match."""
    tournament = tournament_create(name=name, slug=name, game=game, table_size=len(entrants), format="round_robin",
                                   format_config={}, options=options, online=True, move_seconds=move_seconds,
                                   seed=seed,
                                   owner=get_user_model().objects.create_user(f"{name}-organiser"))
    for player in entrants:
        entry_add(tournament=tournament, player=player)
    _, progress = tournament_start(tournament=tournament)
    dispatch.send_progress(progress)
    return Match.objects.select_related("round__tournament").get(round__tournament=tournament)


def until(check, seconds, what):
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if (found := check()) is not None:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {seconds} s")


def awaited(match):
    """The seat the match awaits from the API now, or None."""
    return online_reads.table_load(Match.objects.select_related("round__tournament").get(pk=match.pk)).waits_for()


def timed(call):
    began = time.monotonic()
    answer = call()
    return answer, time.monotonic() - began


@pytest.fixture(autouse=True)
def _workers(broker_configured):
    if not broker_configured:
        pytest.skip("real processes: scripts/test-services")


def test_a_slow_search_bot_holds_no_request_no_lock_and_no_other_organisers_clock(settings):
    users = get_user_model().objects
    ada = player_create(name="ada", kind="person", owner=users.create_user("ada"))
    deep = builtin_bot_get_or_create(bot="ismcts", name="deep", options=DEEP)
    match = opened("deep-night", "stoppa", {"hands": 50}, [ada, deep, builtin_bot_get_or_create(bot="random")], 600,
                   seed=5)
    bea = player_create(name="bea", kind="person", owner=users.create_user("bea"))
    elsewhere = opened("quick-clock", "sette_e_mezzo", {"hands": 1},
                       [bea, builtin_bot_get_or_create(bot="random"), builtin_bot_get_or_create(bot="heuristic")], 5,
                       seed=6)
    client = APIClient()
    client.force_authenticate(ada.owner)
    url = f"/api/matches/{match.pk}/seats"
    try:
        position = match.seats.get(player=ada).position
        until(lambda: True if awaited(match) == position else None, 120, "ada's first turn")
        legal = client.get(f"{url}/{position}/").json()["view"]["legal_actions"]

        answer, took = timed(lambda: client.post(f"{url}/{position}/actions/", {"action": legal[0]}, format="json"))
        assert answer.status_code == 200 and took < 3.0  # the bots' turns are the workers'

        # While the bots think: the match's lock is free (a move out of turn is refused at once),
        # and the other organiser's clock is applied when due, by a check that waits for nothing.
        refused, took = timed(lambda: client.post(f"{url}/{position}/actions/", {"action": legal[0]}, format="json"))
        assert refused.status_code == 409 and took < 3.0
        elsewhere.refresh_from_db()
        _, took = timed(lambda: online.deadlines_expire(now=elsewhere.deadline_at))
        assert took < 3.0
        assert AuditEvent.objects.filter(match=elsewhere, action="move_timeout").count() == 1

        # The bot played its turns by its time: ada's turn is back well before one unbounded
        # decision would have ended, and it never overran (no forfeit).
        until(lambda: True if awaited(match) == position or Match.objects.get(pk=match.pk).status == "finished"
              else None, 60, "ada's turn again")
        deep_seat = match.seats.get(player=deep)
        assert deep_seat.forfeit_reason == ""
        assert match.actions.filter(seat=deep_seat.position, by=online.BY_BOT).exists()
        assert 0 <= deep_seat.bank_left < settings.BOT_MATCH_SECONDS / 3  # its match time, spent as it thought
    finally:
        for tournament in (match.round.tournament, elsewhere.round.tournament):
            tournament_cancel(tournament=tournament)  # what the workers still hold finds it cancelled


def test_the_clock_check_passes_over_a_match_another_transaction_holds():
    """A periodic clock check never waits on a match's lock: the match another transaction
    holds is left for the next check, the others are applied at once."""
    users = get_user_model().objects
    matches = []
    for seed, name in enumerate(("held", "free"), start=3):
        person = player_create(name=f"{name}-p", kind="person", owner=users.create_user(f"{name}-p"))
        tournament = tournament_create(name=name, slug=name, game="sette_e_mezzo", table_size=3,
                                       format="round_robin", format_config={}, options={"hands": 1}, online=True,
                                       move_seconds=5, seed=seed, owner=users.create_user(f"{name}-o"))
        for player in (person, builtin_bot_get_or_create(bot="random"), builtin_bot_get_or_create(bot="heuristic")):
            entry_add(tournament=tournament, player=player)
        _, progress = tournament_start(tournament=tournament)
        dispatch.send_progress(progress)
        match = Match.objects.get(pk=progress.to_open[0])
        until(lambda m=match: True if awaited(m) is not None else None, 30, "a person's turn")
        match.refresh_from_db()
        matches.append(match)
    held, free = matches
    late = max(m.deadline_at for m in matches)

    locked, release = threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                online_reads.match_read(held.pk, lock=True)  # a move in progress, say
                locked.set()
                release.wait(30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(10)
        _, took = timed(lambda: online.deadlines_expire(now=late))
        assert took < 3.0
        assert AuditEvent.objects.filter(match=free, action="move_timeout").count() == 1
        assert not AuditEvent.objects.filter(match=held, action="move_timeout").exists()
    finally:
        release.set()
        holder.join()
    online.deadlines_expire(now=late)  # the next check: it is free now
    assert AuditEvent.objects.filter(match=held, action="move_timeout").count() == 1
