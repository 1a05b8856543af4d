"""Who must confirm a result people report from a real table: the tournament's
``confirmation`` setting (services.results), through the services and through the API.

The table: four people at one match of a room round robin (its only round, so a result that
counts finishes the tournament). olga owns the tournament and two of the people (guests she
entered); carla co-organises it; ann and bea own the other two; sam is a stranger. The
default, ``other``, lets a sole organiser finish a tournament alone: her report counts at
once; a player's waits for someone else. ``organiser``: a player's report waits for an
organiser. ``strict``: every report waits for someone other than its author. ``none``: every
report counts at once. Every count goes through recording, audited, in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tournaments.models import AuditEvent, Match, Result, ResultSubmission, Tournament
from tournaments.services import ServiceError
from tournaments.services.players import player_create
from tournaments.services.results import result_confirm, result_reject, result_submit
from tournaments.services.tokens import token_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start, tournament_update

from .helpers import error, fields

pytestmark = [pytest.mark.django_db, pytest.mark.services]

SCORES = [6, -1, -2, -3]  # Sette e mezzo: adds up to 0; places 1, 2, 3, 4


@dataclass
class Table:
    tournament: Tournament
    match: Match
    users: dict


def table(confirmation: str | None = None) -> Table:
    User = get_user_model()
    users = {name: User.objects.create_user(name) for name in ("olga", "carla", "ann", "bea", "sam")}
    settings = {} if confirmation is None else {"confirmation": confirmation}
    tournament = tournament_create(name="Club night", slug="club-night", game="sette_e_mezzo", table_size=4,
                                   format="round_robin", options={"hands": 2}, owner=users["olga"], **settings)
    tournament.organisers.add(users["carla"])
    for name, owner in (("anna", "ann"), ("bice", "bea"), ("guest-1", "olga"), ("guest-2", "olga")):
        entry_add(tournament=tournament, player=player_create(name=name, kind="person", owner=users[owner]))
    tournament, _ = tournament_start(tournament=tournament)
    return Table(tournament, Match.objects.get(round__tournament=tournament), users)


def refused(call, **kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as err:
        call(**kwargs)
    return err.value


def counted(t: Table) -> bool:
    """The match has its result, and the tournament (one round) is over."""
    t.match.refresh_from_db()
    t.tournament.refresh_from_db()
    return (t.match.status == Match.Status.FINISHED and Result.objects.filter(match=t.match).exists()
            and t.tournament.status == Tournament.Status.FINISHED)


def nothing_counted(t: Table) -> bool:
    t.match.refresh_from_db()
    return t.match.status == Match.Status.PENDING and not Result.objects.exists()


def trail(t: Table) -> list[tuple[str, str, dict]]:
    """The result's audit trail: (action, actor, detail)."""
    return [(e.action, e.actor.username, e.detail)
            for e in AuditEvent.objects.filter(match=t.match, action__startswith="result_").order_by("id")]


# --- the services, setting by setting ----------------------------------------------------------

def test_by_default_a_sole_organisers_report_counts_at_once_audited_as_both_report_and_confirmation():
    t = table()
    assert t.tournament.confirmation == "other"
    olga = t.users["olga"]
    submission, created, progress = result_submit(match=t.match, scores=SCORES, user=olga, organiser=True)
    assert created and counted(t)
    assert (submission.status, submission.submitted_by, submission.confirmed_by) == ("confirmed", olga, olga)
    assert [t.tournament.pk] == [tournament.pk for tournament in progress.finished]  # what the caller sends on
    assert Result.objects.get(match=t.match).source == Result.Source.REPORTED
    assert trail(t) == [
        ("result_submitted", "olga", {"version": 1, "scores": SCORES, "places": [1, 2, 3, 4], "organiser": True}),
        ("result_confirmed", "olga", {"version": 1, "confirmation": "other", "organiser": True, "by_author": True}),
    ]
    # The same report again is answered with the original; a different one cannot replace it.
    again = result_submit(match=t.match, scores=SCORES, user=olga, organiser=True)
    assert (again.submission.pk, again.created, bool(again.progress)) == (submission.pk, False, False)
    assert refused(result_submit, match=t.match, scores=[-3, -2, -1, 6], user=olga, organiser=True).code == "conflict"


