"""Subprocess bots in the service: run in the bubblewrap sandbox or not at all (docs/bots.md,
"Isolation"). In it a bot finds none of the server's secrets, network or files; where the
sandbox cannot start, such a bot is refused at registration and at a tournament's start, and a
seat of one already entered is forfeited without running it."""

from __future__ import annotations

import random
import sys

import pytest
from django.contrib.auth import get_user_model

from tournaments.models import Match, Player, Seat, Tournament
from tournaments.services.play import tournament_play_out
from tournaments.services.players import player_bot, player_create
from tournaments.services.tournaments import entry_add, entry_withdraw, tournament_start

from ..bots.helpers import break_bwrap, lure, probe_report, require_sandbox
from .helpers import bot_players, fields, make_tournament
from .test_online import session
from .test_online_external import external_match, play_out, program_bot

pytestmark = [pytest.mark.django_db]

LIMITS = {"startup": 10.0, "decision": 2.0, "bank": 1.0, "memory_mb": 512}
REFUSAL = "subprocess bots run only in the bubblewrap sandbox, which cannot start on this server: "


def staff(name: str = "root"):
    return get_user_model().objects.create_user(name, is_staff=True)


def register(client, name: str, command: list[str]):
    return client.post("/api/players/", {"name": name, "kind": "bot", "bot_kind": "subprocess",
                                         "bot_config": {"command": command, "limits": LIMITS}}, format="json")


def with_randoms(program: Player, slug: str) -> Tournament:
    """A round robin of one table: ``program`` and three random bots, not started."""
    return make_tournament([program, *bot_players(3, prefix=slug)], slug=slug, format="round_robin",
                           format_config={}, ladder_slug=None)


def a_trace_if_run(tmp_path) -> tuple[list[str], object]:
    """A command that leaves a file behind if it runs outside the sandbox (inside, the file's
    folder is not there), and that file."""
    trace = tmp_path / "ran-unsandboxed"
    return [sys.executable, "-c", f"open({str(trace)!r}, 'w').write('ran')"], trace


def test_in_the_service_a_subprocess_bot_finds_no_secret_no_network_and_no_file_of_the_server(tmp_path, monkeypatch):
    # The attack: a staff-registered bot read the worker's SECRET_KEY and DATABASE_URL from
    # /proc/<parent>/environ and reached the network. Here the worker's secrets are in its
    # environment, a server listens on its loopback, a secret file lies in the repository (the
    # worker's own folder, as an SQLite database or a .env would), and the bot looks for all.
    require_sandbox()
    with lure(monkeypatch, tmp_path / "bot") as lures:
        answer = register(session(staff()), "prober", lures.probe())
        assert answer.status_code == 201, answer.json()
        prober = Player.objects.get(name="prober")
        tournament = with_randoms(prober, "probed")
        tournament_start(tournament=tournament)
        assert tournament_play_out(tournament=tournament, owner="test").played == 1
        seat = Seat.objects.get(player=prober)
        assert seat.forfeit_reason == "crash"  # the probe exits once it has looked
        lures.assert_found_nothing(probe_report(seat.forfeit_detail))
    made = player_bot(prober, game="sette_e_mezzo", seed=1)
    assert made.sandboxed and made.in_scratch  # never the worker's folder as its own


