"""One rule of the table for every match (bots.table): a match played by the bot runner
(bots.runner.play_match, as a worker plays a bot match) and the same match played online
through the services (as the API and the workers move it) give the same actions and the same
outcome; and the three ways the two once drifted apart (what a bot is handed, how the fallback
of a forfeited seat is seeded, how a forfeit's detail is cut) each have their test.

How the two are made comparable:

* An online match needs a seat played through the API, so the "all bots" match has a remote
  bot's seat, whose moves this test posts (``seat_act``) as its author's program would: they
  are the choices of the same built-in bot the runner seats there. The service's own built-in
  bots are made afresh for each decision (bots.table.Fresh, seeded by bots.table.decision_seed:
  a match rebuilt per request plays on the same), so the runner is given the same makers.
* The timeout: the runner's seat is a bot that takes longer than its policy allows at its
  second decision; the online seat lets its deadline pass at its second decision (no timeout
  bot: the seat is forfeited). Both forfeit the seat with reason ``timeout`` before that
  decision, and the fallback plays it from there; the details differ (each says which time
  ran out), so only the reason is compared.
"""

from __future__ import annotations

import random
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

import bots
from bots.external import BotFailure, HttpBot
from bots.runner import ForfeitPolicy, play_match
from bots.table import Fresh, decision_seed
from tournaments import online_reads
from tournaments.models import Match, MatchAction, Result
from tournaments.services import online, players
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

from ..bots.test_http import bot_server, random_player  # noqa: F401 - bot_server: a fixture
from .helpers import moved

pytestmark = [pytest.mark.django_db, pytest.mark.services, pytest.mark.usefixtures("service_turns")]

GAME, OPTIONS = "stoppa", {"hands": 2}


class Slow(bots.Bot):
    """``bot``, but thinking past any allowance the test's policy gives."""

    def __init__(self, bot: bots.Bot) -> None:
        super().__init__(game=GAME)
        self.bot = bot

    def act(self, view):
        time.sleep(1.5)
        return self.bot.act(view)


def made_per_decision(name: str, seat: int, match_seed, *, slow_at: int | None = None) -> Fresh:
    """The runner's player of ``seat``: bot ``name`` made for each decision as the service makes
    its own (bots.table.decision_seed); its decision number ``slow_at`` (from 0) too slow."""
    asked = [0]

    def make(decision: int) -> bots.Bot:
        bot = bots.create(name, game=GAME, seed=decision_seed(match_seed, seat, decision))
        asked[0] += 1
        return Slow(bot) if asked[0] - 1 == slow_at else bot

    return Fresh(make)


def online_tournament(slug: str, entrants, *, move_seconds=None):
    tournament = tournament_create(name=slug, slug=slug, game=GAME, table_size=3, format="round_robin",
                                   format_config={}, options=OPTIONS, online=True, move_seconds=move_seconds,
                                   seed=5, several_seats=True)
    for player in entrants:
        entry_add(tournament=tournament, player=player)
    _, progress = tournament_start(tournament=tournament)
    return Match.objects.select_related("round__tournament").get(pk=progress.to_open[0])


def people(slug: str):
    """A person and a remote bot of one account (the tournament allows it several seats)."""
    owner = get_user_model().objects.create_user(f"owner-{slug}")
    return (players.player_create(name=f"person-{slug}", kind="person", owner=owner),
            players.player_create(name=f"remote-{slug}", kind="bot", bot_kind="remote", owner=owner))


def stored(match) -> list[dict]:
    return list(MatchAction.objects.filter(match=match).order_by("seq").values_list("action", flat=True))


def outcome_of(match) -> tuple[list, list, dict]:
    result = Result.objects.get(match=match)
    forfeits = {s.position: s.forfeit_reason for s in match.seats.all() if s.forfeit_reason}
    return result.scores, result.places, forfeits


def play_online(match, post) -> None:
    """Open the match and play it to the end: the service's seats by the workers (the
    ``service_turns`` fixture), each seat played through the API by ``post(table, seat)``, which
    posts its move or lets its deadline pass."""
    moved(online.online_matches_open(match_ids=[match.pk]))
    for _ in range(10_000):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return
        table = online_reads.table_load(match)
        seat = table.waits_for()
        assert seat is not None, "the service's turn was not played"
        post(table, seat)
    raise AssertionError("the match did not end")


def post_bot_moves(match, bot_name: str, *, expire_at: int | None = None):
    """A remote seat played by ``bot_name`` made for each decision as the service makes its own;
    at its ``expire_at``-th decision (from 0) it does not answer: its deadline passes."""
    made = {"decisions": 0}

    def post(table, seat):
        if made["decisions"] == expire_at:
            made["decisions"] += 1
            moved(online.deadlines_expire(now=table.match.deadline_at + timedelta(seconds=1)))
            return
        made["decisions"] += 1
        bot = bots.create(bot_name, game=GAME, seed=decision_seed(match.seed, seat, table.actions))
        action = bot.act(online_reads.seat_view(match=table.match, position=seat)["view"])
        moved(online.seat_act(match_id=match.pk, position=seat, action=action))

    return post


# --- done when: the same match through the runner and online --------------------------------------

