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
    assert olga.post(f"/api/tournaments/{tournament}/start/").status_code == 200

    match = Match.objects.get(round__tournament_id=tournament)
    deadline = time.monotonic() + 60
    while Match.objects.get(pk=match.pk).status == Match.Status.PENDING:  # opened by the worker
        assert time.monotonic() < deadline, "the online match was never opened"
        time.sleep(0.05)
    seats = {seat.position: seat.player_id for seat in match.seats.all()}
    rng = random.Random(game)
    moves = 0
    while True:
        mine = {pk: c.get("/api/seats/?your_turn=true").json()["results"] for pk, c in owners.items()}
        awaited = [(pk, seat) for pk, results in mine.items() for seat in results]
        if not awaited:
            break
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