def test_by_default_a_players_report_waits_for_someone_else_never_its_author():
    t = table()
    ann, bea = t.users["ann"], t.users["bea"]
    submission, created, progress = result_submit(match=t.match, scores=SCORES, user=ann)
    assert created and submission.status == "pending" and not progress and nothing_counted(t)
    denied = refused(result_confirm, submission=submission, user=ann)
    assert denied.code == "forbidden" and "by an organiser or by someone other than its author" in denied.message
    assert nothing_counted(t)
    result_confirm(submission=submission, user=bea)  # another seated player's owner
    assert counted(t)
    assert trail(t)[-1] == ("result_confirmed", "bea",
                            {"version": 1, "confirmation": "other", "organiser": False, "by_author": False})


def test_by_default_an_organiser_confirms_a_players_report():
    t = table()
    submission, _, _ = result_submit(match=t.match, scores=SCORES, user=t.users["ann"])
    _, progress = result_confirm(submission=submission, user=t.users["olga"], organiser=True)
    assert counted(t) and progress.finished


def test_an_organisers_report_of_the_result_awaiting_confirmation_confirms_it():
    t = table()
    pending, _, _ = result_submit(match=t.match, scores=SCORES, user=t.users["ann"])
    # A different one is refused while that one awaits: it is rejected first.
    other = refused(result_submit, match=t.match, scores=[-1, 6, -2, -3], user=t.users["olga"], organiser=True)
    assert other.code == "conflict" and "awaits confirmation" in other.message and nothing_counted(t)
    same = result_submit(match=t.match, scores=SCORES, user=t.users["olga"], organiser=True)
    assert (same.submission.pk, same.created) == (pending.pk, False) and same.progress.finished
    assert counted(t) and ResultSubmission.objects.get().confirmed_by == t.users["olga"]


def test_an_organiser_acting_as_a_player_waits_like_a_player():
    """``organiser`` is how the caller acts, not who she is: through a token without the
    organise scope olga reports as her guests' owner, and her report waits."""
    t = table()
    submission, _, _ = result_submit(match=t.match, scores=SCORES, user=t.users["olga"], organiser=False)
    assert submission.status == "pending" and nothing_counted(t)
    assert "other than its author" in refused(result_confirm, submission=submission, user=t.users["olga"]).message
    result_confirm(submission=submission, user=t.users["olga"], organiser=True)  # as an organiser, she may
    assert counted(t)


def test_under_organiser_only_an_organiser_confirms_a_players_report():
    t = table("organiser")
    ann, bea = t.users["ann"], t.users["bea"]
    submission, _, _ = result_submit(match=t.match, scores=SCORES, user=ann)
    assert submission.status == "pending"
    for user in (ann, bea):  # its author, another seated player's owner
        denied = refused(result_confirm, submission=submission, user=user)
        assert denied.code == "forbidden" and "confirmed by an organiser" in denied.message
    assert nothing_counted(t) and not AuditEvent.objects.filter(action="result_confirmed").exists()
    result_confirm(submission=submission, user=t.users["carla"], organiser=True)
    assert counted(t)
    assert trail(t)[-1] == ("result_confirmed", "carla",
                            {"version": 1, "confirmation": "organiser", "organiser": True, "by_author": False})


def test_under_organiser_an_organisers_report_counts_at_once():
    t = table("organiser")
    submission, _, _ = result_submit(match=t.match, scores=SCORES, user=t.users["carla"], organiser=True)
    assert submission.status == "confirmed" and counted(t)


def test_under_strict_an_organisers_report_waits_for_someone_else():
    t = table("strict")
    olga = t.users["olga"]
    submission, _, progress = result_submit(match=t.match, scores=SCORES, user=olga, organiser=True)
    assert submission.status == "pending" and not progress and nothing_counted(t)
    denied = refused(result_confirm, submission=submission, user=olga, organiser=True)
    assert denied.code == "forbidden" and 'confirmation is "strict"' in denied.message
    result_confirm(submission=submission, user=t.users["carla"], organiser=True)
    assert counted(t)


def test_under_strict_a_seated_player_confirms_an_organisers_report_and_staff_their_own():
    t = table("strict")
    submission, _, _ = result_submit(match=t.match, scores=SCORES, user=t.users["olga"], organiser=True)
    result_confirm(submission=submission, user=t.users["ann"])
    assert counted(t)
    t2 = table_of_staff("strict")
    submission, _, _ = result_submit(match=t2.match, scores=SCORES, user=t2.users["root"], organiser=True)
    assert submission.status == "pending"
    result_confirm(submission=submission, user=t2.users["root"], organiser=True)
    assert counted(t2)


