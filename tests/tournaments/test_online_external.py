"""External bots (HTTP and subprocess: their authors' programs) at online tables: a worker asks
them one decision at a time between the online turns (services.online.online_bots_move), and
nothing else moves their seats."""

from __future__ import annotations

import json
import random
import re
import sys
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

import engine
from bots.external import HttpBot
from tournaments import online_reads
from tournaments.models import Match, MatchAction, Result
from tournaments.services import bot_calls, clocks, online
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tokens import token_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

from ..bots.helpers import MISBEHAVE
from ..bots.test_http import bot_server, random_player  # noqa: F401 - bot_server: a fixture
from ..bots.test_http_public_only import resolving
from .helpers import error

pytestmark = [pytest.mark.django_db]

FAST = {"startup": 5.0, "decision": 2.0, "bank": 1.0}


@pytest.fixture
def bot_url(settings, bot_server):
    """A local HTTP bot (tests/bots/test_http.py's, loopback allowed for the test):
    ``behaviour(message, acts)`` -> (status, body); returns (url, the messages it got)."""
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]
    return bot_server


def external_match(bot, *, game="stoppa", options=None, slug="ext", move_seconds=None):
    """An online match of ada (a person), ``bot`` and a built-in bot, opened; returns the match
    and the progress its opening made (``to_move`` when the external bot is first to act)."""
    ada = player_create(name=f"ada-{slug}", kind="person", owner=get_user_model().objects.create_user(f"ada-{slug}"))
    builtin = builtin_bot_get_or_create(bot="random", name="rnd")
    tournament = tournament_create(name=slug, slug=slug, game=game, table_size=3, format="round_robin",
                                   format_config={}, options=options or {"hands": 1}, online=True,
                                   move_seconds=move_seconds, seed=11)
    for player in (ada, bot, builtin):
        entry_add(tournament=tournament, player=player)
    _, started = tournament_start(tournament=tournament)
    match = Match.objects.get(pk=started.to_open[0])
    return match, online.online_matches_open(match_ids=[match.pk])


def http_bot(url, name="http-bot", **config):
    owner = get_user_model().objects.create_user(f"{name}-owner")
    return player_create(name=name, kind="bot", bot_kind="http", owner=owner,
                         bot_config={"url": url, "limits": FAST, **config})


def program_bot(*command, name="program"):
    root = get_user_model().objects.create_user(f"{name}-root", is_staff=True)
    return player_create(name=name, kind="bot", bot_kind="subprocess", owner=root,
                         bot_config={"command": list(command), "limits": {**FAST, "memory_mb": 512}})


def play_out(match, progress, rng, *, worker=online.online_bots_move):
    """Play the match to its end as its players would: ada's seat through the service with random
    legal actions, the external bot's turns by ``worker`` each time a change sends the match to
    the workers (Progress.to_move). Returns how many times the workers were sent it."""
    sent = 0
    while True:
        while match.pk in progress.to_move:
            sent += 1
            progress = worker(match_id=match.pk)
        table = online_reads.table_load(Match.objects.select_related("round__tournament").get(pk=match.pk))
        turn = table.waits_for()
        if turn is None:
            assert table.state.is_over() or table.external_turn() is None, "stuck on the bot's turn"
            return sent
        legal = table.state.view(turn)["legal_actions"]
        progress = online.seat_act(match_id=match.pk, position=turn, action=rng.choice(legal)).progress


def replayed(match) -> engine.State:
    """The engine's replay of the match's recorded actions from its seed."""
    match = Match.objects.select_related("round__tournament").get(pk=match.pk)
    state = online_reads.deal(match, match.seats.count())
    for action in match.actions.order_by("seq").values_list("action", flat=True):
        state.apply(action)
    return state


def plain(value):
    return json.loads(json.dumps(value))


def test_an_http_bot_plays_its_online_seat_from_a_worker_one_decision_at_a_time(bot_url):
    url, seen = bot_url(random_player())
    bot = http_bot(url)
    match, progress = external_match(bot)
    position = match.seats.get(player=bot).position
    assert play_out(match, progress, random.Random(1)) >= 1
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.deadline_at is None
    # The result is the engine's replay of what was recorded; nobody forfeited.
    state = replayed(match)
    result = Result.objects.get(match=match)
    assert state.is_over() and result.scores == list(state.scores())
    assert not match.seats.exclude(forfeit_reason="").exists()
    # start once, one act per decision it made, finish at the end; one match id throughout,
    # which is not the match's seed.
    kinds = [m["type"] for m in seen]
    decisions = list(MatchAction.objects.filter(match=match, seat=position).order_by("seq"))
    assert kinds == ["start"] + ["act"] * len(decisions) + ["finish"]
    assert all(d.by == online.BY_BOT for d in decisions) and decisions
    ids = {m["match"] for m in seen}
    assert len(ids) == 1 and re.fullmatch(r"[0-9a-f]{32}", ids.pop())
    assert str(match.seed) not in json.dumps(seen)
    assert seen[0]["seat"] == position and seen[0]["players"] == 3
    assert seen[0]["options"] == plain(dict(state.options))  # as the runner tells them, defaults resolved
    assert seen[-1]["scores"] == result.scores
    # Each act carried the bot's own view as the engine had it then, and nothing else.
    replay = online_reads.deal(match, 3)
    acts = iter(m for m in seen if m["type"] == "act")
    for action in match.actions.order_by("seq"):
        if action.seat == position:
            assert next(acts)["view"] == plain(replay.view(position))
        replay.apply(action.action)
    # Its time bank is kept on its seat between decisions.
    assert match.seats.get(player=bot).bank_left is not None


