"""What the pages hold back, as the API does (docs/api.md, "What the API shows, and when"): a
match's seed and result until its outcome is public (selectors.outcome_public: finished and,
in duplicate play, its whole round over), a tournament's seed until it is finished."""

from __future__ import annotations

import re

import pytest

from tournaments import selectors
from tournaments.models import Match, Seat

from ..helpers import play_out
from .pages import body, ids, section, text

pytestmark = pytest.mark.django_db


def test_a_running_matchs_page_shows_no_result_and_no_seed(client, running):
    match = Match.objects.get(round__tournament=running, status=Match.Status.RUNNING)
    page = body(client.get(f"/matches/{match.pk}/"))
    assert str(match.seed) not in page and str(running.seed) not in page
    words = text(page)
    assert "Score" not in words and "Place" not in words
    assert "/replay/" not in page
    assert "Being played: the result, seed and replay are shown when the match is over." in words


def card(page: str, match: Match) -> str:
    """The words of one table's card on a round page."""
    start = page.index(f'href="/matches/{match.pk}/"')
    return text(page[start:page.index("</li>", start)])


def test_a_running_rounds_tables_show_only_the_finished_results(client, running):
    page = body(client.get(f"/tournaments/{running.pk}/rounds/2/"))
    finished = Match.objects.get(round__tournament=running, round__number=2, status=Match.Status.FINISHED)
    playing = Match.objects.get(round__tournament=running, round__number=2, status=Match.Status.RUNNING)
    assert selectors.outcome_public(finished)  # no duplicate deal: public as soon as it is finished
    assert "Score" in card(page, finished)
    assert "Score" not in card(page, playing) and "Playing" in card(page, playing)


def _duplicate_table(duplicate) -> Match:
    return Match.objects.get(round__tournament=duplicate, round__number=1, status=Match.Status.FINISHED)


def test_a_duplicate_rounds_finished_table_is_not_shown_before_the_round_ends(client, duplicate):
    match = _duplicate_table(duplicate)
    assert not selectors.outcome_public(match)
    seats = list(Seat.objects.filter(match=match))
    assert all(seat.place is not None for seat in seats)  # the result is recorded ...
    page = body(client.get(f"/matches/{match.pk}/"))
    assert str(match.seed) not in page and "/replay/" not in page  # ... and not shown
    words = text(page)
    assert "Score" not in words and "Place" not in words
    assert "every table of its round plays the same cards" in words
    round_page = body(client.get(f"/tournaments/{duplicate.pk}/rounds/1/"))
    assert "Score" not in text(round_page)
    assert "no table's result is shown until the whole round is over" in text(round_page)


def test_a_duplicate_rounds_finished_table_counts_nowhere_before_the_round_ends(client, duplicate):
    match = _duplicate_table(duplicate)
    standings = section(body(client.get(f"/tournaments/{duplicate.pk}/")), "standings-heading")
    assert re.findall(r'class="num played">(\d+)<', standings) == ["0"] * 4  # nobody has played a table yet
    for seat in match.seats.all():
        player_page = body(client.get(f"/players/{seat.player_id}/"))
        assert match.pk not in ids(player_page, "matches")
        assert "No finished match to show yet." in text(player_page)


def test_a_duplicate_rounds_tables_are_shown_once_the_round_is_over(client, duplicate):
    match = _duplicate_table(duplicate)
    play_out(duplicate)
    match.refresh_from_db()
    assert selectors.outcome_public(match)
    page = body(client.get(f"/matches/{match.pk}/"))
    assert str(match.seed) in page and f"/api/matches/{match.pk}/replay/" in page
    assert "Score" in text(body(client.get(f"/tournaments/{duplicate.pk}/rounds/1/")))
