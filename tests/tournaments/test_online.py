"""Online play (docs/online.md): people and remote bots play their seats through the API, turn
by turn, the server the only referee.

Everything a seat's owner does goes through the HTTP API with Bearer tokens: the seat's view
(``GET /api/matches/{id}/seats/{pos}/``), its actions (``POST .../seats/{pos}/actions/``), the
spectators' table (``GET .../table/``) and an organiser's forfeit. What is checked against the
service's internals is only what a client cannot see: the live engine state
(``online_reads.table_load``), the stored actions and the recorded result.

The opening task (``open_online_matches``) runs in this process when the start's transaction
"commits" (django_capture_on_commit_callbacks), with or without a broker: a worker process
would not see this test's uncommitted rows.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

import pytest
from celery import current_app
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

import engine
from tournaments import online_reads
from tournaments.models import AuditEvent, Match, MatchAction, Result, Round, Seat, Tournament
from tournaments.services import dispatch, online
from tournaments.services.leases import ClaimStatus, match_claim
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tokens import token_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

from .helpers import error, fields, parse_events

pytestmark = [pytest.mark.django_db, pytest.mark.services, pytest.mark.usefixtures("service_turns")]

# Small matches of every game: a hand or two, a short turn limit.
GAMES = {
    "stoppa": {"hands": 1},
    "sette_e_mezzo": {"hands": 2},
    "piazza": {"table_max": 2},
    "spacca_il_mazzo": {"turn_limit": 30},
}


# --- the world ---------------------------------------------------------------------------------

def bearer(token: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return c


def session(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def plain(value):
    """As it comes back through JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


@pytest.fixture
def opened(monkeypatch) -> list[list[int]]:
    """The open_online_matches task's messages, in the order sent; each is run here, in this
    process and this transaction, as the eager task runs it (with a broker too: a worker
    process would not see the test's rows)."""
    messages: list[list[int]] = []
    task = current_app.tasks[dispatch.OPEN_ONLINE]

    def run_here(args, **kwargs):
        messages.append(list(args[0]))
        task.apply(args=args, throw=True)

    monkeypatch.setattr(task, "apply_async", run_here)
    return messages


@dataclass
class World:
    users: dict
    players: dict  # name -> Player
    organiser: APIClient  # the tournament's owner: a token with every scope
    stranger: APIClient  # signed in, nothing to do with the tournament (a session: every scope)
    anonymous: APIClient
    owners: dict  # player name -> the client its owner plays it with
    several_seats: bool = False  # ada holds two seats: the tournaments allow it
    tournament_id: int = 0
    match: Match | None = None
    seats: dict = field(default_factory=dict)  # position -> player name
    callbacks: list = field(default_factory=list)  # the start's on-commit callbacks

    @property
    def url(self) -> str:
        return f"/api/matches/{self.match.pk}"

    def position(self, name: str) -> int:
        return next(pos for pos, who in self.seats.items() if who == name)

    def client_at(self, position: int) -> APIClient:
        return self.owners[self.seats[position]]

    def live(self) -> online_reads.OnlineTable:
        """The match as the engine has it now (what no client sees whole)."""
        return online_reads.table_load(Match.objects.select_related("round__tournament").get(pk=self.match.pk))

    def online_positions(self) -> list[int]:
        return sorted(pos for pos, name in self.seats.items() if self.players[name].plays_online)


def make_world(*, ada_bot: bool = False) -> World:
    """ada, a person; ``bob-bot``, bob's remote bot, played with a token tied to it (or, with
    ``ada_bot``, ``ada-bot``, ada's own remote bot, played with her token); ``rnd``, a built-in
    bot. olga organises; eve is a stranger. ada's two seats take a tournament that allows an
    account several (``several_seats``)."""
    User = get_user_model()
    users = {name: User.objects.create_user(name) for name in ("olga", "ada", "bob", "eve")}
    remote_owner = users["ada"] if ada_bot else users["bob"]
    remote_name = "ada-bot" if ada_bot else "bob-bot"
    players = {
        "ada": player_create(name="ada", kind="person", owner=users["ada"]),
        remote_name: player_create(name=remote_name, kind="bot", bot_kind="remote", owner=remote_owner),
        "rnd": builtin_bot_get_or_create(bot="random", name="rnd"),
    }
    _, olga = token_create(user=users["olga"], name="desk", scopes=["read", "organise", "play"])
    _, ada = token_create(user=users["ada"], name="phone", scopes=["read", "play"])
    _, bot = token_create(user=remote_owner, name="bot", scopes=["read", "play"], bot=players[remote_name])
    owners = {"ada": bearer(ada), remote_name: bearer(bot)}
    return World(users, players, bearer(olga), session(users["eve"]), APIClient(), owners, several_seats=ada_bot)