def test_where_the_sandbox_cannot_start_a_subprocess_bot_is_refused_at_registration(tmp_path, monkeypatch):
    break_bwrap(monkeypatch, tmp_path / "bin")
    owner = staff()
    root = session(owner)
    refused = register(root, "prog", ["python3", "/srv/bots/prog/bot.py"])
    assert refused.status_code == 400
    [message] = fields(refused)["bot_config"]
    assert message.startswith(REFUSAL) and message.endswith("bwrap: No permissions to create new namespace")
    assert not Player.objects.filter(name="prog").exists()
    # Nor is one made a subprocess bot by a change of its configuration.
    old = Player.objects.create(name="old-prog", kind="bot", bot_kind="subprocess", owner=owner,
                                bot_config={"command": ["python3", "/srv/bots/old/bot.py"]})
    changed = root.patch(f"/api/players/{old.pk}/", {"bot_config": {"command": ["python3", "/srv/x.py"]}},
                         format="json")
    assert changed.status_code == 400 and fields(changed)["bot_config"][0].startswith(REFUSAL)
    old.refresh_from_db()
    assert old.bot_config == {"command": ["python3", "/srv/bots/old/bot.py"]}
    # Someone not staff is still told first that they may not register one at all.
    stranger = session(get_user_model().objects.create_user("eve"))
    assert register(stranger, "eves", ["python3", "bot.py"]).status_code == 403
    # Without bwrap at all, the same rule, saying so.
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    refused = register(root, "prog", ["python3", "/srv/bots/prog/bot.py"])
    assert fields(refused)["bot_config"] == [REFUSAL + "bwrap is not installed (not found on PATH)"]


def test_where_the_sandbox_cannot_start_a_tournament_with_a_subprocess_entrant_does_not_start(tmp_path, monkeypatch):
    require_sandbox()  # registered and entered where it could run
    command, _ = a_trace_if_run(tmp_path)
    program = player_create(name="prog", kind="bot", bot_kind="subprocess", owner=staff(),
                            bot_config={"command": command, "limits": LIMITS})
    organiser = get_user_model().objects.create_user("olga")
    tournament = with_randoms(program, "moved")
    Tournament.objects.filter(pk=tournament.pk).update(owner=organiser)
    break_bwrap(monkeypatch, tmp_path / "bin")  # then the server can no longer make namespaces
    refused = session(organiser).post(f"/api/tournaments/{tournament.pk}/start/")
    assert refused.status_code == 400
    [message] = fields(refused)["entries"]
    assert message.startswith(REFUSAL) and message.endswith("; entered: prog (withdraw them to start without them)")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION and not tournament.rounds.exists()
    # Without it the tournament starts.
    entry_withdraw(entry=tournament.entries.get(player=program))
    entry_add(tournament=tournament, player=bot_players(1, prefix="spare")[0])
    assert session(organiser).post(f"/api/tournaments/{tournament.pk}/start/").status_code == 202


def test_where_the_sandbox_cannot_start_a_subprocess_bots_seat_is_forfeited_without_running_it(tmp_path, monkeypatch):
    require_sandbox()  # registered and the tournament started where it could run
    command, trace = a_trace_if_run(tmp_path)
    program = player_create(name="prog", kind="bot", bot_kind="subprocess", owner=staff(),
                            bot_config={"command": command, "limits": LIMITS})
    tournament = with_randoms(program, "forfeit")
    tournament_start(tournament=tournament)
    break_bwrap(monkeypatch, tmp_path / "bin")  # then a worker that cannot make namespaces plays it
    assert tournament_play_out(tournament=tournament, owner="test").played == 1
    seat = Seat.objects.get(player=program)
    assert seat.match.status == Match.Status.FINISHED
    assert seat.forfeit_reason == "unavailable"
    assert seat.forfeit_detail.startswith(f"prog cannot play sette_e_mezzo: {REFUSAL}")
    assert seat.forfeit_detail.endswith("bwrap: No permissions to create new namespace")
    assert not trace.exists()  # it never ran


def test_where_the_sandbox_cannot_start_an_online_subprocess_bot_forfeits_without_running(tmp_path, monkeypatch):
    require_sandbox()
    command, trace = a_trace_if_run(tmp_path)
    bot = program_bot(*command, name="online-prog")
    match, progress = external_match(bot, slug="online-forfeit")
    break_bwrap(monkeypatch, tmp_path / "bin")  # then the workers asking it cannot make namespaces
    play_out(match, progress, random.Random(7))
    seat = match.seats.get(player=bot)
    assert seat.forfeit_reason == "exception" and REFUSAL in seat.forfeit_detail
    assert not trace.exists()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