def test_an_http_bot_that_fails_forfeits_and_the_fallback_plays_its_seat_to_last_place(bot_url):
    url, seen = bot_url(random_player(after=1, misbehave=lambda: (500, {"error": "boom"})))
    bot = http_bot(url)
    match, progress = external_match(bot, slug="failing")
    play_out(match, progress, random.Random(2))
    seat = match.seats.get(player=bot)
    assert seat.forfeit_reason == "crash" and "HTTP 500" in seat.forfeit_detail
    assert seat.place == 3
    assert [m["type"] for m in seen] == ["start", "act", "act"]  # no finish for a forfeited seat
    fallback = MatchAction.objects.filter(match=match, seat=seat.position, by=online.BY_FALLBACK)
    assert fallback.exists()
    assert Result.objects.get(match=match).scores == list(replayed(match).scores())


def test_an_illegal_answer_forfeits_the_seat_with_the_engines_rule(bot_url):
    url, _ = bot_url(lambda message, acts: (200, {"action": {"type": "shout"}} if message["type"] == "act" else {}))
    bot = http_bot(url, name="shouter")
    match, progress = external_match(bot, slug="illegal")
    play_out(match, progress, random.Random(3))
    seat = match.seats.get(player=bot)
    assert seat.forfeit_reason == "illegal"
    assert seat.forfeit_detail.startswith("answered {'type': 'shout'}: ")
    assert not MatchAction.objects.filter(match=match, seat=seat.position, by=online.BY_BOT).exists()


def test_a_subprocess_bot_is_started_afresh_for_each_of_its_decisions():
    # misbehave.py "crash 1" answers one act and crashes at its second: one process per
    # decision never gets a second, so it plays the whole match.
    bot = program_bot(sys.executable, str(MISBEHAVE), "crash", "1")
    match, progress = external_match(bot, slug="program")
    play_out(match, progress, random.Random(4))
    seat = match.seats.get(player=bot)
    assert seat.forfeit_reason == ""
    assert MatchAction.objects.filter(match=match, seat=seat.position, by=online.BY_BOT).count() >= 2
    assert Result.objects.get(match=match).scores == list(replayed(match).scores())


def test_a_subprocess_bot_that_crashes_forfeits_with_its_stderr():
    bot = program_bot(sys.executable, str(MISBEHAVE), "crash", "0", name="crasher")
    match, progress = external_match(bot, slug="crasher")
    play_out(match, progress, random.Random(5))
    seat = match.seats.get(player=bot)
    assert seat.forfeit_reason == "crash" and "Traceback: boom" in seat.forfeit_detail


def test_an_http_bot_whose_name_resolves_off_the_public_internet_forfeits_without_being_told_where(
        settings, monkeypatch):
    settings.HTTP_BOTS_ALLOWED_HOSTS = []
    resolving(monkeypatch, "bots.example", "10.0.0.5")
    bot = http_bot("http://bots.example/play", name="inward")
    match, progress = external_match(bot, slug="inward")
    play_out(match, progress, random.Random(7))
    seat = match.seats.get(player=bot)
    assert seat.forfeit_reason == "crash" and "bots.example" in seat.forfeit_detail
    assert "10.0.0.5" not in seat.forfeit_detail and "Traceback" not in seat.forfeit_detail


def test_a_failure_of_ours_while_asking_a_bot_forfeits_its_seat_without_a_traceback(bot_url, monkeypatch):
    url, _ = bot_url(random_player())
    bot = http_bot(url, name="unlucky")

    def broken(self, view):
        raise KeyError("a bug of the service")

    monkeypatch.setattr(HttpBot, "act", broken)
    match, progress = external_match(bot, slug="unlucky")
    play_out(match, progress, random.Random(8))
    seat = match.seats.get(player=bot)
    assert seat.forfeit_reason == "exception"
    assert "Traceback" not in seat.forfeit_detail and ".py" not in seat.forfeit_detail


