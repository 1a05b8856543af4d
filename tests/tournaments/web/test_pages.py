"""The reading pages, as a visitor uses them: the right tournaments, players and results, in
the order the selectors give them (the same as the API's)."""

from __future__ import annotations

import html

import pytest

from tournaments import selectors
from tournaments.models import Match, RatingLadder, Round, Tournament
from tournaments.services.ladders import ladder_create
from tournaments.services.tournaments import entry_withdraw
from tournaments.web import brackets

from ..helpers import bot_players, make_tournament
from .pages import body, ids, section, text

pytestmark = pytest.mark.django_db


# --- home --------------------------------------------------------------------------------------

def test_the_home_page_shows_live_upcoming_and_recently_finished_tournaments(client, swiss, running):
    upcoming = make_tournament(bot_players(4, prefix="next"), slug="next-week", ladder_slug=None)
    page = body(client.get("/"))
    assert ids(section(page, "live"), "tournaments") == [running.pk]
    assert ids(section(page, "upcoming"), "tournaments") == [upcoming.pk]
    assert ids(section(page, "finished"), "tournaments") == [swiss.pk]


def test_the_home_page_announces_a_tournament_once_it_could_start_or_invites_entries(client, db):
    """Any account makes tournaments: an empty try-out (a new account's "Test"), or one short
    of a table, is not on the front page; one with a table's worth of active entrants, or with
    open entry, is. The list of every tournament open for registration shows them all."""
    empty = make_tournament([], slug="test", ladder_slug=None)
    short = make_tournament(bot_players(3, prefix="short"), slug="short", ladder_slug=None)
    withdrawn = make_tournament(bot_players(4, prefix="gone"), slug="one-gone", ladder_slug=None)
    entry_withdraw(entry=withdrawn.entries.first())
    full = make_tournament(bot_players(4, prefix="full"), slug="full", ladder_slug=None)
    inviting = make_tournament([], slug="open-call", ladder_slug=None, open_entry=True)
    page = body(client.get("/"))
    assert sorted(ids(section(page, "upcoming"), "tournaments")) == sorted([full.pk, inviting.pk])
    assert 'href="/tournaments/?status=registration"' in section(page, "upcoming")
    listed = ids(body(client.get("/tournaments/?status=registration")), "tournaments")
    assert sorted(listed) == sorted(t.pk for t in (empty, short, withdrawn, full, inviting))


def test_the_home_page_shows_the_top_five_of_each_games_ladder_in_rank_order(client, swiss, knockout):
    page = section(body(client.get("/")), "top")
    for tournament in (swiss, knockout):
        top = selectors.ladder_leaderboard(tournament.ladder, limit=5)
        shown = page[page.index(f'href="/ladders/{tournament.ladder.pk}/"'):]
        assert ids(shown, "players")[:5] == [line.player.pk for line in top]
    assert "Sette e mezzo" in text(page) and "Piazza" in text(page)


def test_each_game_shows_its_busiest_current_ladder(client, swiss):
    # A ladder of the same game that rated nothing yet is not the one on the front page.
    quiet = make_tournament(bot_players(4, prefix="quiet"), slug="quiet", ladder_slug="quiet-ladder")
    page = section(body(client.get("/")), "top")
    assert f'href="/ladders/{swiss.ladder.pk}/"' in page
    assert f'href="/ladders/{quiet.ladder.pk}/"' not in page


def test_an_empty_site_says_so(client, db):
    words = text(body(client.get("/")))
    assert "No tournament is being played right now." in words
    assert "Nobody is rated yet" in words


# --- ladders -----------------------------------------------------------------------------------

def test_the_ladders_page_groups_every_ladder_by_game(client, swiss, knockout):
    page = body(client.get("/ladders/"))
    assert ids(section(page, "game-piazza"), "ladders") == [knockout.ladder.pk]
    assert ids(section(page, "game-sette_e_mezzo"), "ladders") == [swiss.ladder.pk]
    assert "Elo" in text(page)


