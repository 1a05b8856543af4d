"""Reads are cacheable (docs/api.md, "Caching"): every GET answered 200 carries an ETag, and the
same GET with ``If-None-Match`` answers 304 without a body while nothing changed; a change
gives a new ETag. Never a 304 for what the caller may not read."""

from __future__ import annotations

import json

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tournaments.models import Match
from tournaments.services.players import player_create

from .helpers import bot_players, make_tournament, play_out

pytestmark = pytest.mark.django_db


def revalidate(client: APIClient, url: str):
    """(first answer, the answer to the same GET with its ETag)."""
    first = client.get(url)
    assert first.status_code == 200 and first["ETag"].startswith('"')
    return first, client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])


def test_standings_leaderboards_replays_and_finished_matches_answer_304_while_unchanged():
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={})
    play_out(tournament)
    match = Match.objects.filter(round__tournament=tournament).first()
    visitor = APIClient()
    for url in (f"/api/tournaments/{tournament.pk}/standings/", f"/api/ladders/{tournament.ladder_id}/leaderboard/",
                f"/api/matches/{match.pk}/replay/", f"/api/matches/{match.pk}/"):
        first, again = revalidate(visitor, url)
        assert again.status_code == 304, url
        assert again.content == b"" and again["ETag"] == first["ETag"]
        assert visitor.get(url, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200


def test_a_change_gives_a_new_etag():
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, ladder_slug="grows")
    play_out(tournament)
    url = f"/api/ladders/{tournament.ladder_id}/leaderboard/"
    before = APIClient().get(url)
    second = make_tournament(bot_players(4), slug="second", format="round_robin", format_config={}, ladder_slug="")
    second.ladder_id = tournament.ladder_id
    second.save(update_fields=["ladder"])
    play_out(second)  # new ratings on the same ladder
    after = APIClient().get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]


def test_an_etag_never_confirms_what_the_caller_may_not_read(settings):
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["bots.example.org"]
    owner = get_user_model().objects.create_user("bob")
    bot = player_create(name="bob-http", kind="bot", bot_kind="http", owner=owner,
                        bot_config={"url": "https://bots.example.org/play", "headers": {"Authorization": "Bearer s3"}})
    url = f"/api/players/{bot.pk}/"
    bob = APIClient()
    bob.force_login(owner)
    mine = bob.get(url)
    assert mine.json()["bot_config"]["headers"]  # the owner reads the secret...
    # ...and someone else holding the owner's ETag gets their own answer, not a 304 that would
    # confirm the secret: the ETag is the hash of the body each caller is sent.
    other = APIClient().get(url, HTTP_IF_NONE_MATCH=mine["ETag"])
    assert other.status_code == 200 and "headers" not in json.dumps(other.json())
    assert other["ETag"] != mine["ETag"]
    # A refusal is never revalidated.
    assert APIClient().get("/api/tournaments/999999/standings/", HTTP_IF_NONE_MATCH=mine["ETag"]).status_code == 404


def test_event_streams_have_no_etag(rf):
    from django.http import StreamingHttpResponse
    from django.middleware.http import ConditionalGetMiddleware

    assert "django.middleware.http.ConditionalGetMiddleware" in django_settings.MIDDLEWARE
    stream = StreamingHttpResponse(iter([b"data: 1\n\n"]), content_type="text/event-stream")
    answered = ConditionalGetMiddleware(lambda request: stream)(rf.get("/api/matches/1/events/",
                                                                       HTTP_IF_NONE_MATCH="*"))
    assert answered.status_code == 200 and "ETag" not in answered