def table_of_staff(confirmation: str) -> Table:
    """A second club whose organiser is staff."""
    User = get_user_model()
    root = User.objects.create_user("root", is_staff=True)
    tournament = tournament_create(name="Staff night", slug="staff-night", game="sette_e_mezzo", table_size=4,
                                   format="round_robin", options={"hands": 2}, owner=root, confirmation=confirmation)
    for i in range(4):
        entry_add(tournament=tournament, player=player_create(name=f"staff-guest-{i}", kind="person", owner=root))
    tournament, _ = tournament_start(tournament=tournament)
    return Table(tournament, Match.objects.get(round__tournament=tournament), {"root": root})


def test_under_none_a_players_report_counts_at_once():
    t = table("none")
    submission, created, progress = result_submit(match=t.match, scores=SCORES, user=t.users["ann"])
    assert created and submission.status == "confirmed" and counted(t) and progress.finished
    assert trail(t)[-1] == ("result_confirmed", "ann",
                            {"version": 1, "confirmation": "none", "organiser": False, "by_author": True})


def test_a_rejected_report_is_reported_again_as_a_new_version_and_the_new_one_counts():
    t = table()
    first, _, _ = result_submit(match=t.match, scores=SCORES, user=t.users["ann"])
    result_reject(submission=first, reason="seat 2 won the last hand", user=t.users["olga"])
    second, created, _ = result_submit(match=t.match, scores=[-1, 6, -2, -3], user=t.users["olga"], organiser=True)
    assert created and second.version == 2 and second.status == "confirmed" and counted(t)
    assert [(action, who, detail["version"]) for action, who, detail in trail(t)] == [
        ("result_submitted", "ann", 1), ("result_rejected", "olga", 1), ("result_submitted", "olga", 2),
        ("result_confirmed", "olga", 2)]
    assert Result.objects.get().scores == [-1, 6, -2, -3]


def test_a_report_that_counts_at_once_and_fails_to_record_leaves_nothing_behind(monkeypatch):
    """The submission, its audit and the result are one transaction: a refusal while recording
    (here made up) writes none of them."""
    t = table()

    def refuse(**kwargs):
        raise ServiceError("the recording refused it", "match", code="conflict")

    monkeypatch.setattr("tournaments.services.results.match_record_result", refuse)
    refused(result_submit, match=t.match, scores=SCORES, user=t.users["olga"], organiser=True)
    assert not ResultSubmission.objects.exists() and not AuditEvent.objects.filter(match=t.match).exists()
    assert nothing_counted(t)


def test_the_setting_is_checked_and_changes_only_before_the_start():
    User = get_user_model()
    olga = User.objects.create_user("olga")
    settings = dict(name="x", slug="x", game="sette_e_mezzo", table_size=4, format="round_robin", owner=olga)
    error_ = refused(tournament_create, confirmation="everyone", **settings)
    assert error_.field == "confirmation" and "none, other, organiser, strict" in error_.message
    tournament = tournament_create(**settings)
    tournament = tournament_update(tournament=tournament, confirmation="organiser")
    assert Tournament.objects.get(pk=tournament.pk).confirmation == "organiser"
    assert AuditEvent.objects.filter(action="updated", detail__fields=["confirmation"]).exists()
    assert refused(tournament_update, tournament=tournament, confirmation="bogus").field == "confirmation"


# --- the API: who the caller acts as decides ----------------------------------------------------