def test_an_older_version_of_a_ladder_points_to_the_current_one(client, swiss):
    newer = ladder_create(slug=swiss.ladder.slug, name="Sette ladder, K 32", game=swiss.ladder.game,
                          config={"k": 32})  # a new configuration: a new version
    assert newer.version == 2
    page = body(client.get(f"/ladders/{swiss.ladder.pk}/"))
    assert "This is an older version of the ladder." in text(page) and f'href="/ladders/{newer.pk}/"' in page
    assert "older version" not in text(body(client.get(f"/ladders/{newer.pk}/")))
    listed = section(body(client.get("/ladders/")), "game-sette_e_mezzo")
    assert ids(listed, "ladders") == [newer.pk, swiss.ladder.pk]  # the current version first


# --- tournaments -------------------------------------------------------------------------------

def test_the_tournament_list_filters_by_status(client, swiss, running):
    assert set(ids(body(client.get("/tournaments/")), "tournaments")) == {swiss.pk, running.pk}
    assert ids(body(client.get("/tournaments/", {"status": "running"})), "tournaments") == [running.pk]
    assert ids(body(client.get("/tournaments/", {"status": "finished"})), "tournaments") == [swiss.pk]
    assert set(ids(body(client.get("/tournaments/", {"status": "nonsense"})), "tournaments")) == {swiss.pk, running.pk}


def test_the_standings_list_every_player_in_rank_order_with_every_tiebreak_and_the_reason(client, swiss):
    page = section(body(client.get(f"/tournaments/{swiss.pk}/")), "standings-heading")
    lines = selectors.tournament_standings(swiss)
    assert ids(page, "players") == [line.player.pk for line in lines]
    words = text(page)
    for header in ("Rank", "Points", "Game score", "Buchholz", "Sonneborn-Berger", "Head-to-head", "Wins"):
        assert header in words
    for line in lines:
        assert html.escape(line.explanation) in page


def test_a_finished_tournament_shows_its_seed_and_a_running_one_does_not(client, swiss, running):
    assert str(swiss.seed) in body(client.get(f"/tournaments/{swiss.pk}/"))
    page = body(client.get(f"/tournaments/{running.pk}/"))
    assert str(running.seed) not in page
    assert "shown when the tournament is finished" in text(page)


def test_a_tournament_open_for_registration_lists_its_entrants_by_seed(client, db):
    players = bot_players(5, prefix="entrant")
    tournament = make_tournament(players, slug="soon", ladder_slug=None)
    page = section(body(client.get(f"/tournaments/{tournament.pk}/")), "entries-heading")
    assert ids(page, "players") == [p.pk for p in players]


def test_an_elimination_tournament_draws_its_bracket_from_first_round_to_champion(client, knockout):
    page = section(body(client.get(f"/tournaments/{knockout.pk}/")), "bracket-heading")
    assert "<svg" in page and 'id="bracket-title"' in page
    for match in Match.objects.filter(round__tournament=knockout):
        assert f'href="/matches/{match.pk}/"' in page  # every table is in it, and opens its match
    champion = selectors.tournament_standings(knockout)[0]
    assert champion.reached == "champion"
    tail = page[page.index(">Champion<"):]
    assert str(champion.player) in tail
    for stage in ("Quarter-final", "Semi-final", "Final"):
        assert f">{stage}<" in page


def test_a_bracket_marks_who_went_through_each_table(client, knockout):
    bracket = brackets.tournament_bracket(knockout)
    for box in bracket.boxes:
        if box.match is not None:
            seats = sorted(box.match.seats.all(), key=lambda s: (s.place, -s.score))
            winners = [line.player.pk for line in box.lines if line.advanced]
            assert winners == [seats[0].player_id]


def test_a_round_robin_draws_no_bracket(client, swiss):
    assert 'id="bracket-heading"' not in body(client.get(f"/tournaments/{swiss.pk}/"))


def test_a_live_tournament_shows_its_rounds_progress_and_polls_for_more(client, running):
    page = body(client.get(f"/tournaments/{running.pk}/"))
    assert f'data-poll="/tournaments/{running.pk}/progress/?closed=1"' in page
    progress = text(section(page, "progress-heading"))
    assert "Round 2: 1 of 2 tables finished, 1 being played" in progress


def test_the_progress_fragment_offers_a_reload_once_a_round_has_closed(client, running):
    assert "A round has ended" not in text(body(client.get(f"/tournaments/{running.pk}/progress/?closed=1")))
    assert "A round has ended" in text(body(client.get(f"/tournaments/{running.pk}/progress/?closed=0")))


def test_the_progress_fragment_tells_the_poller_to_stop_once_the_tournament_is_over(client, swiss):
    fragment = body(client.get(f"/tournaments/{swiss.pk}/progress/?closed=3"))
    assert "data-over" in fragment and "The tournament is over." in text(fragment)


