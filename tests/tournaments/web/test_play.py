"""The play screen (/matches/<id>/seats/<position>/play/): a person's seat at an online match,
as the server draws it before any script runs. Its owner sees their seat, their own cards and
no other seat's; anybody else is refused; a finished match shows its result."""

from __future__ import annotations

import contextlib
import json
import random
import re

import pytest
from django.contrib.auth import get_user_model
from django.shortcuts import resolve_url
from django.test import Client

from tournaments import online_reads
from tournaments.models import Match, MatchAction
from tournaments.services import dispatch
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start
from tournaments.web import tables

from ..helpers import bot_players, make_tournament, play_out
from .pages import body, text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("service_turns")]

CARD = re.compile(r'data-card="([^"]+)"')


def online_table(game: str = "sette_e_mezzo", options: dict | None = None, *, slug: str = "online-night",
                 committed=None, **settings):
    """ada, a person, at an online round robin of three with two built-in bots: one match,
    opened when the start commits (a test inside a transaction passes ``committed``, pytest-
    django's django_capture_on_commit_callbacks, to run the commit's work). Returns (ada's
    user, the match, ada's seat)."""
    user = get_user_model().objects.create_user("ada")
    ada = player_create(name="ada", kind="person", owner=user)
    field = [ada, builtin_bot_get_or_create(bot="random", name="rnd"),
             builtin_bot_get_or_create(bot="heuristic", name="heu")]
    tournament = tournament_create(name="Online night", slug=slug, game=game, table_size=3, format="round_robin",
                                   format_config={}, options=options if options is not None else {"hands": 1},
                                   seed=7, online=True, **settings)
    for player in field:
        entry_add(tournament=tournament, player=player)
    with committed(execute=True) if committed else contextlib.nullcontext():
        _, progress = tournament_start(tournament=tournament)
        dispatch.send_progress(progress)  # as the API's start does: the match is opened once committed
    match = Match.objects.select_related("round__tournament").get(round__tournament=tournament)
    return user, match, match.seats.get(player=ada).position


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def url(match: Match, position: int) -> str:
    return f"/matches/{match.pk}/seats/{position}/play/"


def live_view(match: Match, seat: int | None) -> dict:
    return online_reads.table_load(Match.objects.select_related("round__tournament").get(pk=match.pk)).state.view(seat)


def play_to_the_end(client: Client, match: Match, position: int, rng: random.Random) -> int:
    """Play ada's moves through the page's form (the page without its script) to the end."""
    moves = 0
    while True:
        page = body(client.get(url(match, position)))
        values = re.findall(r'name="action" value="([^"]+)"', page)
        if not values:
            options = re.findall(r'<option value="([^"]+)"', page)
            values = [o for o in options if o.startswith("{")]
        if not values:
            return moves
        key = re.search(r'name="key" value="([^"]+)"', page)[1]
        action = rng.choice(values).replace("&quot;", '"')
        answer = client.post(url(match, position), {"action": action, "key": key})
        assert answer.status_code == 302, answer.content.decode()[:2000]
        moves += 1


def test_the_owner_sees_their_seat_their_own_cards_and_no_other_seats(django_capture_on_commit_callbacks):
    user, match, position = online_table(committed=django_capture_on_commit_callbacks)
    page = body(signed_in(user).get(url(match, position)))
    view = live_view(match, position)
    own = {code for entry in view["table"] for code in entry["cards"]}  # what the engine shows ada
    assert set(CARD.findall(page)) == own
    # Nothing another seat holds face down: every card of the match is in the engine's full
    # log; those the others hold hidden are never on ada's page.
    for other in (p for p in range(3) if p != position):
        theirs = {code for entry in live_view(match, other)["table"] for code in entry["cards"]}
        assert not (theirs - own) & set(CARD.findall(page))
    words = text(page)
    assert "Your turn." in words  # the bots moved up to ada's first turn
    assert "Stake 1" in page and "Stand" not in words  # the stake comes first
    assert f"Seat {position + 1} · ada" in words
    assert f'data-events-url="/api/matches/{match.pk}/seats/{position}/events/"' in page
    assert "csrfmiddlewaretoken" in page


def test_the_page_shows_the_engines_view_of_the_seat_as_the_match_goes_on(django_capture_on_commit_callbacks):
    user, match, position = online_table(committed=django_capture_on_commit_callbacks)
    client = signed_in(user)
    client.post(url(match, position), {"action": json.dumps({"type": "stake", "amount": 3}),
                                       "key": "first"})
    view = live_view(match, position)
    page = body(client.get(url(match, position)))
    shown = set(CARD.findall(page))
    assert shown == {code for entry in view["table"] for code in entry["cards"]}
    assert shown  # once staked, ada sees her first card
    assert text(page).count(tables.seat_label(position)) >= 1


