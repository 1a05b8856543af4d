"""examples/remote_bot.py, run as a separate process against a live server, plays a remote
bot's seats in an online tournament against built-in bots, over HTTP alone, to the end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from tournaments.models import Match, MatchAction, Tournament
from tournaments.services import dispatch, players, tokens
from tournaments.services.players import builtin_bot_get_or_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db(transaction=True)
def test_the_example_remote_bot_plays_an_online_tournament_to_the_end(live_server, settings):
    settings.ALLOWED_HOSTS = ["*"]
    author = get_user_model().objects.create_user("author")
    remote = players.player_create(name="far-away", kind="bot", bot_kind="remote", owner=author)
    _, secret = tokens.token_create(user=author, name="remote", scopes=["read", "play"], bot=remote)
    field = [remote] + [builtin_bot_get_or_create(bot=bot, name=f"{bot}-{i}")
                        for i, bot in enumerate(["random", "heuristic", "expectimax", "random", "heuristic"])]
    tournament = tournament_create(name="Remote night", slug="remote-night", game="sette_e_mezzo", table_size=3,
                                   format="round_robin", format_config={"cycles": 4}, options={"hands": 2},
                                   online=True, move_seconds=60, seed=5)
    for player in field:
        entry_add(tournament=tournament, player=player)
    _, progress = tournament_start(tournament=tournament)
    dispatch.send_progress(progress)  # as the API's start does: eager here, so played and opened at once

    done = subprocess.run(
        [sys.executable, "examples/remote_bot.py", "--url", live_server.url, "--token", secret, "--idle-exit", "2",
         "--poll", "0.05", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    tournament.refresh_from_db()
    matches = Match.objects.filter(round__tournament=tournament)
    assert tournament.status == Tournament.Status.FINISHED
    assert matches.count() >= 20 and not matches.exclude(status=Match.Status.FINISHED).exists()
    # The remote bot played every one of its seats itself: no timeout, no forfeit.
    mine = matches.filter(seats__player=remote)
    assert mine.count() >= 10
    assert not mine.filter(seats__player=remote, seats__forfeit_reason__gt="").exists()
    by_seat = MatchAction.objects.filter(match__in=mine, by="seat").count()
    assert by_seat > 0 and int(done.stdout.strip()) == by_seat
