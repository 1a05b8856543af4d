"""Italian and English: the pages follow the browser's Accept-Language, or the choice made with
the language switch (a cookie), which comes back to a page a GET draws; the games keep their own
names in both; the API answers in English whatever the browser asks."""

from __future__ import annotations

import html
import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import translation

from tournaments import selectors
from tournaments.models import Tournament
from tournaments.services.players import player_create
from tournaments.services.tournaments import entry_add, tournament_create
from tournaments.web import terms
from tournaments.web.templatetags.web import answers_get

from ..helpers import bot_players, make_tournament, play_out
from .pages import body, text

pytestmark = pytest.mark.django_db

ITALIAN = {"HTTP_ACCEPT_LANGUAGE": "it-IT,it;q=0.9,en;q=0.5"}


def test_an_italian_browser_reads_the_pages_in_italian(client, swiss):
    page = body(client.get("/", **ITALIAN))
    assert '<html lang="it">' in page
    words = text(page)
    assert "Classifiche" in words and "Tornei" in words and "I migliori giocatori" in words
    assert "Leaderboards" not in words
    standings = text(body(client.get(f"/tournaments/{swiss.pk}/", **ITALIAN)))
    assert "Classifica" in standings and "Sistema svizzero" in standings and "Punti di gioco" in standings


def test_any_other_browser_reads_them_in_english(client, swiss):
    for accept in ("en-GB,en;q=0.8", "de-DE", ""):
        page = body(client.get("/", HTTP_ACCEPT_LANGUAGE=accept))
        assert '<html lang="en">' in page and "Leaderboards" in text(page)


def test_the_games_keep_their_own_names_in_english(client, swiss):
    assert "Sette e mezzo" in text(body(client.get(f"/tournaments/{swiss.pk}/")))


def test_the_language_switch_remembers_the_choice(client, swiss):
    page = f"/tournaments/{swiss.pk}/"
    client.get(page)  # the switch is a form: its CSRF cookie comes with the page
    answer = client.post("/i18n/setlang/", {"language": "it", "next": page})
    assert answer.status_code == 302 and answer["Location"] == page
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "it"
    assert "Classifica" in text(body(client.get(page)))  # no Accept-Language: the cookie decides
    client.post("/i18n/setlang/", {"language": "en", "next": page})
    assert "Standings" in text(body(client.get(page, **ITALIAN)))  # the choice beats the browser's


def test_the_switch_names_each_language_in_itself_and_marks_the_current_one(client, swiss):
    page = body(client.get("/", **ITALIAN))
    assert 'lang="en" aria-pressed="false">English</button>' in page
    assert 'lang="it" aria-pressed="true">Italiano</button>' in page


def test_the_api_answers_in_english_to_an_italian_browser(client, swiss):
    missing = client.get("/api/players/999999/", **ITALIAN)
    assert missing.json()["error"]["message"].startswith("No Player")
    unknown = client.get("/api/no-such-endpoint/", **ITALIAN)
    assert unknown.json()["error"]["message"].startswith("no such endpoint")
    listed = client.get(f"/api/tournaments/{swiss.pk}/", **ITALIAN)
    assert "Content-Language" not in listed and "Accept-Language" not in listed.get("Vary", "")


def test_italian_numbers_use_a_decimal_comma(client, db):
    tournament = make_tournament(bot_players(6, prefix="virgola"), slug="comma", game="piazza", table_size=2,
                                 format="single_elimination", format_config={}, options={}, ladder_slug=None)
    play_out(tournament)
    halves = [line for line in selectors.tournament_standings(tournament) if isinstance(line.match_points, float)]
    assert halves, "a bye is worth half a point at two seats"
    words = text(body(client.get(f"/tournaments/{tournament.pk}/", **ITALIAN)))
    shown = f"{halves[0].match_points:g}".replace(".", ",")
    assert shown in words


# --- the formats' bracket labels ---------------------------------------------------------------

FORMATS = [
    ("piazza", 2, "single_elimination", 7),
    ("piazza", 2, "double_elimination", 6),
    ("stoppa", 4, "knockout", 11),
]


@pytest.mark.parametrize("game, size, fmt, entrants", FORMATS)
def test_every_bracket_label_of_a_played_tournament_reads_in_italian(game, size, fmt, entrants):
    tournament = make_tournament(bot_players(entrants, prefix=fmt), slug=fmt, game=game, table_size=size,
                                 format=fmt, format_config={}, options={"hands": 1} if game == "stoppa" else {},
                                 ladder_slug=None)
    play_out(tournament)
    labels = {line.reached for line in selectors.tournament_standings(tournament)}
    with translation.override("it"):
        said = {label: terms.reached(label) for label in labels}
    assert all(s.lang is None for s in said.values()), said  # all known: none left in English
    assert said["champion"].text == "campione"


@pytest.mark.parametrize("label, italian", [
    ("lost the final", "sconfitto in finale"),
    ("out in the semi-final", "eliminato in semifinale"),
    ("out in the round of 16", "eliminato al turno dei 16"),
    ("out in losers' round 3", "eliminato al turno 3 del tabellone perdenti"),
    ("out in losers' round 2 (walkover)", "eliminato al turno 2 del tabellone perdenti (a tavolino)"),
    ("still in (winners' bracket, round 3)", "ancora in gara (tabellone vincenti, turno 3)"),
    ("still in (semi-final)", "ancora in gara (semifinale)"),
    ("withdrew before the final", "ritirato prima della fase: finale"),
    ("2nd at the final table", "2º al tavolo finale"),
    ("out at round 1, 3rd at the table", "eliminato al turno 1, 3º al tavolo"),
])
def test_bracket_labels_in_italian(label, italian):
    with translation.override("it"):
        assert terms.reached(label) == terms.Said(italian)
    with translation.override("en"):
        assert terms.reached(label) == terms.Said(label)  # English: the format's own words