def test_another_person_is_refused_and_sees_no_card(django_capture_on_commit_callbacks):
    _, match, position = online_table(committed=django_capture_on_commit_callbacks)
    eve = get_user_model().objects.create_user("eve")
    answer = signed_in(eve).get(url(match, position))
    assert answer.status_code == 403
    page = answer.content.decode()
    assert "This seat is not yours" in text(page)
    assert not CARD.findall(page) and "data-play" not in page


def test_nobody_plays_a_bots_seat_here(django_capture_on_commit_callbacks):
    user, match, position = online_table(committed=django_capture_on_commit_callbacks)
    bot_seat = next(p for p in range(3) if p != position)
    assert signed_in(user).get(url(match, bot_seat)).status_code == 403


def test_an_anonymous_visitor_is_sent_to_sign_in(settings, django_capture_on_commit_callbacks):
    _, match, position = online_table(committed=django_capture_on_commit_callbacks)
    answer = Client().get(url(match, position))
    assert answer.status_code == 302
    assert answer["Location"] == f"{resolve_url(settings.LOGIN_URL)}?next={url(match, position)}"


def test_a_seat_the_match_does_not_have_is_not_found(django_capture_on_commit_callbacks):
    user, match, _ = online_table(committed=django_capture_on_commit_callbacks)
    assert signed_in(user).get(url(match, 7)).status_code == 404


def test_an_illegal_move_is_refused_with_the_engines_reason(django_capture_on_commit_callbacks):
    user, match, position = online_table(committed=django_capture_on_commit_callbacks)
    answer = signed_in(user).post(url(match, position), {"action": json.dumps({"type": "stake", "amount": 99}),
                                                         "key": "too-much"})
    assert answer.status_code == 422
    assert "stake" in text(answer.content.decode()).lower()
    assert live_view(match, position)["phase"] == "stake"  # nothing was applied


def test_a_move_sent_twice_with_its_key_is_played_once(django_capture_on_commit_callbacks):
    user, match, position = online_table(committed=django_capture_on_commit_callbacks)
    client = signed_in(user)
    key = re.search(r'name="key" value="([^"]+)"', body(client.get(url(match, position))))[1]
    stake = {"action": json.dumps({"type": "stake", "amount": 2}), "key": key}
    assert client.post(url(match, position), stake).status_code == 302
    assert client.post(url(match, position), stake).status_code == 302  # a second click: the same move
    assert MatchAction.objects.filter(match=match, seat=position).count() == 1


def test_a_post_that_is_no_action_is_refused_with_the_services_reason(django_capture_on_commit_callbacks):
    user, match, position = online_table(committed=django_capture_on_commit_callbacks)
    answer = signed_in(user).post(url(match, position), {"action": "stake 2", "key": "oops"})
    assert answer.status_code == 400
    assert 'an action is an object with a "type"' in text(answer.content.decode())


def test_a_finished_match_shows_the_result_and_the_replay(django_capture_on_commit_callbacks):
    user, match, position = online_table(committed=django_capture_on_commit_callbacks)
    client = signed_in(user)
    assert play_to_the_end(client, match, position, random.Random(3)) >= 2
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    page = body(client.get(url(match, position)))
    words = text(page)
    mine = match.seats.get(position=position)
    assert "The match is over: you finished" in words and "Result" in words
    assert f'href="/matches/{match.pk}/replay/?seat={position}"' in page
    assert 'name="action"' not in page  # nothing left to play
    assert str(mine.score) in words


def test_the_changing_part_alone_is_what_the_script_draws_again(django_capture_on_commit_callbacks):
    user, match, position = online_table(committed=django_capture_on_commit_callbacks)
    part = body(signed_in(user).get(f"{url(match, position)}state/"))
    assert part.lstrip().startswith("<div class=\"play-state\"") and "<html" not in part
    assert 'data-actions="' in part and 'name="action"' in part


def test_a_match_not_played_online_has_no_play_screen(db):
    owner = get_user_model().objects.create_user("ada")
    person = player_create(name="ada", kind="person", owner=owner)
    tournament = make_tournament([person, *bot_players(3)], slug="real-table", ladder_slug=None,
                                 format="round_robin", format_config={})
    play_out(tournament)
    match = Match.objects.filter(round__tournament=tournament, seats__player=person).first()
    position = match.seats.get(player=person).position
    answer = signed_in(owner).get(url(match, position))
    assert answer.status_code == 409
    assert "not played online" in text(answer.content.decode())


def test_the_match_page_links_the_seats_owner_to_the_play_screen(django_capture_on_commit_callbacks):
    user, match, position = online_table(committed=django_capture_on_commit_callbacks)
    page = body(signed_in(user).get(f"/matches/{match.pk}/"))
    assert f'href="{url(match, position)}"' in page
    assert url(match, position) not in body(Client().get(f"/matches/{match.pk}/"))
