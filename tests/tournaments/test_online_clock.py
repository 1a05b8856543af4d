"""Online play's clock: a seat that does not act within the tournament's move_seconds gets the
timeout policy (forfeit, or the timeout bot plays the move), exactly once per deadline."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db.models import F
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments import online_reads
from tournaments.models import AuditEvent, Match, MatchAction
from tournaments.services import ServiceError, dispatch, online, players, table_store
from tournaments.services.players import builtin_bot_get_or_create
from tournaments.services.tokens import token_create
from tournaments.services.tournaments import entry_add, tournament_cancel, tournament_create, tournament_start

from .helpers import error, fields, moved, parse_events

pytestmark = [pytest.mark.django_db, pytest.mark.services, pytest.mark.usefixtures("service_turns")]


def online_match(slug="clocked", move_seconds=30, timeout_bot="", bank_seconds=None):
    """An opened online Stoppa match of a person, a remote bot and a built-in bot (the person's
    and the remote bot's one account's: the tournament allows it several seats)."""
    users = get_user_model()
    ada = users.objects.create_user(f"ada-{slug}")
    person = players.player_create(name=f"ada-{slug}", kind="person", owner=ada)
    remote = players.player_create(name=f"remote-{slug}", kind="bot", bot_kind="remote", owner=ada)
    bot = builtin_bot_get_or_create(bot="heuristic", name="heuristic")
    tournament = tournament_create(name=slug, slug=slug, game="stoppa", table_size=3, format="round_robin",
                                   format_config={}, options={"hands": 1}, online=True, move_seconds=move_seconds,
                                   timeout_bot=timeout_bot, bank_seconds=bank_seconds, seed=3, several_seats=True)
    for player in (person, remote, bot):
        entry_add(tournament=tournament, player=player)
    _, progress = tournament_start(tournament=tournament)
    moved(online.online_matches_open(match_ids=list(progress.to_open)))
    return Match.objects.get(pk=progress.to_open[0])


def waiting(match):
    match.refresh_from_db()
    return online_reads.table_load(match).waits_for()


def test_the_seat_to_act_has_move_seconds_and_acting_in_time_starts_the_next_seats_clock():
    match = online_match(move_seconds=30)
    before = timezone.now()
    assert match.deadline_at is not None and 29 <= (match.deadline_at - before).total_seconds() <= 30
    seat = waiting(match)
    view = online_reads.seat_view(match=match, position=seat)["view"]
    moved(online.seat_act(match_id=match.pk, position=seat, action=view["legal_actions"][0]))
    match.refresh_from_db()
    if match.status == Match.Status.RUNNING:
        assert match.deadline_at > before + timedelta(seconds=29)
    # Nothing is due before the deadline.
    assert not moved(online.deadlines_expire(now=match.deadline_at - timedelta(seconds=1)))
    assert not AuditEvent.objects.filter(action="move_timeout").exists()


def test_a_timeout_forfeits_the_seat_once_however_often_the_timer_fires(caplog):
    match = online_match(move_seconds=30)
    seat = waiting(match)
    # The moment it runs out: the next seat's clock, started after it, runs out later.
    late = match.deadline_at
    with caplog.at_level("INFO", logger="tournaments.services.online"):
        moved(online.deadlines_expire(now=late))
        moved(online.deadlines_expire(now=late))  # the timer fired twice: the same deadline is not applied again
    timeouts = AuditEvent.objects.filter(match=match, action="move_timeout")
    assert [e.detail for e in timeouts] == [{"seat": seat, "policy": "forfeit"}]
    # The log says what the periodic task did (its runs themselves are not logged: test_settings.py).
    assert [r.getMessage() for r in caplog.records if "out of time" in r.getMessage()] == [
        f"match {match.pk}: seat {seat} ran out of time, forfeited"]
    assert match.seats.get(position=seat).forfeit_reason == "timeout"
    # The fallback bot plays the forfeited seat from now on: the match waits for another seat or is over.
    assert waiting(match) != seat
    with pytest.raises(ServiceError) as refused:
        moved(online.seat_act(match_id=match.pk, position=seat, action={"type": "pass"}))
    assert refused.value.code == "conflict"


def test_a_timeout_bot_plays_the_move_and_the_seat_plays_on():
    match = online_match(slug="bot-clock", move_seconds=30, timeout_bot="random")
    seat = waiting(match)
    actions = MatchAction.objects.filter(match=match).count()
    moved(online.deadlines_expire(now=match.deadline_at + timedelta(seconds=1)))
    played = MatchAction.objects.filter(match=match).order_by("seq")[actions]
    assert (played.seat, played.by) == (seat, online.BY_TIMEOUT)
    assert match.seats.get(position=seat).forfeit_reason == ""


def test_a_worker_killed_while_applying_a_timeout_leaves_it_to_be_applied_once_later(monkeypatch):
    match = online_match(move_seconds=30)
    seat = waiting(match)
    late = match.deadline_at

    def dies(table):
        raise SystemExit("the worker died half way")

    monkeypatch.setattr(table_store, "advance", dies)
    with pytest.raises(SystemExit):
        moved(online.deadlines_expire(now=late))
    monkeypatch.undo()
    # Nothing of the half-applied timeout stayed.
    assert match.seats.get(position=seat).forfeit_reason == ""
    assert not AuditEvent.objects.filter(match=match, action="move_timeout").exists()
    moved(online.deadlines_expire(now=late))
    moved(online.deadlines_expire(now=late))
    assert AuditEvent.objects.filter(match=match, action="move_timeout", detail__seat=seat).count() == 1


def rewind(match, seconds: float) -> None:
    """As if the awaited seat had been thinking for ``seconds`` already."""
    Match.objects.filter(pk=match.pk).update(awaiting_since=F("awaiting_since") - timedelta(seconds=seconds),
                                             deadline_at=F("deadline_at") - timedelta(seconds=seconds))
    match.refresh_from_db()


def timed_out_once(match, seat: int, timeout_bot: str, before: int) -> None:
    """The seat's timeout policy was applied, once: the timeout bot played action ``before``
    for it, or (no timeout bot) the seat is forfeited."""
    assert [e.detail for e in AuditEvent.objects.filter(match=match, action="move_timeout")] == [
        {"seat": seat, "policy": timeout_bot or "forfeit"}]
    if timeout_bot:
        assert MatchAction.objects.filter(match=match, seq=before).values_list("seat", "by").get() == (
            seat, online.BY_TIMEOUT)
    else:
        assert match.seats.get(position=seat).forfeit_reason == "timeout"


def test_a_move_over_its_time_spends_the_seats_bank_and_the_bank_moves_its_deadline():
    match = online_match(slug="banked", move_seconds=30, bank_seconds=60)
    seat = waiting(match)
    # The first move may take 30 s and then the whole bank: 90 s.
    assert 89 <= (match.deadline_at - match.awaiting_since).total_seconds() <= 90
    assert online_reads.seat_view(match=match, position=seat)["bank_left"] == 60.0
    rewind(match, 50)  # it took 50 s: 20 s out of the bank
    moved(online.seat_act(match_id=match.pk, position=seat, action=online_reads.seat_view(match=match, position=seat)
                    ["view"]["legal_actions"][0]))
    left = match.seats.get(position=seat).bank_left
    assert 39.0 <= left <= 40.0
    # Its next move has 30 s and the 40 left; another seat's has its whole bank.
    while (turn := waiting(match)) is not None and turn != seat:
        assert match.deadline_at - match.awaiting_since == timedelta(seconds=90)
        moved(online.seat_act(match_id=match.pk, position=turn,
                        action=online_reads.seat_view(match=match, position=turn)["view"]["legal_actions"][0]))
    assert turn == seat  # (this seed's match comes back to it)
    match.refresh_from_db()
    assert match.deadline_at - match.awaiting_since == timedelta(seconds=30 + left)
    assert online_reads.seat_view(match=match, position=seat)["bank_left"] == left
    rewind(match, 10)  # in time: the bank is untouched
    moved(online.seat_act(match_id=match.pk, position=seat, action=online_reads.seat_view(match=match, position=seat)
                    ["view"]["legal_actions"][0]))
    assert match.seats.get(position=seat).bank_left == left


def test_a_seat_that_spends_its_whole_bank_times_out_once_and_plays_on_with_move_seconds_alone():
    match = online_match(slug="bank-out", move_seconds=30, bank_seconds=60, timeout_bot="random")
    seat = waiting(match)
    moved(online.deadlines_expire(now=match.deadline_at - timedelta(seconds=1)))  # inside its bank: nothing happens
    assert not AuditEvent.objects.filter(match=match, action="move_timeout").exists()
    moved(online.deadlines_expire(now=match.deadline_at))
    moved(online.deadlines_expire(now=match.deadline_at))
    assert AuditEvent.objects.filter(match=match, action="move_timeout").count() == 1
    assert match.seats.get(position=seat).bank_left == 0.0
    while (turn := waiting(match)) is not None and turn != seat:
        moved(online.seat_act(match_id=match.pk, position=turn,
                        action=online_reads.seat_view(match=match, position=turn)["view"]["legal_actions"][0]))
    assert turn == seat
    match.refresh_from_db()
    assert match.deadline_at - match.awaiting_since == timedelta(seconds=30)


def test_a_tournament_without_a_bank_shows_none_and_gives_move_seconds_alone():
    match = online_match(slug="no-bank", move_seconds=30)
    seat = waiting(match)
    assert online_reads.seat_view(match=match, position=seat)["bank_left"] is None
    assert match.deadline_at - match.awaiting_since == timedelta(seconds=30)


@pytest.mark.parametrize("changes, field", [
    ({"move_seconds": 30, "bank_seconds": 0}, "bank_seconds"),
    ({"move_seconds": 30, "bank_seconds": 7 * 86_400 + 1}, "bank_seconds"),
    ({"bank_seconds": 60}, "bank_seconds"),  # a bank needs a clock

    ({"move_seconds": 4}, "move_seconds"),
    ({"move_seconds": 86_401}, "move_seconds"),
    ({"move_seconds": True}, "move_seconds"),
    ({"timeout_bot": "nonexistent"}, "timeout_bot"),
    ({"timeout_bot": "expectimax"}, "timeout_bot"),  # a Sette e mezzo bot, not a Stoppa one
    ({"online": False, "move_seconds": 30}, "online"),
    ({"online": True, "duplicate": True}, "duplicate"),
])
def test_a_clock_out_of_bounds_is_refused_naming_the_field(changes, field):
    settings = {"name": "c", "slug": "c", "game": "stoppa", "table_size": 3, "format": "round_robin",
                "format_config": {}, "online": True, **changes}
    with pytest.raises(ServiceError) as refused:
        tournament_create(**settings)
    assert refused.value.field == field


def test_the_api_takes_a_bank_with_a_clock_and_names_it_when_refused():
    olga = get_user_model().objects.create_user("olga-bank")
    client = APIClient()
    client.force_authenticate(olga)
    body = {"name": "Banked", "slug": "banked-api", "game": "stoppa", "table_size": 3, "format": "round_robin",
            "online": True, "move_seconds": 30, "bank_seconds": 300}
    made = client.post("/api/tournaments/", body, format="json")
    assert made.status_code == 201 and (made.json()["move_seconds"], made.json()["bank_seconds"]) == (30, 300)
    refused = client.post("/api/tournaments/", {**body, "slug": "no-clock", "move_seconds": None}, format="json")
    assert refused.status_code == 400 and "move_seconds" in fields(refused)["bank_seconds"][0]


def test_forfeiting_another_seat_keeps_the_awaited_seats_clock():
    match = online_match(slug="keeps-clock", move_seconds=30)
    turn = waiting(match)
    deadline = match.deadline_at
    other = next(seat.position for seat in match.seats.all() if seat.position != turn)
    moved(online.seat_forfeit(match_id=match.pk, position=other, reason="left the club"))
    match.refresh_from_db()
    assert match.seats.get(position=other).forfeit_reason == "forfeited"
    assert (waiting(match), match.deadline_at) == (turn, deadline)  # not a fresh move_seconds


def player_client(match, position) -> APIClient:
    """A client acting for the player at ``position`` (its owner, every scope)."""
    client = APIClient()
    client.force_authenticate(match.seats.get(position=position).player.owner)
    return client


@pytest.mark.parametrize("timeout_bot", ["", "random"])
def test_a_move_after_its_deadline_is_refused_naming_it_and_the_timeout_applies_with_no_clock_check(timeout_bot):
    """No periodic check has run (beat stopped, or late): the move that comes 8 s after its
    deadline is refused, and the timeout policy is applied then, once."""
    match = online_match(slug=f"late-{timeout_bot or 'forfeit'}", move_seconds=30, timeout_bot=timeout_bot)
    seat = waiting(match)
    legal = online_reads.seat_view(match=match, position=seat)["view"]["legal_actions"]
    rewind(match, 38)
    deadline = match.deadline_at
    before = MatchAction.objects.filter(match=match).count()
    answer = player_client(match, seat).post(f"/api/matches/{match.pk}/seats/{seat}/actions/",
                                             {"action": legal[0]}, format="json", HTTP_IDEMPOTENCY_KEY="late")
    assert answer.status_code == 409
    assert deadline.isoformat() in error(answer)["message"] and set(fields(answer)) == {"deadline_at"}
    assert not MatchAction.objects.filter(match=match, seat=seat, by=online.BY_SEAT).exists()
    timed_out_once(match, seat, timeout_bot, before)
    # The clock check, when it comes, finds nothing more to apply.
    moved(online.deadlines_expire(now=deadline + timedelta(seconds=9)))
    assert AuditEvent.objects.filter(match=match, action="move_timeout").count() == 1


def test_a_move_just_inside_its_deadline_goes_through_and_its_retry_after_it_answers_as_the_first():
    match = online_match(slug="just-in-time", move_seconds=30)
    seat = waiting(match)
    legal = online_reads.seat_view(match=match, position=seat)["view"]["legal_actions"]
    rewind(match, 29)
    client = player_client(match, seat)
    url = f"/api/matches/{match.pk}/seats/{seat}/actions/"
    first = client.post(url, {"action": legal[0]}, format="json", HTTP_IDEMPOTENCY_KEY="in-time")
    assert first.status_code == 200 and first.json()["repeated"] is False
    rewind(match, 3600)  # whoever is awaited now is long past their time
    again = client.post(url, {"action": legal[0]}, format="json", HTTP_IDEMPOTENCY_KEY="in-time")
    assert again.status_code == 200 and again.json() == {**first.json(), "repeated": True}


def test_a_timeout_bot_that_searches_is_refused_naming_the_rule():
    with pytest.raises(ServiceError) as refused:
        online_match(slug="thinker", timeout_bot="ismcts")
    assert refused.value.field == "timeout_bot" and "does not search" in refused.value.message


def test_a_cancelled_tournaments_match_shows_no_deadline_and_no_clock_runs_out():
    match = online_match(slug="called-off", move_seconds=30)
    seat = waiting(match)
    deadline = match.deadline_at
    tournament_cancel(tournament=match.round.tournament)
    match.refresh_from_db()
    assert match.deadline_at is None and match.awaiting_seat is None
    client = player_client(match, seat)
    got = parse_events(b"".join(client.get(f"/api/matches/{match.pk}/seats/{seat}/events/?follow=false")
                                .streaming_content))
    assert [e["event"] for e in got] == ["view", "over"] and got[0]["data"]["deadline_at"] is None
    assert not moved(online.deadlines_expire(now=deadline + timedelta(seconds=1)))
    assert not AuditEvent.objects.filter(match=match, action="move_timeout").exists()


def test_a_move_that_answers_a_decision_the_match_has_moved_on_from_is_refused(settings):
    """A person read her view at one decision; her clock ran out and the timeout bot moved for
    her, the others moved, and her turn came again: her move, chosen at the first decision,
    arrives now. Naming the decision it answers (the view's ``actions``), it is refused 409,
    not applied to a decision she never saw; a move naming the current one goes through, and its
    retry under the same Idempotency-Key is answered as the first time."""
    match = online_match(slug="moved-on", move_seconds=30, timeout_bot="random")
    seat = waiting(match)
    first = online_reads.seat_view(match=match, position=seat)
    client = player_client(match, seat)
    url = f"/api/matches/{match.pk}/seats/{seat}/actions/"
    moved(online.deadlines_expire(now=match.deadline_at + timedelta(seconds=1)))  # the timeout bot's move
    while (turn := waiting(match)) is not None and turn != seat:  # the others, up to her turn again
        view = online_reads.seat_view(match=match, position=turn)
        moved(online.seat_act(match_id=match.pk, position=turn, action=view["view"]["legal_actions"][0],
                              answers=view["actions"]))
    assert turn == seat, "this seed's match comes back to her"
    now = online_reads.seat_view(match=match, position=seat)
    assert now["actions"] > first["actions"]
    stale = first["view"]["legal_actions"][0]
    late = client.post(url, {"action": stale, "actions": first["actions"]}, format="json",
                       HTTP_IDEMPOTENCY_KEY="chosen-at-the-first")
    assert late.status_code == 409 and set(fields(late)) == {"actions"}
    assert f"after {first['actions']} actions" in error(late)["message"]
    assert online_reads.seat_view(match=match, position=seat)["actions"] == now["actions"]  # nothing applied
    answer = now["view"]["legal_actions"][0]
    done = client.post(url, {"action": answer, "actions": now["actions"]}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert done.status_code == 200 and done.json()["repeated"] is False
    again = client.post(url, {"action": answer, "actions": now["actions"]}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert again.status_code == 200 and again.json() == {**done.json(), "repeated": True}


def test_a_token_that_may_only_read_is_told_a_move_needs_the_play_scope():
    match = online_match(slug="read-only", move_seconds=30)
    seat = waiting(match)
    _, secret = token_create(user=match.seats.get(position=seat).player.owner, name="look", scopes=["read"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    legal = online_reads.seat_view(match=match, position=seat)["view"]["legal_actions"]
    answer = client.post(f"/api/matches/{match.pk}/seats/{seat}/actions/", {"action": legal[0]}, format="json")
    assert answer.status_code == 403 and "needs the play scope" in error(answer)["message"]
    assert "scopes are read" in error(answer)["message"]


def test_an_online_matchs_record_counts_each_seats_thinking():
    """A seat played through the API thought from the action before its own to its own; a bot
    for as long as it was asked. (The record said 0.0 for every online seat.)"""
    match = online_match(slug="thoughtful", move_seconds=600)
    seat = waiting(match)
    # As if everything so far had happened 20 s ago: the seat has been thinking for 20 s.
    Match.objects.filter(pk=match.pk).update(started_at=F("started_at") - timedelta(seconds=20))
    MatchAction.objects.filter(match=match).update(created_at=F("created_at") - timedelta(seconds=20))
    match.refresh_from_db()
    while (turn := waiting(match)) is not None:
        view = online_reads.seat_view(match=match, position=turn)
        moved(online.seat_act(match_id=match.pk, position=turn, action=view["view"]["legal_actions"][0],
                              answers=view["actions"]))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    thought = dict(match.seats.values_list("position", "think_seconds"))
    assert 20 <= thought[seat] < 60
    bot = match.seats.get(player__bot_kind="builtin")
    assert bot.decisions > 0 and 0 < bot.think_seconds < 10


# --- what a lost message leaves behind ---------------------------------------------------------

def test_an_online_round_whose_opening_message_is_lost_is_opened_by_the_clock_check(monkeypatch):
    """The move that closes a round commits; the message that opens the next round's online
    match is lost (the web process killed after the commit, the broker down). The match waits,
    pending, with its opening watchdog as deadline; the clock check opens it once that runs out,
    and nobody needs a shell."""
    users = get_user_model()
    ada = players.player_create(name="ada-lost", kind="person", owner=users.objects.create_user("ada-lost"))
    tournament = tournament_create(name="lost", slug="lost", game="sette_e_mezzo", table_size=3, format="swiss",
                                   format_config={"rounds": 2}, options={"hands": 1}, online=True, move_seconds=600,
                                   seed=21)
    for player in (ada, builtin_bot_get_or_create(bot="heuristic"), builtin_bot_get_or_create(bot="random")):
        entry_add(tournament=tournament, player=player)
    _, progress = tournament_start(tournament=tournament)
    moved(online.online_matches_open(match_ids=list(progress.to_open)))
    first = Match.objects.get(pk=progress.to_open[0])
    lost = []
    monkeypatch.setattr(dispatch, "open_online", lambda ids: lost.extend(ids))  # never arrives
    while (turn := waiting(first)) is not None:
        view = online_reads.seat_view(match=first, position=turn)
        moved(online.seat_act(match_id=first.pk, position=turn, action=view["view"]["legal_actions"][0],
                              answers=view["actions"]))
    second = Match.objects.get(round__tournament=tournament, round__number=2)
    assert lost == [second.pk] and second.status == Match.Status.PENDING
    assert second.deadline_at is not None  # its opening watchdog
    assert not moved(online.deadlines_expire(now=second.deadline_at - timedelta(seconds=1)))
    moved(online.deadlines_expire(now=second.deadline_at + timedelta(seconds=1)))
    second.refresh_from_db()
    assert second.status == Match.Status.RUNNING
    assert waiting(second) is not None or second.status == Match.Status.FINISHED  # ada's turn: the bots moved


def test_a_committed_change_survives_a_broker_that_refuses_what_it_sets_off(settings, monkeypatch, caplog,
                                                                           django_capture_on_commit_callbacks):
    """Redis down when a move has committed: the move's answer is 200 (it happened), the lost
    message is logged, and the watchdogs find its work again (above)."""
    from celery import current_app
    from kombu.exceptions import OperationalError

    match = online_match(slug="broker-down", move_seconds=60)
    bot = match.seats.get(player__bot_kind="builtin").position
    while True:  # up to a move after which the built-in bot is to play
        seat = waiting(match)
        view = online_reads.seat_view(match=match, position=seat)
        after = online_reads.table_load(match).state.clone()
        after.apply(view["view"]["legal_actions"][0])
        if after.current_player() == bot:
            break
        moved(online.seat_act(match_id=match.pk, position=seat, action=view["view"]["legal_actions"][0]))
    monkeypatch.undo()  # the service's turns go to the broker now, not played here
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"

    def down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:9. Connection refused.")

    for name in (dispatch.MOVE_ONLINE, dispatch.OPEN_ONLINE, dispatch.PLAY_MATCHES):
        monkeypatch.setattr(current_app.tasks[name], "apply_async", down)
    view = online_reads.seat_view(match=match, position=seat)
    with django_capture_on_commit_callbacks(execute=True):
        answer = player_client(match, seat).post(f"/api/matches/{match.pk}/seats/{seat}/actions/",
                                                 {"action": view["view"]["legal_actions"][0],
                                                  "actions": view["actions"]}, format="json")
    assert answer.status_code == 200
    assert MatchAction.objects.filter(match=match, seq=view["actions"], seat=seat, by=online.BY_SEAT).exists()
    assert "the broker did not take tournaments.tasks.move_online_bots" in caplog.text  # the bot's turn: lost
    match.refresh_from_db()
    assert waiting(match) is None and match.deadline_at is not None  # its watchdog sends it again
