"""A whole online match of every game at one table of two people and two remote bots (and a
built-in bot where the game seats five), played through the HTTP API alone, its opening sent
to the workers once the start commits: in scripts/test-services a real Celery worker on Redis
opens it in PostgreSQL; on the embedded defaults the eager task does. The recorded result is
the engine's replay of the recorded actions."""

from __future__ import annotations

import random
import time

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

import engine
from tournaments.models import Match, MatchAction, Tournament
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tokens import token_create

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

GAMES = {  # small matches; five seats where the game allows
    "stoppa": ({"hands": 1}, 5),
    "sette_e_mezzo": ({"hands": 1}, 5),
    "piazza": ({"table_max": 2}, 5),
    "spacca_il_mazzo": ({"turn_limit": 30}, 4),
}


def client(token: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return c


@pytest.mark.parametrize("game", sorted(GAMES))
def test_two_people_and_two_remote_bots_play_a_whole_match_through_the_api(game):
    options, size = GAMES[game]
    users = {name: get_user_model().objects.create_user(f"{name}-{game}") for name in ("olga", "ada", "ben", "cy", "di")}
    players = [
        player_create(name=f"ada-{game}", kind="person", owner=users["ada"]),
        player_create(name=f"ben-{game}", kind="person", owner=users["ben"]),
        player_create(name=f"cy-bot-{game}", kind="bot", bot_kind="remote", owner=users["cy"]),
        player_create(name=f"di-bot-{game}", kind="bot", bot_kind="remote", owner=users["di"]),
    ]
    if size == 5:
        players.append(builtin_bot_get_or_create(bot="random", name="random"))
    owners = {}
    for player in players:
        if player.owner is not None:
            _, secret = token_create(user=player.owner, name="play", scopes=["read", "play"],
                                     bot=player if player.kind == "bot" else None)
            owners[player.pk] = client(secret)
    _, secret = token_create(user=users["olga"], name="desk", scopes=["read", "organise"])
    olga = client(secret)
    made = olga.post("/api/tournaments/", {
        "name": game, "slug": f"online-{game}".replace("_", "-"), "game": game, "table_size": size,
        "format": "round_robin", "format_config": {}, "options": options, "online": True, "open_entry": True,
        "move_seconds": 600,
    }, format="json")
    assert made.status_code == 201, made.json()
    tournament = made.json()["id"]
    for player in players:
        entering = owners.get(player.pk, olga)
        assert entering.post(f"/api/tournaments/{tournament}/entries/", {"player": player.pk},
                             format="json").status_code == 201
    assert olga.post(f"/api/tournaments/{tournament}/start/").status_code == 202

    match = Match.objects.get(round__tournament_id=tournament)
    deadline = time.monotonic() + 60
    while Match.objects.get(pk=match.pk).status == Match.Status.PENDING:  # opened by the worker
        assert time.monotonic() < deadline, "the online match was never opened"
        time.sleep(0.05)
    seats = {seat.position: seat.player_id for seat in match.seats.all()}
    rng = random.Random(game)
    moves = 0
    idle = time.monotonic() + 60
    while True:
        mine = {pk: c.get("/api/seats/?your_turn=true").json()["results"] for pk, c in owners.items()}
        awaited = [(pk, seat) for pk, results in mine.items() for seat in results]
        if not awaited:
            # Nobody's turn: the built-in bot's, which a worker plays, or the end.
            if Match.objects.get(pk=match.pk).status == Match.Status.FINISHED:
                break
            assert time.monotonic() < idle, "the service's turn was never played"
            time.sleep(0.05)
            continue
        idle = time.monotonic() + 60
        assert len(awaited) == 1  # one seat at a time is awaited, and only its owner is told
        pk, seat = awaited[0]
        assert seats[seat["position"]] == pk
        view = owners[pk].get(f"/api/matches/{match.pk}/seats/{seat['position']}/").json()
        answer = owners[pk].post(f"/api/matches/{match.pk}/seats/{seat['position']}/actions/",
                                 {"action": rng.choice(view["view"]["legal_actions"])}, format="json",
                                 HTTP_IDEMPOTENCY_KEY=f"{match.pk}-{view['actions']}")
        assert answer.status_code == 200, answer.json()
        moves += 1
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and moves > 0
    assert Tournament.objects.get(pk=tournament).status == Tournament.Status.FINISHED
    replay = engine.load(match.record)
    assert match.result.scores == list(replay.scores())
    assert match.result.places == list(replay.places())
    assert len(match.record["actions"]) == MatchAction.objects.filter(match=match).count()
    assert MatchAction.objects.filter(match=match, by="seat").count() == moves
    assert not match.seats.exclude(forfeit_reason="").exists()


@pytest.mark.parametrize("game", ["sette_e_mezzo", "stoppa"])
def test_an_http_bot_at_an_online_table_is_asked_by_the_workers_between_online_turns(game, settings):
    """A person and a remote bot through the API, an HTTP bot (a server in this process, which
    the worker calls: scripts/test-services lets it reach loopback) and a built-in bot: the
    HTTP bot's turns are played by the workers whenever a move reaches them."""
    from tests.bots.test_http import random_player, serve

    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]  # the eager tasks of the embedded defaults
    server, url, seen = serve(random_player())
    try:
        users = {name: get_user_model().objects.create_user(f"{name}-x-{game}") for name in ("olga", "ada", "cy", "hal")}
        players = [
            player_create(name=f"ada-x-{game}", kind="person", owner=users["ada"]),
            player_create(name=f"cy-x-{game}", kind="bot", bot_kind="remote", owner=users["cy"]),
            player_create(name=f"hal-x-{game}", kind="bot", bot_kind="http", owner=users["hal"],
                          bot_config={"url": url, "limits": {"startup": 10, "decision": 5, "bank": 5}}),
            builtin_bot_get_or_create(bot="random", name="random"),
        ]
        owners = {}  # the clients of the players played through the API
        for player in players[:2]:
            _, secret = token_create(user=player.owner, name="play", scopes=["read", "play"],
                                     bot=player if player.kind == "bot" else None)
            owners[player.pk] = client(secret)
        _, secret = token_create(user=users["hal"], name="entry", scopes=["read", "play"])
        entering = {**owners, players[2].pk: client(secret)}
        _, secret = token_create(user=users["olga"], name="desk", scopes=["read", "organise"])
        olga = client(secret)
        made = olga.post("/api/tournaments/", {
            "name": game, "slug": f"x-{game}".replace("_", "-"), "game": game, "table_size": 4,
            "format": "round_robin", "format_config": {}, "options": {"hands": 1}, "online": True,
            "open_entry": True, "move_seconds": 600,
        }, format="json")
        assert made.status_code == 201, made.json()
        tournament = made.json()["id"]
        for player in players:
            answer = entering.get(player.pk, olga).post(f"/api/tournaments/{tournament}/entries/",
                                                        {"player": player.pk}, format="json")
            assert answer.status_code == 201, answer.json()
        assert olga.post(f"/api/tournaments/{tournament}/start/").status_code == 202
        match = Match.objects.get(round__tournament_id=tournament)
        rng = random.Random(game)
        deadline = time.monotonic() + 120
        while Match.objects.get(pk=match.pk).status != Match.Status.FINISHED:
            assert time.monotonic() < deadline, "the match never ended"
            awaited = [(pk, seat) for pk, c in owners.items() for seat in c.get("/api/seats/?your_turn=true").json()["results"]]
            if not awaited:  # the opening, or the HTTP bot's turn: a worker is at it
                time.sleep(0.05)
                continue
            pk, seat = awaited[0]
            view = owners[pk].get(f"/api/matches/{match.pk}/seats/{seat['position']}/").json()
            if view["waiting_for"] != seat["position"]:
                continue
            answer = owners[pk].post(f"/api/matches/{match.pk}/seats/{seat['position']}/actions/",
                                     {"action": rng.choice(view["view"]["legal_actions"])}, format="json",
                                     HTTP_IDEMPOTENCY_KEY=f"{match.pk}-{view['actions']}")
            assert answer.status_code == 200, answer.json()
        match.refresh_from_db()
        replay = engine.load(match.record)
        assert match.result.scores == list(replay.scores())
        assert not match.seats.exclude(forfeit_reason="").exists()
        hal = match.seats.get(player=players[2]).position
        asked = MatchAction.objects.filter(match=match, seat=hal, by="bot").count()
        deadline = time.monotonic() + 10
        while [m["type"] for m in seen][-1:] != ["finish"]:  # told after the result, by a worker
            assert time.monotonic() < deadline, [m["type"] for m in seen]
            time.sleep(0.05)
        assert [m["type"] for m in seen] == ["start"] + ["act"] * asked + ["finish"]
    finally:
        server.shutdown()
        server.server_close()