def as_session(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def report(client: APIClient, t: Table, scores=SCORES):
    return client.post(f"/api/matches/{t.match.pk}/submissions/", {"scores": scores}, format="json")


def confirm(client: APIClient, submission_id: int):
    return client.post(f"/api/submissions/{submission_id}/confirm/")


def test_api_a_sole_organiser_finishes_a_room_tournament_alone():
    t = table()
    answer = report(as_session(t.users["olga"]), t)
    assert answer.status_code == 201 and answer.json()["status"] == "confirmed"
    assert answer.json()["confirmed_by"] == t.users["olga"].pk
    assert counted(t)
    standings = APIClient().get(f"/api/tournaments/{t.tournament.pk}/standings/").json()
    assert [line["played"] for line in standings["results"]] == [1, 1, 1, 1]
    audit = APIClient().get(f"/api/tournaments/{t.tournament.pk}/audit/").json()["results"]
    assert [e["action"] for e in audit if e["match"] == t.match.pk] == ["result_submitted", "result_confirmed"]


def test_api_a_seated_player_does_not_get_her_own_report_counted_alone():
    t = table()
    ann = as_session(t.users["ann"])
    answer = report(ann, t)
    assert answer.status_code == 201 and answer.json()["status"] == "pending"
    denied = confirm(ann, answer.json()["id"])
    assert denied.status_code == 403 and "other than its author" in error(denied)["message"]
    stranger = as_session(t.users["sam"])
    assert confirm(stranger, answer.json()["id"]).status_code == 403
    assert report(stranger, t, [-3, -2, -1, 6]).status_code == 403
    assert APIClient().post(f"/api/submissions/{answer.json()['id']}/confirm/").status_code == 401
    assert nothing_counted(t)
    assert confirm(as_session(t.users["bea"]), answer.json()["id"]).status_code == 200
    assert counted(t)


def test_api_an_organisers_play_token_reports_as_her_players_owner():
    """A token without the organise scope does not act as an organiser: its report waits."""
    t = table()
    _, play = token_create(user=t.users["olga"], name="phone", scopes=["play"])
    answer = report(bearer(play), t)
    assert answer.status_code == 201 and answer.json()["status"] == "pending"
    assert confirm(bearer(play), answer.json()["id"]).status_code == 403
    assert nothing_counted(t)
    _, organise = token_create(user=t.users["olga"], name="laptop", scopes=["organise", "play"])
    assert confirm(bearer(organise), answer.json()["id"]).status_code == 200
    assert counted(t)


def test_api_under_organiser_another_seated_player_may_not_confirm():
    t = table("organiser")
    answer = report(as_session(t.users["ann"]), t)
    assert answer.json()["status"] == "pending"
    denied = confirm(as_session(t.users["bea"]), answer.json()["id"])
    assert denied.status_code == 403 and "confirmed by an organiser" in error(denied)["message"]
    assert nothing_counted(t)
    confirmed = confirm(as_session(t.users["carla"]), answer.json()["id"])
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "confirmed"
    assert counted(t)


def test_api_under_strict_the_organiser_needs_a_second_person():
    t = table("strict")
    olga = as_session(t.users["olga"])
    answer = report(olga, t)
    assert answer.status_code == 201 and answer.json()["status"] == "pending"
    assert confirm(olga, answer.json()["id"]).status_code == 403
    assert confirm(as_session(t.users["carla"]), answer.json()["id"]).status_code == 200
    assert counted(t)


def test_api_under_none_a_seated_players_report_counts_and_a_strangers_does_not():
    t = table("none")
    assert report(as_session(t.users["sam"]), t).status_code == 403
    assert nothing_counted(t)
    answer = report(as_session(t.users["bea"]), t)
    assert answer.status_code == 201 and answer.json()["status"] == "confirmed"
    assert counted(t)


def test_api_the_setting_is_made_shown_changed_and_refused_by_name():
    olga = as_session(get_user_model().objects.create_user("olga"))
    body = {"name": "Club", "slug": "club", "game": "sette_e_mezzo", "table_size": 4, "format": "round_robin"}
    made = olga.post("/api/tournaments/", body, format="json")
    assert made.status_code == 201 and made.json()["confirmation"] == "other"  # the default
    bad = olga.post("/api/tournaments/", {**body, "slug": "club-2", "confirmation": "everyone"}, format="json")
    assert bad.status_code == 400 and "confirmation" in fields(bad)
    changed = olga.patch(f"/api/tournaments/{made.json()['id']}/", {"confirmation": "strict"}, format="json")
    assert changed.status_code == 200 and changed.json()["confirmation"] == "strict"
    assert APIClient().get(f"/api/tournaments/{made.json()['id']}/").json()["confirmation"] == "strict"


def test_api_the_schema_lists_the_settings_values():
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    components = schema["components"]["schemas"]
    enum = next(s["enum"] for name, s in components.items() if name.startswith("Confirmation") and "enum" in s)
    assert sorted(enum) == ["none", "organiser", "other", "strict"]