# --- rounds, pairings, matches -----------------------------------------------------------------

def test_a_round_page_shows_each_table_its_players_by_seat_and_their_results(client, swiss):
    page = body(client.get(f"/tournaments/{swiss.pk}/rounds/1/"))
    matches = Match.objects.filter(round__tournament=swiss, round__number=1).order_by("table")
    assert ids(page, "matches") == [m.pk for m in matches]
    seated = [seat.player_id for m in matches for seat in m.seats.order_by("position")]
    assert ids(page, "players") == seated
    assert "Score" in text(page) and "Place" in text(page)


def test_the_pairings_print_each_table_number_and_its_players_in_seat_order(client, swiss):
    page = body(client.get(f"/tournaments/{swiss.pk}/rounds/2/pairings/"))
    assert 'href="/static/web/print.css" media="print"' in page
    words = text(page)
    for match in Match.objects.filter(round__tournament=swiss, round__number=2).order_by("table"):
        names = " ".join(f"Seat {s.position + 1} {s.player}" for s in match.seats.order_by("position"))
        assert f"Table {match.table} {names}" in words


def test_a_finished_matchs_page_shows_its_result_seed_and_replay_link(client, swiss):
    match = Match.objects.filter(round__tournament=swiss).first()
    page = body(client.get(f"/matches/{match.pk}/"))
    assert str(match.seed) in page
    assert f'href="/api/matches/{match.pk}/replay/"' in page
    words = text(page)
    for seat in match.seats.all():
        assert str(seat.player) in words


# --- players -----------------------------------------------------------------------------------

def test_a_players_page_shows_its_rating_rank_history_chart_matches_and_tournaments(client, swiss):
    line = selectors.ladder_leaderboard(swiss.ladder, limit=3)[2]
    page = body(client.get(f"/players/{line.player.pk}/"))
    ratings = section(page, "ratings")
    assert f'href="/ladders/{swiss.ladder.pk}/"' in ratings
    assert "3 of 8" in text(ratings)
    assert "<svg" in ratings and "<title" in ratings and "<desc" in ratings
    assert "<polyline" in ratings
    played = Match.objects.filter(round__tournament=swiss, seats__player=line.player)
    assert set(ids(section(page, "matches"), "matches")) == {m.pk for m in played}
    assert ids(section(page, "entered"), "tournaments") == [swiss.pk]
    assert "Bot" in text(page) and "built-in bot" in text(page)


def test_a_player_never_rated_or_seated_has_a_quiet_page(client, db):
    player = bot_players(1, prefix="new")[0]
    words = text(body(client.get(f"/players/{player.pk}/")))
    assert "Not rated on any ladder yet." in words and "No finished match to show yet." in words


# --- unknown addresses -------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/players/999999/", "/ladders/999999/", "/tournaments/999999/",
                                  "/tournaments/999999/rounds/1/", "/matches/999999/", "/no-such-page/"])
def test_an_unknown_address_is_a_404_page_in_the_sites_layout(client, swiss, path):
    answer = client.get(path)
    assert answer.status_code == 404
    page = answer.content.decode()
    assert "Not found" in text(page) and 'href="/ladders/"' in page and 'href="/api/docs/"' in page


def test_a_round_that_was_never_made_is_a_404(client, swiss):
    assert client.get(f"/tournaments/{swiss.pk}/rounds/9/").status_code == 404
    assert client.get(f"/tournaments/{swiss.pk}/rounds/9/pairings/").status_code == 404


def test_unknown_paths_under_the_api_are_still_json(client, swiss):
    answer = client.get("/api/no-such-endpoint/")
    assert answer.status_code == 404 and answer["Content-Type"] == "application/json"
    assert client.get("/api/players/999999/").json()["error"]["code"] == "not_found"


def test_the_admin_still_answers(admin_client):
    assert admin_client.get("/admin/").status_code == 200


def test_pages_only_read(client, swiss):
    assert client.post(f"/tournaments/{swiss.pk}/").status_code == 405
    assert Tournament.objects.filter(pk=swiss.pk, status="finished").exists()
    assert Round.objects.filter(tournament=swiss).count() == 3
    assert RatingLadder.objects.filter(pk=swiss.ladder_id).exists()