def test_a_label_the_pages_do_not_know_stays_in_english_and_says_so():
    with translation.override("it"):
        assert terms.reached("went to the moon") == terms.Said("went to the moon", "en")


def test_the_standings_explain_each_rank_in_the_readers_language(client, swiss):
    english = text(body(client.get(f"/tournaments/{swiss.pk}/")))
    italian = text(body(client.get(f"/tournaments/{swiss.pk}/", **ITALIAN)))
    assert "ahead of" in english and "behind" in english
    assert "davanti a" in italian and "dietro a" in italian
    assert not any(english_word in italian for english_word in ("ahead of", "behind", " vs ", "level on", "tied with"))
    # The API keeps its English, whatever a page asked for before it.
    lines = client.get(f"/api/tournaments/{swiss.pk}/standings/", **ITALIAN).json()["results"]
    assert any("ahead of" in line["explanation"] for line in lines)
    assert not any("davanti" in line["explanation"] for line in lines)


def test_a_brackets_standings_explain_it_in_italian(client, db):
    cup = make_tournament(bot_players(4, prefix="cup"), slug="cup", game="piazza", table_size=2,
                          format="single_elimination", format_config={}, options={}, ladder_slug=None)
    play_out(cup)
    italian = text(body(client.get(f"/tournaments/{cup.pk}/", **ITALIAN)))
    assert "nel tabellone: campione contro sconfitto in finale" in italian


# --- where the switch comes back to --------------------------------------------------------------

def switch_back_to(page: str) -> str:
    """The address the page's language switch comes back to (its ``next``)."""
    form = page[page.index('<form class="language"'):]
    return html.unescape(re.search(r'name="next" value="([^"]*)"', form[:form.index("</form>")])[1])


def too_small() -> tuple[Client, Tournament]:
    """olga's Stoppa round robin with one entrant (starting it is refused), and her client."""
    olga = get_user_model().objects.create_user("olga")
    tournament = tournament_create(name="Small", slug="small", game="stoppa", table_size=4, format="round_robin",
                                   owner=olga)
    entry_add(tournament=tournament, player=player_create(name="solo", kind="person", owner=olga))
    client = Client()
    client.force_login(olga)
    return client, tournament


@pytest.fixture
def small(db):
    return too_small()


def test_after_a_refused_form_sent_to_a_post_only_address_the_switch_comes_back_to_the_forms_page(small):
    """Issue 28: the switch loaded the form's POST-only address, a blank 405."""
    client, tournament = small
    organise = f"/organise/{tournament.pk}/"
    refused = client.post(f"/organise/{tournament.pk}/start/", HTTP_REFERER=f"http://testserver{organise}")
    assert refused.status_code == 400
    back = switch_back_to(refused.content.decode())
    assert back == organise
    answer = client.post("/i18n/setlang/", {"language": "it", "next": back})
    assert answer.status_code == 302 and answer["Location"] == organise
    assert "Avvia il torneo" in text(body(client.get(organise)))  # the page the form was on, in Italian


def test_without_a_referer_or_sent_again_from_the_refusal_it_comes_back_to_the_nearest_page_above(small):
    client, tournament = small
    for referer in ({}, {"HTTP_REFERER": f"http://testserver/organise/{tournament.pk}/start/"},
                    {"HTTP_REFERER": "https://elsewhere.example/organise/"}):
        refused = client.post(f"/organise/{tournament.pk}/start/", **referer)
        assert switch_back_to(refused.content.decode()) == f"/organise/{tournament.pk}/"
    assert client.get(f"/organise/{tournament.pk}/start/").status_code == 405  # what it loaded before


def test_a_refused_form_whose_address_also_draws_it_comes_back_to_that_address(db):
    olga = get_user_model().objects.create_user("olga")
    client = Client()
    client.force_login(olga)
    refused = client.post("/organise/new/", {"name": ""})
    assert refused.status_code == 400 and switch_back_to(refused.content.decode()) == "/organise/new/"


def test_a_page_asked_with_get_comes_back_to_itself_with_its_query(client, swiss):
    page = body(client.get(f"/tournaments/{swiss.pk}/?page=1"))
    assert switch_back_to(page) == f"/tournaments/{swiss.pk}/?page=1"


def test_every_url_the_site_has_is_known_to_answer_get_or_not():
    """tournaments.web's page_url tells a GET address from a POST-only one by the views' own
    declarations (require_http_methods, a class-based view's methods)."""
    assert answers_get("/") and answers_get("/organise/new/") and answers_get("/account/sign-in/")
    assert answers_get("/matches/1/replay/") and answers_get("/organise/3/")
    assert not answers_get("/organise/3/start/") and not answers_get("/organise/3/entries/person/")
    assert not answers_get("/account/sign-out/") and not answers_get("/organise/tables/4/report/")
    assert not answers_get("/no/such/page/")