def create_online_tournament(w: World, game: str, options: dict, *, online_: bool = True, slug: str = "",
                             **extra) -> int:
    body = {"name": "Online night", "slug": slug or f"online-{game.replace('_', '-')}", "game": game,
            "table_size": 3, "format": "round_robin", "format_config": {}, "options": options, "seed": 7,
            "online": online_, "open_entry": True, "several_seats": w.several_seats, **extra}
    answer = w.organiser.post("/api/tournaments/", body, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["online"] is online_
    return answer.json()["id"]


def enter_all(w: World, tournament_id: int) -> None:
    """Each entrant entered by whoever may: the organiser the built-in bot, each owner their own
    player (entry is open)."""
    url = f"/api/tournaments/{tournament_id}/entries/"
    for name, player in w.players.items():
        client = w.owners.get(name, w.organiser)
        answer = client.post(url, {"player": player.pk}, format="json")
        assert answer.status_code == 201, (name, answer.json())


def start(w: World, game: str, options: dict, captured, *, run_callbacks: bool = True) -> World:
    """Create, enter and start an online round robin of three through the API; its one match is
    opened by the start's on-commit callbacks (unless ``run_callbacks`` is False: then the
    callbacks are returned unrun in ``w.callbacks``)."""
    w.tournament_id = create_online_tournament(w, game, options)
    enter_all(w, w.tournament_id)
    with captured(execute=run_callbacks) as callbacks:
        answer = w.organiser.post(f"/api/tournaments/{w.tournament_id}/start/")
    assert answer.status_code == 202, answer.json()
    w.callbacks = callbacks
    w.match = Match.objects.get(round__tournament_id=w.tournament_id)
    w.seats = {seat.position: seat.player.name for seat in w.match.seats.select_related("player")}
    assert sorted(w.seats.values()) == sorted(w.players)
    return w


def seat_view(w: World, position: int, client: APIClient | None = None) -> dict:
    answer = (client or w.client_at(position)).get(f"{w.url}/seats/{position}/")
    assert answer.status_code == 200, answer.json()
    return answer.json()


def act(w: World, position: int, action, *, client: APIClient | None = None, key: str | None = None):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return (client or w.client_at(position)).post(f"{w.url}/seats/{position}/actions/", {"action": action},
                                                  format="json", **headers)


def play_on(w: World, rng: random.Random, *, until=lambda turn, body: False, skip=()) -> tuple[int | None, dict | None]:
    """Play random legal moves for the online seats (but those in ``skip``) until ``until(turn,
    view)`` holds or the match is over; returns the seat awaited then and its view."""
    while True:
        turn, body = waiting(w)
        if turn is None or until(turn, body):
            return turn, body
        assert turn not in skip
        answer = act(w, turn, rng.choice(body["view"]["legal_actions"]), key=f"play-{body['actions']}")
        assert answer.status_code == 200, answer.json()


def actions_stored(w: World) -> int:
    return MatchAction.objects.filter(match=w.match).count()


def waiting(w: World) -> tuple[int | None, dict | None]:
    """The online seat the match waits for, found as its owners find it: through their seats'
    views (``waiting_for``), and that seat's view; (None, None) once it is over."""
    views = {pos: seat_view(w, pos) for pos in w.online_positions()}
    turns = {body["waiting_for"] for body in views.values()}
    assert len(turns) == 1
    turn = turns.pop()
    if turn is None:  # never stuck on the service's seats: over
        assert {body["status"] for body in views.values()} == {"finished"}, views
    return turn, views.get(turn)


# --- 1 and 2: whole matches, and who sees what ------------------------------------------------

def refused_without_data(answer) -> dict:
    """A refusal's error, which carries nothing but itself: no view, none of the match's data."""
    refusal = error(answer)  # the body is {"error": ...} and nothing else
    assert set(refusal) <= {"code", "message", "fields"} and "view" not in fields(answer), refusal
    return refusal


def check_spectators(w: World, live: online_reads.OnlineTable) -> None:
    """Spectators (anonymous, a stranger, the organiser) see the public view and no seat; a
    seat's owner sees no other seat (a bot's token, tied to it, least of all)."""
    public = plain(live.state.view(None))
    for pos in w.seats:
        for owner in {w.seats[other] for other in w.online_positions() if other != pos}:
            denied = w.owners[owner].get(f"{w.url}/seats/{pos}/")
            assert denied.status_code == 403, (owner, pos)
            assert refused_without_data(denied)
    for who, client in (("anonymous", w.anonymous), ("stranger", w.stranger), ("organiser", w.organiser)):
        table = client.get(f"{w.url}/table/")
        assert table.status_code == 200, who
        assert table.json()["view"] == public, who
        assert table.json()["turn"] == live.state.current_player()
        assert table.json()["actions"] == live.actions
        for pos in w.seats:
            denied = client.get(f"{w.url}/seats/{pos}/")
            assert denied.status_code == 403, (who, pos, denied.status_code)
            assert refused_without_data(denied)["message"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_online_match_is_played_through_the_seats_api(game, opened, sent,
                                                               django_capture_on_commit_callbacks):
    w = start(make_world(), game, GAMES[game], django_capture_on_commit_callbacks)
    # The start's commit opened the one online match (nothing went to the bot workers): the
    # built-in bot has moved up to the first online turn.
    assert opened == [[w.match.pk]] and sent == []
    w.match.refresh_from_db()
    assert w.match.status == Match.Status.RUNNING
    opening = w.live()
    assert opening.state.current_player() is not None
    assert opening.waits_for() == opening.state.current_player()

    # While it is played its seed, outcome and replay stay hidden.
    public = w.anonymous.get(f"{w.url}/")
    assert public.json()["seed"] is None
    assert w.anonymous.get(f"{w.url}/replay/").status_code == 409

    rng = random.Random(game)
    online_seats = w.online_positions()
    differs = {pos: False for pos in online_seats}  # a seat sees something the public does not
    steps = 0
    while True:
        live = w.live()
        if live.state.is_over():
            break
        if steps % 3 == 0:
            check_spectators(w, live)
        # Each owner sees exactly the engine's view of their seat: no other seat's cards.
        views = {}
        for pos in online_seats:
            body = seat_view(w, pos)
            assert body["view"] == plain(live.state.view(pos)), (pos, steps)
            assert body["position"] == pos and body["player"] == w.seats[pos]
            assert (body["turn"], body["waiting_for"], body["actions"], body["status"], body["forfeited"]) == (
                live.state.current_player(), live.waits_for(), live.actions, "running", False)
            differs[pos] |= body["view"] != plain(live.state.view(None))
            views[pos] = body
        assert w.anonymous.get(f"{w.url}/table/").json()["view"] == plain(live.state.view(None))
        turn = live.state.current_player()
        assert turn in online_seats  # the built-in bot never keeps the match waiting
        assert "legal_actions" in views[turn]["view"]
        for pos in online_seats:
            if pos != turn:
                assert not views[pos]["view"].get("legal_actions")
        action = rng.choice(views[turn]["view"]["legal_actions"])
        answer = act(w, turn, action, key=f"move-{steps}")
        assert answer.status_code == 200, answer.json()
        assert answer.json() == {"seq": live.actions, "action": action, "repeated": False}
        steps += 1
    check_spectators(w, live)
    assert all(differs.values()), differs

    # Recorded as a worker records a bot match: the engine's own outcome of the stored actions.
    match = Match.objects.get(pk=w.match.pk)
    assert match.status == Match.Status.FINISHED
    replay = engine.load(match.record)
    result = Result.objects.get(match=match)
    assert result.scores == list(replay.scores()) and result.places == list(replay.places())
    assert result.source == Result.Source.ENGINE
    stored = list(MatchAction.objects.filter(match=match).order_by("seq"))
    assert [a.seq for a in stored] == list(range(len(match.record["actions"])))
    assert [a.action for a in stored] == match.record["actions"]
    assert sum(a.by == online.BY_SEAT for a in stored) == steps
    for a in stored:
        assert a.by == (online.BY_SEAT if a.seat in online_seats else online.BY_BOT), a
    seats = {s.position: s for s in Seat.objects.filter(match=match)}
    assert [seats[p].score for p in sorted(seats)] == result.scores
    assert [seats[p].place for p in sorted(seats)] == result.places
    assert not any(s.forfeit_reason for s in seats.values())

    # The round closed and, a round robin of three being one round, the tournament finished.
    assert Round.objects.get(tournament_id=w.tournament_id).status == Round.Status.FINISHED
    assert w.anonymous.get(f"/api/tournaments/{w.tournament_id}/").json()["status"] == "finished"
    assert w.anonymous.get(f"{w.url}/replay/").status_code == 200
    standings = w.anonymous.get(f"/api/tournaments/{w.tournament_id}/standings/").json()["results"]
    assert len(standings) == 3

    # Over: the seats still read (status finished, nobody's turn), nobody acts any more.
    for pos in online_seats:
        body = seat_view(w, pos)
        assert (body["status"], body["turn"], body["waiting_for"]) == ("finished", None, None)
        assert body["view"] == plain(replay.view(pos))
        late = act(w, pos, {"type": "pass"})
        assert late.status_code == 409 and "over" in fields(late)["match"][0]
    assert actions_stored(w) == len(match.record["actions"])
    assert opened == [[w.match.pk]] and sent == []


# --- 2: who reads and plays a seat --------------------------------------------------------------

def test_only_the_seats_owner_reads_it_with_read_and_plays_it_with_play(opened, django_capture_on_commit_callbacks):
    # ada has two seats: her own (a person) and her remote bot's. Her token with read and play
    # reads and plays both; a read-only token reads them and plays neither, a play-only token
    # the other way round; a token tied to her bot reads and plays that seat alone. An
    # organiser, staff, a stranger and visitors read and play none.
    w = start(make_world(ada_bot=True), "sette_e_mezzo", {"hands": 1}, django_capture_on_commit_callbacks)
    ada_seat, bot_seat, builtin_seat = w.position("ada"), w.position("ada-bot"), w.position("rnd")
    _, both = token_create(user=w.users["ada"], name="both", scopes=["read", "play"])
    _, read_only = token_create(user=w.users["ada"], name="dashboard", scopes=["read"])
    _, play_only = token_create(user=w.users["ada"], name="buttons", scopes=["play"])
    staff = get_user_model().objects.create_user("root", is_staff=True)
    tied = w.owners["ada-bot"]
    live = w.live()
    turn = live.waits_for()
    assert turn in (ada_seat, bot_seat)
    legal = plain(live.state.legal_actions())
    everyone = [ada_seat, bot_seat, builtin_seat]

    reads = {"both scopes": (bearer(both), [ada_seat, bot_seat]),
             "read only": (bearer(read_only), [ada_seat, bot_seat]), "the bot's token": (tied, [bot_seat])}
    for who, (client, positions) in reads.items():
        for pos in positions:
            assert seat_view(w, pos, client)["view"] == plain(live.state.view(pos)), (who, pos)
    no_reads = {"the bot's token": (tied, [ada_seat, builtin_seat]), "read only": (bearer(read_only), [builtin_seat]),
                "play only": (bearer(play_only), everyone), "the organiser (every scope)": (w.organiser, everyone),
                "staff": (session(staff), everyone), "a stranger": (w.stranger, everyone),
                "a visitor": (w.anonymous, everyone)}
    for who, (client, positions) in no_reads.items():
        for pos in positions:
            read = client.get(f"{w.url}/seats/{pos}/")
            assert read.status_code == 403, (who, pos, read.status_code)
            assert refused_without_data(read)["message"]

    no_acts = {"the bot's token": (tied, [ada_seat, builtin_seat]), "read only": (bearer(read_only), everyone),
               "both scopes": (bearer(both), [builtin_seat]), "the organiser (every scope)": (w.organiser, everyone),
               "staff": (session(staff), everyone), "a stranger": (w.stranger, everyone)}
    for who, (client, positions) in no_acts.items():
        for pos in positions:
            answer = act(w, pos, legal[0], client=client, key="sneaky")
            assert answer.status_code == 403, (who, pos, answer.status_code)
            assert error(answer)["message"]
    assert w.anonymous.post(f"{w.url}/seats/{turn}/actions/", {"action": legal[0]}, format="json").status_code == 401
    assert actions_stored(w) == live.actions  # none of it moved the match
    assert not MatchAction.objects.filter(idempotency_key="sneaky").exists()

    # A play-only token plays the seat it cannot read; the bot's own token plays its seat.
    played = act(w, turn, legal[0], client=bearer(play_only))
    assert played.status_code == 200 and played.json()["seq"] == live.actions
    turn, body = play_on(w, random.Random(4), until=lambda turn, body: turn == bot_seat)
    assert turn == bot_seat
    count = actions_stored(w)
    answer = act(w, bot_seat, body["view"]["legal_actions"][0], client=tied)
    assert answer.status_code == 200 and answer.json()["seq"] == count


# --- 3: refusals -------------------------------------------------------------------------------

def test_refused_actions_say_why_and_change_nothing(opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "sette_e_mezzo", {"hands": 1}, django_capture_on_commit_callbacks, run_callbacks=False)
    ada, bob = w.position("ada"), w.position("bob-bot")

    # Not opened yet (its round's opening has not run): readable, not playable.
    assert Match.objects.get(pk=w.match.pk).status == Match.Status.PENDING
    for pos in (ada, bob):
        body = seat_view(w, pos)
        assert body["status"] == "pending" and body["actions"] == 0
        early = act(w, pos, {"type": "stake", "amount": 1})
        assert early.status_code == 409 and "not started" in fields(early)["match"][0]
    assert w.anonymous.get(f"{w.url}/table/").json()["status"] == "pending"
    assert actions_stored(w) == 0
    for callback in w.callbacks:  # the start's transaction commits: the task opens it
        callback()
    assert opened == [[w.match.pk]]
    assert Match.objects.get(pk=w.match.pk).status == Match.Status.RUNNING

    live = w.live()
    turn = live.waits_for()
    other = bob if turn == ada else ada
    before = (actions_stored(w), seat_view(w, turn), seat_view(w, other))
    legal = plain(live.state.legal_actions())
    assert live.state.view(turn)["phase"] == "stake"

    def unchanged():
        assert (actions_stored(w), seat_view(w, turn), seat_view(w, other)) == before

    # Out of turn: 409 naming whose turn it is.
    answer = act(w, other, legal[0])
    assert answer.status_code == 409
    assert error(answer) == {"code": "conflict", "message": f"it is seat {turn}'s turn, not seat {other}'s",
                             "fields": {"position": [f"it is seat {turn}'s turn, not seat {other}'s"]}}
    unchanged()

    # Not legal now: 422 with the engine's own message in "action".
    for illegal in ({"type": "nonsense"}, {"type": "stake", "amount": 99}, {"type": "stake", "amount": 0},
                    {"type": "stand"}):
        with pytest.raises(engine.IllegalAction) as refused:
            w.live().state.apply(illegal)
        answer = act(w, turn, illegal, key=f"bad-{illegal}")
        assert answer.status_code == 422, (illegal, answer.json())
        assert error(answer) == {"code": "illegal", "message": str(refused.value), "fields": {"action": [str(refused.value)]}}
        unchanged()
    assert not MatchAction.objects.filter(idempotency_key__startswith="bad-").exists()

    # Not an action object: 400 naming "action".
    url = f"{w.url}/seats/{turn}/actions/"
    for body in ({}, {"action": None}, {"action": "stand"}, {"action": ["stand"]}, {"action": {"amount": 3}},
                 {"action": {"type": 3}}, {"move": legal[0]}):
        answer = w.client_at(turn).post(url, body, format="json")
        assert answer.status_code == 400, (body, answer.status_code)
        assert "action" in fields(answer), body
    unchanged()

    # A seat the match does not have: 404, whoever asks.
    for pos in (3, 9, 99):
        assert w.client_at(turn).get(f"{w.url}/seats/{pos}/").status_code == 404
        assert act(w, pos, legal[0], client=w.client_at(turn)).status_code == 404
        assert w.organiser.post(f"{w.url}/seats/{pos}/forfeit/", {"reason": "gone"}, format="json").status_code == 404
    assert w.client_at(turn).get(f"/api/matches/{w.match.pk + 1000}/seats/0/").status_code == 404
    unchanged()

    # Played out, the match refuses every action and forfeit.
    play_on(w, random.Random(3))
    assert Match.objects.get(pk=w.match.pk).status == Match.Status.FINISHED
    count = actions_stored(w)
    for pos in (ada, bob):
        late = act(w, pos, legal[0])
        assert late.status_code == 409 and fields(late) == {"match": ["the match is over"]}
    late = w.organiser.post(f"{w.url}/seats/{ada}/forfeit/", {"reason": "gone"}, format="json")
    assert late.status_code == 409
    assert actions_stored(w) == count


def test_a_cancelled_tournaments_online_match_is_no_longer_played(opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "stoppa", {"hands": 1}, django_capture_on_commit_callbacks)
    turn, body = waiting(w)
    assert w.organiser.post(f"/api/tournaments/{w.tournament_id}/cancel/").status_code == 200
    count = actions_stored(w)
    answer = act(w, turn, body["view"]["legal_actions"][0])
    assert answer.status_code == 409 and "cancelled" in fields(answer)["match"][0]
    assert actions_stored(w) == count


def test_people_on_real_tables_do_not_play_through_the_api(opened, sent, django_capture_on_commit_callbacks):
    # Not an online tournament: ada plays at a real table and reports the result.
    w = make_world()
    del w.players["bob-bot"], w.owners["bob-bot"]
    w.players["rnd-2"] = builtin_bot_get_or_create(bot="random", name="rnd-2")
    w.tournament_id = create_online_tournament(w, "stoppa", {"hands": 1}, online_=False, slug="club-night")
    enter_all(w, w.tournament_id)
    with django_capture_on_commit_callbacks(execute=True):
        assert w.organiser.post(f"/api/tournaments/{w.tournament_id}/start/").status_code == 202
    assert opened == [] and sent == []  # neither opened nor sent to the bot workers
    w.match = Match.objects.get(round__tournament_id=w.tournament_id)
    w.seats = {seat.position: seat.player.name for seat in w.match.seats.select_related("player")}
    ada = w.position("ada")
    assert w.owners["ada"].get(f"{w.url}/seats/{ada}/").status_code == 409
    answer = act(w, ada, {"type": "pass"})
    assert answer.status_code == 409 and "not played online" in fields(answer)["match"][0]
    assert w.anonymous.get(f"{w.url}/table/").status_code == 409
    for client, url in ((w.anonymous, f"{w.url}/events/"), (w.owners["ada"], f"{w.url}/seats/{ada}/events/")):
        answer = client.get(url)  # no stream (docs/online.md, "Event streams")
        assert answer.status_code == 409 and "not played online" in fields(answer)["match"][0]
    assert w.organiser.post(f"{w.url}/seats/{ada}/forfeit/", {"reason": "gone"}, format="json").status_code == 409
    assert Match.objects.get(pk=w.match.pk).status == Match.Status.PENDING and actions_stored(w) == 0
    # ... and reports it as before.
    reported = w.owners["ada"].post(f"{w.url}/submissions/", {"scores": [1, 0, -1], "places": [1, 2, 3]},
                                    format="json")
    assert reported.status_code == 201, reported.json()


# --- 4: idempotency ----------------------------------------------------------------------------

def test_the_same_idempotency_key_applies_an_action_once(opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "stoppa", {"hands": 1}, django_capture_on_commit_callbacks)
    turn, body = waiting(w)
    legal = body["view"]["legal_actions"]
    assert len(legal) > 1
    first = act(w, turn, legal[0], key="move-1")
    assert first.status_code == 200 and first.json()["repeated"] is False
    count = actions_stored(w)
    view_after = seat_view(w, turn)

    again = act(w, turn, legal[0], key="move-1")  # the answer was lost: the client retries
    assert again.status_code == 200
    assert again.json() == {**first.json(), "repeated": True}
    assert actions_stored(w) == count and seat_view(w, turn) == view_after
    assert MatchAction.objects.filter(match=w.match, idempotency_key="move-1").count() == 1

    other = act(w, turn, legal[1], key="move-1")  # another action under a used key
    assert other.status_code == 409 and "Idempotency-Key" in fields(other)
    assert actions_stored(w) == count and seat_view(w, turn) == view_after

    for bad in ("k" * 65, "tab\there"):
        answer = act(w, turn, legal[0], key=bad)
        assert answer.status_code == 400 and "Idempotency-Key" in fields(answer), bad
    assert actions_stored(w) == count

    # Keys are per seat: the other online seat's "move-1" is its own, new action.
    turn2, body2 = play_on(w, random.Random(6), until=lambda now, body: now != turn)
    assert turn2 is not None and turn2 != turn
    count = actions_stored(w)
    answer = act(w, turn2, body2["view"]["legal_actions"][0], key="move-1")
    assert answer.status_code == 200 and answer.json() == {
        "seq": count, "action": body2["view"]["legal_actions"][0], "repeated": False}
    assert MatchAction.objects.filter(match=w.match, idempotency_key="move-1").count() == 2


def test_a_retry_that_comes_when_the_seat_is_to_move_again_is_not_applied_twice(opened, django_capture_on_commit_callbacks):
    # Sette e mezzo: after a hit that does not go bust the seat is asked again, and a hit is
    # legal again: only the key tells a retry from a second hit (the insert's unique check).
    w = start(make_world(), "sette_e_mezzo", {"hands": 1}, django_capture_on_commit_callbacks)
    rng = random.Random(3)
    hit = {"type": "hit"}
    for n in range(60):
        turn, body = waiting(w)
        assert turn is not None, "the match ended before a seat hit and was asked again"
        legal = body["view"]["legal_actions"]
        first = act(w, turn, hit if hit in legal else rng.choice(legal), key=f"k{n}")
        assert first.status_code == 200, first.json()
        again_turn, again_body = waiting(w)
        if first.json()["action"] == hit and again_turn == turn and hit in again_body["view"]["legal_actions"]:
            break
    else:
        raise AssertionError("no seat was asked again after a hit")
    count, view_after = actions_stored(w), seat_view(w, turn)
    retry = act(w, turn, hit, key=f"k{n}")
    assert retry.status_code == 200 and retry.json() == {**first.json(), "repeated": True}
    assert actions_stored(w) == count and seat_view(w, turn) == view_after
    other = act(w, turn, {"type": "stand"}, key=f"k{n}")  # another action under that key
    assert other.status_code == 409 and "Idempotency-Key" in fields(other)
    assert actions_stored(w) == count
    second = act(w, turn, hit, key="a-new-key")  # a second hit, under its own key, is a move
    assert second.status_code == 200 and second.json() == {"seq": count, "action": hit, "repeated": False}
    assert actions_stored(w) > count


def test_the_retry_of_the_last_move_answers_as_the_first_time(opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "sette_e_mezzo", {"hands": 1}, django_capture_on_commit_callbacks)
    rng, n, last = random.Random(1), 0, None
    while (waited := waiting(w))[0] is not None:
        turn, body = waited
        action = rng.choice(body["view"]["legal_actions"])
        answer = act(w, turn, action, key=f"k{n}")
        assert answer.status_code == 200, answer.json()
        last, n = (turn, action, f"k{n}", answer.json()), n + 1
    turn, action, key, answer = last
    assert Match.objects.get(pk=w.match.pk).status == Match.Status.FINISHED
    count = actions_stored(w)
    retry = act(w, turn, action, key=key)  # the answer to the move that ended the match was lost
    assert retry.status_code == 200, retry.json()
    assert retry.json() == {**answer, "repeated": True}
    assert actions_stored(w) == count
    # Another action under that key is refused, as is a new move: the match is over.
    other = act(w, turn, {"type": "stand"} if action != {"type": "stand"} else {"type": "hit"}, key=key)
    assert other.status_code == 409 and "Idempotency-Key" in fields(other)
    fresh = act(w, turn, action, key="never-used")
    assert fresh.status_code == 409 and fields(fresh) == {"match": ["the match is over"]}
    assert actions_stored(w) == count


# --- 5: forfeits -------------------------------------------------------------------------------

def test_an_organiser_forfeits_a_seat_and_the_fallback_bot_plays_it_to_last_place(
        opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "stoppa", {"hands": 1}, django_capture_on_commit_callbacks)
    ada = w.position("ada")
    rng = random.Random(5)
    # Play on until ada is to act (after at least one move of hers), then she is gone.
    turn, _ = play_on(w, rng, until=lambda turn, body: turn == ada and body["actions"] > 2)
    assert turn == ada
    url = f"{w.url}/seats/{ada}/forfeit/"
    audit = AuditEvent.objects.filter(action="seat_forfeited").count

    for who, client in (("the seat's owner", w.owners["ada"]), ("another seat's owner", w.owners["bob-bot"]),
                        ("a stranger", w.stranger)):
        answer = client.post(url, {"reason": "left"}, format="json")
        assert answer.status_code == 403, who
        assert error(answer)["message"]
    assert w.anonymous.post(url, {"reason": "left"}, format="json").status_code == 401
    assert w.organiser.post(url, {}, format="json").status_code == 400
    assert not Seat.objects.get(match=w.match, position=ada).forfeit_reason and audit() == 0
    assert seat_view(w, ada)["waiting_for"] == ada

    count = actions_stored(w)
    answer = w.organiser.post(url, {"reason": "left the table"}, format="json")
    assert answer.status_code == 200, answer.json()
    assert audit() == 1
    # It was ada's turn: the fallback bot moved for her at once.
    assert actions_stored(w) > count
    assert MatchAction.objects.get(match=w.match, seq=count).by == online.BY_FALLBACK
    again = w.organiser.post(url, {"reason": "twice"}, format="json")
    assert again.status_code == 409 and "already forfeited" in fields(again)["position"][0]

    # Her owner still reads her seat, and may no longer play it.
    body = seat_view(w, ada)
    assert body["forfeited"] is True and body["waiting_for"] != ada
    refused = act(w, ada, {"type": "pass"})
    assert refused.status_code == 409 and "forfeited" in fields(refused)["position"][0]

    # bob plays on alone: the match never waits for ada's seat again.
    turn, _ = play_on(w, rng, skip=(ada,))
    assert turn is None
    match = Match.objects.get(pk=w.match.pk)
    assert match.status == Match.Status.FINISHED
    hers = list(MatchAction.objects.filter(match=match, seat=ada, seq__gte=count).values_list("by", flat=True))
    assert hers and set(hers) == {online.BY_FALLBACK}
    seat = Seat.objects.get(match=match, position=ada)
    assert (seat.forfeit_reason, seat.forfeit_detail, seat.place) == ("forfeited", "left the table", 3)
    replay = engine.load(match.record)
    result = Result.objects.get(match=match)
    assert result.scores == list(replay.scores())
    assert result.places[ada] == 3 and sorted(result.places)[-1] == 3
    assert max(p for pos, p in enumerate(result.places) if pos != ada) < 3
    # The reason is shown, its detail to the seat's owner only.
    shown = {s["position"]: s for s in w.anonymous.get(f"{w.url}/").json()["seats"]}
    assert shown[ada]["forfeit_reason"] == "forfeited" and shown[ada]["forfeit_detail"] is None
    mine = {s["position"]: s for s in w.owners["ada"].get(f"{w.url}/").json()["seats"]}
    assert mine[ada]["forfeit_detail"] == "left the table"


def test_a_seat_forfeited_before_its_match_opens_is_played_by_the_fallback_from_the_start(
        opened, django_capture_on_commit_callbacks):
    w = start(make_world(), "sette_e_mezzo", {"hands": 1}, django_capture_on_commit_callbacks, run_callbacks=False)
    ada = w.position("ada")
    assert w.organiser.post(f"{w.url}/seats/{ada}/forfeit/", {"reason": "no show"},
                            format="json").status_code == 200
    assert actions_stored(w) == 0  # nothing moves before the opening
    for callback in w.callbacks:
        callback()
    play_on(w, random.Random(2), skip=(ada,))
    match = Match.objects.get(pk=w.match.pk)
    assert match.status == Match.Status.FINISHED
    assert set(MatchAction.objects.filter(match=match, seat=ada).values_list("by", flat=True)) == {online.BY_FALLBACK}
    assert Seat.objects.get(match=match, position=ada).place == 3


SEATED_ALIKE = (7, 15, 16)  # a round robin of three entrants seats them alike from each of these seeds


def test_the_opening_plays_the_built_in_bots_turns_up_to_the_first_online_turn(
        opened, django_capture_on_commit_callbacks):
    # The seat after the dealer acts first: with each dealer in turn, the built-in bot is first
    # once, and moves as the match opens; otherwise nothing moves before the first online turn.
    # (Three seeds that seat the three alike: one seed for all three would deal their cards
    # three times to the same people, which the service refuses.)
    w = make_world()
    firsts = []
    for dealer in range(3):
        w.tournament_id = create_online_tournament(w, "stoppa", {"hands": 1, "dealer": dealer}, slug=f"d{dealer}",
                                                   seed=SEATED_ALIKE[dealer])
        enter_all(w, w.tournament_id)
        with django_capture_on_commit_callbacks(execute=True):
            assert w.organiser.post(f"/api/tournaments/{w.tournament_id}/start/").status_code == 202
        w.match = Match.objects.get(round__tournament_id=w.tournament_id)
        w.seats = {seat.position: seat.player.name for seat in w.match.seats.select_related("player")}
        first = w.seats[(dealer + 1) % 3]
        firsts.append(first)
        stored = list(MatchAction.objects.filter(match=w.match).order_by("seq").values_list("seat", "by"))
        turn, body = waiting(w)
        assert w.seats[turn] != "rnd" and body["actions"] == len(stored)
        if first == "rnd":
            assert stored and stored[0] == (w.position("rnd"), online.BY_BOT)
            assert {by for _, by in stored} == {online.BY_BOT}
        else:
            assert stored == []
    assert firsts.count("rnd") == 1, firsts
    assert len(opened) == 3


# --- the next round ------------------------------------------------------------------------------

def test_the_move_that_closes_a_round_opens_the_next_rounds_online_match(opened, sent,
                                                                          django_capture_on_commit_callbacks):
    w = make_world()
    w.tournament_id = create_online_tournament(w, "sette_e_mezzo", {"hands": 1}, format_config={"rounds": 2})
    enter_all(w, w.tournament_id)
    with django_capture_on_commit_callbacks(execute=True):
        assert w.organiser.post(f"/api/tournaments/{w.tournament_id}/start/").status_code == 202
    first = Match.objects.get(round__tournament_id=w.tournament_id)  # one round at a time, with people
    assert opened == [[first.pk]]
    for number in (1, 2):
        w.match = Match.objects.get(round__tournament_id=w.tournament_id, round__number=number)
        w.seats = {seat.position: seat.player.name for seat in w.match.seats.select_related("player")}
        assert w.match.status == Match.Status.RUNNING
        with django_capture_on_commit_callbacks(execute=True):
            play_on(w, random.Random(number))
        assert Match.objects.get(pk=w.match.pk).status == Match.Status.FINISHED
    second = Match.objects.get(round__tournament_id=w.tournament_id, round__number=2)
    assert opened == [[first.pk], [second.pk]] and sent == []
    assert Tournament.objects.get(pk=w.tournament_id).status == Tournament.Status.FINISHED


# --- 6: who enters an online tournament, and who plays its tables -------------------------------

def test_remote_bots_play_online_only_and_external_bots_play_in_either(settings):
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["bots.example.org"]
    w = make_world()
    bob = session(w.users["bob"])
    # A remote bot is registered without a bot_config: nothing of its author's runs here.
    with_config = bob.post("/api/players/", {"name": "rb", "kind": "bot", "bot_kind": "remote",
                                             "bot_config": {"url": "https://bots.example.org/x"}}, format="json")
    assert with_config.status_code == 400 and "bot_config" in fields(with_config)
    plain_remote = bob.post("/api/players/", {"name": "rb", "kind": "bot", "bot_kind": "remote"}, format="json")
    assert plain_remote.status_code == 201 and plain_remote.json()["bot_kind"] == "remote"

    http = player_create(name="bob-http", kind="bot", bot_kind="http", owner=w.users["bob"],
                         bot_config={"url": "https://bots.example.org/play"})
    root = get_user_model().objects.create_user("root", is_staff=True)  # only staff register programs
    program = player_create(name="root-prog", kind="bot", bot_kind="subprocess", owner=root,
                            bot_config={"command": ["python3", "bot.py"]})
    offline = create_online_tournament(w, "stoppa", {"hands": 1}, online_=False, slug="offline")
    # bob plays his remote bot and his HTTP bot there: the organiser allows him several seats. Its
    # own seed: one deal shared with another tournament would refuse every one of them.
    online_ = create_online_tournament(w, "stoppa", {"hands": 1}, slug="online", several_seats=True, seed=8)

    def enter(tournament_id, player, client=bob):
        return client.post(f"/api/tournaments/{tournament_id}/entries/", {"player": player.pk}, format="json")

    for client in (bob, w.owners["bob-bot"]):  # bob, and his bot's own token
        refused = enter(offline, w.players["bob-bot"], client)
        assert refused.status_code == 400 and "remote bot" in fields(refused)["player"][0]
    assert enter(online_, w.players["bob-bot"], w.owners["bob-bot"]).status_code == 201
    for bot, client in ((http, bob), (program, session(root))):  # a worker asks them between online turns
        assert enter(online_, bot, client).status_code == 201, bot.name
        assert enter(offline, bot, client).status_code == 201, bot.name
    assert enter(online_, w.players["ada"], w.owners["ada"]).status_code == 201  # people and built-in bots
    assert enter(online_, w.players["rnd"], w.organiser).status_code == 201
    assert sorted(Tournament.objects.get(pk=online_).entries.values_list("player__name", flat=True)) == [
        "ada", "bob-bot", "bob-http", "rnd", "root-prog"]


def test_online_duplicate_play_is_refused_at_creation():
    w = make_world()
    body = {"name": "Dup", "game": "stoppa", "table_size": 4, "format": "swiss", "format_config": {"rounds": 1},
            "options": {"hands": 1}, "duplicate": True}
    refused = w.organiser.post("/api/tournaments/", {**body, "slug": "dup-online", "online": True}, format="json")
    assert refused.status_code == 400 and "duplicate" in fields(refused)
    assert not Tournament.objects.filter(slug="dup-online").exists()
    assert w.organiser.post("/api/tournaments/", {**body, "slug": "dup", "online": False},
                            format="json").status_code == 201


def test_online_tables_are_opened_and_bot_tables_played_by_the_workers_never_the_other_way(
        opened, sent, django_capture_on_commit_callbacks):
    w = make_world()
    bots = [builtin_bot_get_or_create(bot="random", name=f"rnd-{i}") for i in range(5)]
    ada, remote = w.players["ada"], w.players["bob-bot"]
    # 5 built-in bots and a person: 2 tables of 3, at least one without the person.
    # 4 built-in bots, a person and a remote bot: the same.
    fields = {"one person": bots + [ada], "a person and a remote bot": bots[:4] + [ada, remote]}
    for n, (what, entrants) in enumerate(fields.items()):
        t = tournament_create(name=what, slug=f"t{n}", game="stoppa", table_size=3, format="round_robin",
                              options={"hands": 1}, online=True, seed=n)
        for player in entrants:
            entry_add(tournament=t, player=player)
        _, progress = tournament_start(tournament=t)
        matches = list(Match.objects.filter(round__tournament=t).prefetch_related("seats__player"))
        assert {m.round.number for m in matches} == {1}  # with people, one round at a time
        kinds = {}
        for match in matches:
            with_online = any(seat.player.plays_online for seat in match.seats.all())
            kinds[match.pk] = with_online
            assert (match.pk in progress.to_open, match.pk in progress.to_play) == (with_online, not with_online), what
            claim = match_claim(match_id=match.pk, owner="worker-1")
            if with_online:
                assert claim.status == ClaimStatus.PEOPLE
                match.refresh_from_db()
                assert (match.status, match.lease_owner, match.attempts) == (Match.Status.PENDING, "", 0)
            else:
                assert claim.status == ClaimStatus.CLAIMED
        assert sorted(progress.to_open + progress.to_play) == sorted(kinds)
        assert set(kinds.values()) == {True, False}, what  # both kinds of table were made

    # The same through the API: the bot table goes to the workers, the online one is opened.
    w.players = {p.name: p for p in bots[:4] + [w.players["ada"], w.players["rnd"]]}
    tid = create_online_tournament(w, "stoppa", {"hands": 1}, slug="api")
    enter_all(w, tid)
    with django_capture_on_commit_callbacks(execute=True):
        assert w.organiser.post(f"/api/tournaments/{tid}/start/").status_code == 202
    matches = Match.objects.filter(round__tournament_id=tid).prefetch_related("seats__player")
    people = sorted(m.pk for m in matches if any(s.player.plays_online for s in m.seats.all()))
    bots_only = sorted(m.pk for m in matches if m.pk not in people)
    assert len(people) == len(bots_only) == 1
    assert sorted(pk for batch in opened for pk in batch) == people
    assert sorted(pk for batch in sent for pk in batch) == bots_only
    for match in matches:
        match.refresh_from_db()
        assert match.status == (Match.Status.RUNNING if match.pk in people else Match.Status.PENDING)
        table = w.anonymous.get(f"/api/matches/{match.pk}/table/")
        assert table.status_code == (200 if match.pk in people else 409)


def test_the_list_of_ones_seats_shows_ones_own_seats_only(opened, django_capture_on_commit_callbacks):
    """GET /api/seats/: a player's owner sees their players' seats (a token tied to a bot, that
    bot's alone), awaited first; a stranger and the organiser see none; a visitor is refused."""
    w = start(make_world(ada_bot=True), "sette_e_mezzo", {"hands": 1}, django_capture_on_commit_callbacks)
    ada_seat, bot_seat = w.position("ada"), w.position("ada-bot")
    turn = w.live().waits_for()
    _, read_only = token_create(user=w.users["ada"], name="dashboard", scopes=["read"])

    def listed(client, query=""):
        answer = client.get(f"/api/seats/{query}")
        assert answer.status_code == 200, answer.json()
        return [(row["match"], row["position"], row["your_turn"]) for row in answer.json()["results"]]

    mine = listed(bearer(read_only))
    assert sorted(mine) == sorted((w.match.pk, pos, pos == turn) for pos in (ada_seat, bot_seat))
    assert mine[0][2] is True  # the awaited seat first
    assert listed(bearer(read_only), "?your_turn=true") == [(w.match.pk, turn, True)]
    assert listed(w.owners["ada-bot"]) == [(w.match.pk, bot_seat, bot_seat == turn)]
    assert listed(w.stranger) == [] and listed(w.organiser) == []
    assert w.anonymous.get("/api/seats/").status_code == 401
    refused = bearer(read_only).get("/api/seats/?your_turn=maybe")
    assert refused.status_code == 400 and "your_turn" in fields(refused)


def test_a_bots_owner_cannot_read_its_seat_of_a_match_the_workers_play(sent):
    """The seat endpoints are for online matches, and for the seats played through the API: the
    author of an HTTP bot, who acts for it, is refused its seat of a bot match (here one waiting
    for a worker: 403, the service plays it), never shown the cards; the table is 409 (not
    played online), and so is an action."""
    users = get_user_model()
    bob = users.objects.create_user("bob")
    _, secret = token_create(user=bob, name="all", scopes=["read", "play"])
    http = player_create(name="bob-http", kind="bot", bot_kind="http", owner=bob,
                         bot_config={"url": "https://bots.example.org/play"})
    field = [http] + [builtin_bot_get_or_create(bot="random", name=f"rnd-{i}") for i in range(2)]
    tournament = tournament_create(name="bots", slug="bots", game="stoppa", table_size=3, format="round_robin",
                                   format_config={}, options={"hands": 1})
    for player in field:
        entry_add(tournament=tournament, player=player)
    _, progress = tournament_start(tournament=tournament)
    assert progress.to_play and not progress.to_open
    match = Match.objects.get(pk=progress.to_play[0])
    position = match.seats.get(player=http).position
    bob_client = bearer(secret)
    for url, status in ((f"/api/matches/{match.pk}/seats/{position}/", 403),
                        (f"/api/matches/{match.pk}/seats/{position}/events/?follow=false", 403),
                        (f"/api/matches/{match.pk}/table/", 409)):
        answer = bob_client.get(url)
        assert answer.status_code == status and refused_without_data(answer), url
    acted = bob_client.post(f"/api/matches/{match.pk}/seats/{position}/actions/", {"action": {"type": "pass"}},
                            format="json")
    assert acted.status_code == 409 and not MatchAction.objects.filter(match=match).exists()


def test_a_move_for_a_match_id_no_row_can_have_is_a_404_naming_it():
    w = make_world()
    for pk in ("²", "9" * 30):  # isdigit() holds for "²"; 30 digits overflow a row's id
        answer = w.owners["ada"].post(f"/api/matches/{pk}/seats/0/actions/", {"action": {"type": "stand"}},
                                      format="json")
        assert answer.status_code == 404 and pk in answer.json()["error"]["message"], pk


def test_a_moves_request_plays_no_bot_it_sends_the_services_turns_to_the_workers(
        opened, django_capture_on_commit_callbacks, monkeypatch):
    w = start(make_world(), "sette_e_mezzo", GAMES["sette_e_mezzo"], django_capture_on_commit_callbacks)
    rnd = w.position("rnd")
    rng = random.Random(3)

    def next_is_the_bot(turn, body):
        after = w.live().state.clone()
        after.apply(body["view"]["legal_actions"][0])
        return after.current_player() == rnd

    turn, body = play_on(w, rng, until=next_is_the_bot)
    assert turn is not None, "this seed's match gives the built-in bot a turn after an online seat"
    sent = []
    monkeypatch.setattr(dispatch, "move_online", lambda ids: sent.extend(ids))  # to the workers: kept here
    answer = act(w, turn, body["view"]["legal_actions"][0])
    assert answer.status_code == 200
    assert sent == [w.match.pk]
    # Nothing but the move itself was played in the request; the match waits for the workers,
    # no online seat awaited, its deadline the watchdog's.
    assert MatchAction.objects.filter(match=w.match).order_by("-seq").values_list("seat", "by")[0] == (
        turn, online.BY_SEAT)
    live = w.live()
    assert live.state.current_player() == rnd and live.waits_for() is None
    w.match.refresh_from_db()
    assert w.match.awaiting_seat is None and w.match.deadline_at is not None


def test_nobody_reads_a_seat_the_service_plays_its_owner_included(settings, django_capture_on_commit_callbacks):
    """A seat the service plays is nobody's to read while the match is played: ada plays her own
    seat at a table where her built-in bot sits, and bob's HTTP bot; every door to a seat's cards
    (the seat's view, its stream, the list of one's seats, the turn stream, the play page) shows
    ada her own seat and refuses her bot's (403, nothing of it), as it refuses bob his HTTP
    bot's, whose program the workers ask. Once forfeited, ada's seat still shows her the cards it
    showed her (she holds no other). After the match the replay's rule alone applies."""
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["bots.example.org"]
    User = get_user_model()
    ada_user, bob_user, olga = (User.objects.create_user(name) for name in ("ada", "bob", "olga"))
    ada = player_create(name="ada", kind="person", owner=ada_user)
    adas_bot = player_create(name="ada-rnd", kind="bot", bot_kind="builtin", bot_config={"bot": "random"},
                             owner=ada_user)
    bobs_bot = player_create(name="bob-http", kind="bot", bot_kind="http", owner=bob_user,
                             bot_config={"url": "https://bots.example.org/play"})
    tournament = tournament_create(name="night", slug="night", game="sette_e_mezzo", table_size=3,
                                   format="round_robin", format_config={}, options={"hands": 1}, online=True,
                                   seed=7, owner=olga)
    for player in (ada, adas_bot, bobs_bot):
        entry_add(tournament=tournament, player=player)
    _, progress = tournament_start(tournament=tournament)
    online.online_matches_open(match_ids=list(progress.to_open))  # the workers never ask bob's bot here
    match = Match.objects.get(round__tournament=tournament)
    at = {seat.player_id: seat.position for seat in match.seats.all()}
    mine, bots_seat, bobs_seat = at[ada.pk], at[adas_bot.pk], at[bobs_bot.pk]
    _, secret = token_create(user=ada_user, name="all", scopes=["read", "organise", "play"])
    _, bob_secret = token_create(user=bob_user, name="all", scopes=["read", "organise", "play"])
    url = f"/api/matches/{match.pk}"

    def refused(client, path: str) -> None:
        answer = client.get(f"{url}/{path}")
        assert answer.status_code == 403, (path, answer.status_code)
        assert "played by the service" in refused_without_data(answer)["message"], path

    for client in (bearer(secret), session(ada_user)):
        assert client.get(f"{url}/seats/{mine}/").json()["view"] == plain(w_view(match, mine))
        assert client.get(f"{url}/seats/{mine}/events/?follow=false").status_code == 200
        for path in (f"seats/{bots_seat}/", f"seats/{bots_seat}/events/?follow=false", f"seats/{bobs_seat}/",
                     f"seats/{bobs_seat}/events/?follow=false"):
            refused(client, path)
        listed = client.get("/api/seats/").json()["results"]
        assert [(row["match"], row["position"]) for row in listed] == [(match.pk, mine)]
        turns = parse_events(b"".join(client.get("/api/seats/events/?follow=false").streaming_content))
        assert {e["data"]["position"] for e in turns} <= {mine}
    bob = bearer(bob_secret)
    for path in (f"seats/{bobs_seat}/", f"seats/{bobs_seat}/events/?follow=false"):
        refused(bob, path)
    assert bob.get("/api/seats/").json()["results"] == []
    # The play page: her seat, not her bot's; the match page offers her only her own seat.
    browser = Client()
    browser.force_login(ada_user)
    assert browser.get(f"/matches/{match.pk}/seats/{mine}/play/").status_code == 200
    page = browser.get(f"/matches/{match.pk}/seats/{bots_seat}/play/")
    assert page.status_code == 403 and "data-card" not in page.content.decode()
    match_page = browser.get(f"/matches/{match.pk}/").content.decode()
    assert f"/seats/{mine}/play/" in match_page and f"/seats/{bots_seat}/play/" not in match_page
    # Forfeited, her seat shows what it showed her: the fallback bot plays it, she reads it.
    online.seat_forfeit(match_id=match.pk, position=mine, reason="gone", actor=olga)
    assert bearer(secret).get(f"{url}/seats/{mine}/").json()["forfeited"] is True


def w_view(match: Match, position: int) -> dict:
    return online_reads.table_load(Match.objects.select_related("round__tournament").get(pk=match.pk)).state.view(position)