def test_a_second_run_of_the_task_applies_nothing_the_first_did_not(bot_url, monkeypatch):
    url, seen = bot_url(random_player())
    bot = http_bot(url)
    match, progress = external_match(bot, slug="twice")
    ask = bot_calls.ask_bot
    stored_after_duplicate = []

    def asked_twice(table, position):
        # The first time the bot is asked, a duplicate of the task runs to its end meanwhile
        # (a redelivered message, a watchdog's resend) and moves the match on.
        if not stored_after_duplicate:
            stored_after_duplicate.append(None)
            online.online_bots_move(match_id=table.match.pk)
            stored_after_duplicate[0] = MatchAction.objects.filter(match=match).count()
        return ask(table, position)

    rng = random.Random(6)
    to_the_bots_turn(match, rng)
    monkeypatch.setattr(bot_calls, "ask_bot", asked_twice)
    online.online_bots_move(match_id=match.pk)
    # The first run's answer came after the duplicate had moved the match: it was dropped, not
    # applied to whoever's turn it is now, nor held against the bot.
    assert MatchAction.objects.filter(match=match).count() == stored_after_duplicate[0]
    assert not match.seats.exclude(forfeit_reason="").exists()
    assert sum(m["type"] == "act" for m in seen) == MatchAction.objects.filter(
        match=match, by=online.BY_BOT, seat=match.seats.get(player=bot).position).count() + 1
    monkeypatch.setattr(bot_calls, "ask_bot", ask)
    play_out(match, online.NOTHING, rng)
    assert Result.objects.get(match=match).scores == list(replayed(match).scores())


class _NotAsked(Exception):
    """The external bot was about to be asked: its turn has come."""


def to_the_bots_turn(match, rng) -> None:
    """Play ada's seat (random legal actions) and the built-in bot's turns (the workers' runs)
    until the external bot is to act, the bot itself not asked (the task that would ask it lost)."""
    def not_asked(table, position):
        raise _NotAsked

    while True:
        table = online_reads.table_load(Match.objects.select_related("round__tournament").get(pk=match.pk))
        if table.external_turn() is not None:
            return
        turn = table.waits_for()
        if turn is not None:
            online.seat_act(match_id=match.pk, position=turn, action=rng.choice(table.state.view(turn)["legal_actions"]))
            continue
        ask, bot_calls.ask_bot = bot_calls.ask_bot, not_asked
        try:
            online.online_bots_move(match_id=match.pk)
        except _NotAsked:
            pass
        finally:
            bot_calls.ask_bot = ask


def bot_to_act(bot, slug):
    """A match stopped where its external bot is to act, the worker's task not run (lost)."""
    match, _ = external_match(bot, slug=slug, move_seconds=60)
    to_the_bots_turn(match, random.Random(7))
    match.refresh_from_db()
    return match


def test_a_bots_turn_no_worker_took_is_sent_again_after_its_limits_and_a_grace(bot_url):
    url, _ = bot_url(random_player())
    match = bot_to_act(http_bot(url), "lost")
    # No online seat is awaited; the watchdog's deadline is the bot's limits and the grace.
    assert match.awaiting_seat is None
    allowed = FAST["startup"] + FAST["decision"] + FAST["bank"] + clocks.BOT_TURN_GRACE_SECONDS
    assert abs((match.deadline_at - timezone.now()).total_seconds() - allowed) < 5
    assert not online.deadlines_expire(now=match.deadline_at - timedelta(seconds=1))
    resent = online.deadlines_expire(now=match.deadline_at + timedelta(seconds=1))
    assert resent.to_move == (match.pk,)
    moved_on = Match.objects.get(pk=match.pk).deadline_at
    assert moved_on > match.deadline_at  # sent once per watchdog period, not at every beat
    assert not online.deadlines_expire(now=match.deadline_at + timedelta(seconds=2))
    assert not MatchAction.objects.filter(match=match, by=online.BY_TIMEOUT).exists()  # not the bot's fault
    assert not match.seats.exclude(forfeit_reason="").exists()


def test_nobody_posts_an_action_for_an_external_bots_seat(bot_url):
    url, _ = bot_url(random_player())
    bot = http_bot(url)
    match = bot_to_act(bot, "owner-posts")
    position = match.seats.get(player=bot).position
    _, secret = token_create(user=bot.owner, name="play", scopes=["read", "play"])
    owner = APIClient()
    owner.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    legal = online_reads.table_load(match).state.view(position)["legal_actions"]
    before = MatchAction.objects.filter(match=match).count()
    answer = owner.post(f"/api/matches/{match.pk}/seats/{position}/actions/", {"action": legal[0]}, format="json")
    assert answer.status_code == 409
    assert "played by its bot" in error(answer)["message"]
    assert MatchAction.objects.filter(match=match).count() == before