@pytest.mark.parametrize("timing_out", [False, True], ids=["all-bots", "one-seat-times-out"])
def test_a_seeded_match_plays_the_same_through_the_bot_runner_and_online(timing_out):
    slug = "same-timeout" if timing_out else "same"
    _, remote = people(slug)
    heuristic = players.builtin_bot_get_or_create(bot="heuristic", name="heuristic")
    rnd = players.builtin_bot_get_or_create(bot="random", name="rnd")
    match = online_tournament(slug, [remote, heuristic, rnd], move_seconds=30 if timing_out else None)
    names = {s.position: ("heuristic" if s.player == heuristic else "random") for s in match.seats.all()}
    remote_seat = match.seats.get(player=remote).position

    play_online(match, post_bot_moves(match, names[remote_seat], expire_at=1 if timing_out else None))
    online_log, (scores, places, forfeits) = stored(match), outcome_of(match)

    seated = [made_per_decision(names[seat], seat, match.seed, slow_at=1 if timing_out and seat == remote_seat else None)
              for seat in range(3)]
    policy = ForfeitPolicy(decision_limit=0.5, overrun=0.5) if timing_out else ForfeitPolicy()
    outcome = play_match(GAME, seated, seed=match.seed, options=match.round.tournament.options, deck=match.deck,
                         policy=policy)

    assert outcome.state.actions == online_log
    assert (list(outcome.scores), list(outcome.places)) == (scores, places)
    assert {seat: f.reason for seat, f in outcome.forfeits.items()} == forfeits
    assert forfeits == ({remote_seat: "timeout"} if timing_out else {})


# --- the three drifts --------------------------------------------------------------------------------

def http_bot(name: str, url: str):
    """An HTTP bot player at ``url`` (its owner made for it), with short limits."""
    owner = get_user_model().objects.create_user(f"{name}-owner")
    return players.player_create(name=name, kind="bot", bot_kind="http", owner=owner,
                                 bot_config={"url": url, "limits": {"startup": 5.0, "decision": 2.0, "bank": 1.0}})


def play_at_random(match, seed: int) -> None:
    """Play ``match`` to its end, the remote and people's seats moving at random (seeded)."""
    rng = random.Random(seed)
    play_online(match, lambda table, seat: moved(online.seat_act(
        match_id=match.pk, position=seat, action=rng.choice(table.state.view(seat)["legal_actions"]))))


def test_a_bot_at_an_online_table_is_handed_its_own_copies_of_the_legal_actions(settings, bot_server, monkeypatch):
    # Drift 1: the runner handed copies; online handed the engine's own dicts, which a bot
    # that changes them changed under the engine (its next answer then refused as illegal).
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]
    url, _ = bot_server(random_player())

    def vandal(self, view):
        first = dict(view["legal_actions"][0])
        for action in view["legal_actions"]:
            action["type"] = "vandalised"
        return first

    monkeypatch.setattr(HttpBot, "act", vandal)
    vandal_bot = http_bot("vandal", url)
    person, _ = people("copies")
    match = online_tournament("copies", [person, vandal_bot, players.builtin_bot_get_or_create(bot="random", name="r")])
    play_at_random(match, 1)
    seat = match.seats.get(player=vandal_bot)
    assert seat.forfeit_reason == "", seat.forfeit_detail
    assert MatchAction.objects.filter(match=match, seat=seat.position, by=online.BY_BOT).exists()


class FailsAtStart(bots.Bot):
    """A bot whose start hook fails: its seat is forfeited before the first action."""

    def __init__(self, detail: str = "gone") -> None:
        super().__init__(game=GAME)
        self.detail = detail

    def start(self, seat, view):
        raise BotFailure("crash", self.detail)

    def act(self, view):
        raise AssertionError("never asked")


def test_the_fallback_of_a_forfeited_seat_plays_the_same_in_the_runner_and_online():
    # Drift 2: the runner seeded one fallback bot for the rest of the match from (seed, seat);
    # online made one a decision from (seed, "online", seat, decision). Played from a forfeit at
    # the opening, the fallback's moves must be the same wherever the match is played.
    person, remote = people("fallback")
    absent = players.builtin_bot_get_or_create(bot="random", name="absent")
    match = online_tournament("fallback", [person, remote, absent])
    gone = match.seats.get(player=absent).position
    live = [s for s in range(3) if s != gone]
    outcome = play_match(GAME, [FailsAtStart() if s == gone else bots.create("random", game=GAME, seed=s)
                                for s in range(3)], seed=match.seed, options=OPTIONS, deck=match.deck)
    assert set(outcome.forfeits) == {gone}
    runner_log = outcome.state.actions
    olga = get_user_model().objects.create_user("olga-fallback")
    online.seat_forfeit(match_id=match.pk, position=gone, reason="gone", actor=olga)

    def post(table, seat):
        # The live seats repeat the runner's moves; the fallback plays the forfeited seat.
        assert seat in live and table.actions < len(runner_log), "the fallback moved otherwise"
        moved(online.seat_act(match_id=match.pk, position=seat, action=runner_log[table.actions]))

    play_online(match, post)
    assert stored(match) == runner_log
    scores, places, _ = outcome_of(match)
    assert (scores, places) == (list(outcome.scores), list(outcome.places))


def test_a_forfeits_detail_is_cut_the_same_in_the_runner_and_online(settings, bot_server, monkeypatch):
    # Drift 3: the runner kept a detail's last 2,000 characters, online its first 4,000.
    detail = "HEAD " + "x" * 5000 + " TAIL"
    outcome = play_match(GAME, [FailsAtStart(detail), *(bots.create("random", game=GAME, seed=s) for s in (1, 2))],
                         seed=1, options=OPTIONS)
    kept = outcome.forfeits[0].detail

    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]
    url, _ = bot_server(random_player())

    def fails(self, view):
        raise BotFailure("crash", detail)

    monkeypatch.setattr(HttpBot, "act", fails)
    talker = http_bot("talker", url)
    person, _ = people("detail")
    match = online_tournament("detail", [person, talker, players.builtin_bot_get_or_create(bot="random", name="r2")])
    play_at_random(match, 2)
    seat = match.seats.get(player=talker)
    assert seat.forfeit_reason == "crash"
    assert seat.forfeit_detail == kept and kept.endswith(" TAIL") and len(kept) < len(detail)
