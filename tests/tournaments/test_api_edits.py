"""Edits where users expect them (docs/api.md, "Changing and deleting"): a tournament changes
(PATCH) and is deleted (DELETE) before it starts, a ladder is renamed; each checked as at
creation, and refused to those who may not."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tournaments.models import AuditEvent, Tournament
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tokens import token_create

from .helpers import error, fields

pytestmark = [pytest.mark.django_db]


def signed_in(name: str, **extra) -> APIClient:
    client = APIClient()
    client.force_login(get_user_model().objects.create_user(name, **extra))
    return client


@pytest.fixture
def olga() -> APIClient:
    return signed_in("olga")


def create(client: APIClient, **changes) -> dict:
    body = {"name": "Saturday Stoppa", "slug": "saturday", "game": "stoppa", "table_size": 4, "format": "swiss",
            "format_config": {"rounds": 2}, "options": {"hands": 1}, **changes}
    answer = client.post("/api/tournaments/", body, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def test_an_organiser_changes_a_tournament_before_it_starts(olga):
    made = create(olga)
    answer = olga.patch(f"/api/tournaments/{made['id']}/", {"name": "Saturday Stoppa (5 hands)", "table_size": 3,
                                                            "options": {"hands": 5}}, format="json")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert (body["name"], body["table_size"], body["options"]["hands"]) == ("Saturday Stoppa (5 hands)", 3, 5)
    assert len(body["points_by_place"]) == 3  # the new size's default points
    stored = Tournament.objects.get(pk=made["id"])
    assert (stored.table_size, stored.options["hands"]) == (3, 5)
    assert AuditEvent.objects.get(tournament=stored, action="updated").detail == {
        "fields": ["name", "options", "points_by_place", "table_size"]}


def test_a_change_is_checked_as_at_creation_and_a_refused_one_changes_nothing(olga):
    made = create(olga)
    url = f"/api/tournaments/{made['id']}/"
    for change, field in (({"table_size": 9}, "table_size"), ({"options": {"ante": -1}}, "options"),
                          ({"bank_seconds": 30}, "bank_seconds"), ({"move_seconds": 30}, "online"),
                          ({"format": "no-such-format"}, "format")):
        answer = olga.patch(url, change, format="json")
        assert answer.status_code == 400, change
        assert field in fields(answer), (change, answer.json())
    assert Tournament.objects.get(pk=made["id"]).table_size == 4
    other = create(olga, slug="sunday")
    taken = olga.patch(f"/api/tournaments/{other['id']}/", {"slug": "saturday"}, format="json")
    assert taken.status_code == 400 and "slug" in fields(taken)


def test_a_new_game_or_format_starts_from_its_defaults(olga):
    made = create(olga)
    url = f"/api/tournaments/{made['id']}/"
    answer = olga.patch(url, {"game": "sette_e_mezzo"}, format="json")
    assert answer.status_code == 200, answer.json()
    assert (answer.json()["game"], answer.json()["options"]) == ("sette_e_mezzo", {})  # not Stoppa's hands
    answer = olga.patch(url, {"format": "knockout"}, format="json")
    assert answer.status_code == 200, answer.json()
    assert (answer.json()["format"], answer.json()["format_config"]) == ("knockout", {})  # not the Swiss rounds


def test_entrants_must_still_be_able_to_play_the_changed_tournament(olga):
    made = create(olga, online=True, open_entry=True)
    bob = get_user_model().objects.create_user("bob")
    remote = player_create(name="bob-bot", kind="bot", bot_kind="remote", owner=bob)
    _, secret = token_create(user=bob, name="bot", scopes=["read", "play"], bot=remote)
    bot_client = APIClient()
    bot_client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert bot_client.post(f"/api/tournaments/{made['id']}/entries/", {"player": remote.pk},
                           format="json").status_code == 201
    answer = olga.patch(f"/api/tournaments/{made['id']}/", {"online": False}, format="json")
    assert answer.status_code == 400
    assert "bob-bot is a remote bot" in error(answer)["message"] and "withdraw it first" in error(answer)["message"]
    assert Tournament.objects.get(pk=made["id"]).online is True


def test_choosing_a_seed_says_so_and_a_null_seed_draws_a_secret_one(olga):
    made = create(olga)
    url = f"/api/tournaments/{made['id']}/"
    assert olga.patch(url, {"seed": 42}, format="json").json()["seed_chosen"] is True
    assert Tournament.objects.get(pk=made["id"]).seed == 42
    assert olga.patch(url, {"seed": None}, format="json").json()["seed_chosen"] is False
    assert Tournament.objects.get(pk=made["id"]).seed != 42


def test_who_may_change_and_delete_a_tournament(olga):
    made = create(olga)
    url = f"/api/tournaments/{made['id']}/"
    co = signed_in("cora")
    assert olga.post(f"{url}organisers/", {"username": "cora"}, format="json").status_code in (200, 201)
    stranger = signed_in("eve")
    assert APIClient().patch(url, {"name": "x"}, format="json").status_code == 401
    assert stranger.patch(url, {"name": "x"}, format="json").status_code == 403
    assert co.patch(url, {"name": "Cora's edit"}, format="json").status_code == 200
    # Deleting is the owner's alone.
    assert stranger.delete(url).status_code == 403
    assert co.delete(url).status_code == 403
    assert APIClient().delete(url).status_code == 401
    assert Tournament.objects.filter(pk=made["id"]).exists()
    assert olga.delete(url).status_code == 204
    assert not Tournament.objects.filter(pk=made["id"]).exists()
    assert olga.get(url).status_code == 404


def test_a_started_tournament_is_neither_changed_nor_deleted(olga):
    made = create(olga, table_size=3, format="round_robin", format_config={})
    for i in range(3):
        bot = builtin_bot_get_or_create(bot="random", name=f"rnd-{i}")
        assert olga.post(f"/api/tournaments/{made['id']}/entries/", {"player": bot.pk}, format="json").status_code == 201
    assert olga.post(f"/api/tournaments/{made['id']}/start/").status_code == 202
    url = f"/api/tournaments/{made['id']}/"
    changed = olga.patch(url, {"name": "late"}, format="json")
    assert changed.status_code == 409 and "before it starts" in error(changed)["message"]
    deleted = olga.delete(url)
    assert deleted.status_code == 409 and "cancel it instead" in error(deleted)["message"]
    assert Tournament.objects.get(pk=made["id"]).name == "Saturday Stoppa"


def test_a_ladders_organisers_rename_it_and_nothing_else_of_it_changes(olga):
    made = olga.post("/api/ladders/", {"slug": "club", "name": "Club", "game": "stoppa", "system": "elo"},
                     format="json").json()
    url = f"/api/ladders/{made['id']}/"
    renamed = olga.patch(url, {"name": "Club ladder 2027"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "Club ladder 2027"
    assert olga.patch(url, {"name": "   "}, format="json").status_code == 400
    assert olga.patch(url, {"game": "piazza"}, format="json").status_code == 400  # name is what changes
    assert olga.get(url).json()["game"] == "stoppa"
    assert signed_in("eve").patch(url, {"name": "mine"}, format="json").status_code == 403
    assert APIClient().patch(url, {"name": "mine"}, format="json").status_code == 401
