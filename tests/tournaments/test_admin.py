"""The admin (tournaments/admin.py): the records (audit log, result submissions, the rating
ledger) are read-only there, and so is whatever a service owns while a tournament runs (the
tournament, its entries, rounds, matches and seats); what no service owns stays editable."""

from __future__ import annotations

import pytest
from django.forms import MultiWidget

from tournaments.models import AuditEvent, Match, ResultSubmission, Round, Tournament
from tournaments.services.tournaments import tournament_start

from .helpers import bot_players, make_tournament, play_out

pytestmark = pytest.mark.django_db


def url(obj, view: str = "change") -> str:
    meta = type(obj)._meta
    return f"/admin/{meta.app_label}/{meta.model_name}/{obj.pk}/{view}/"


def form_data(page, **changed) -> dict:
    """What the change form on ``page`` (a GET's answer) posts back as it stands, with ``changed``:
    its fields (a split widget's parts, a JSON field's text) and its inlines' management forms
    and rows."""
    data = {}

    def add(form):
        for bound in form:
            if bound.field.disabled:
                continue
            value = bound.field.prepare_value(bound.value())
            widget = bound.field.widget
            if isinstance(widget, MultiWidget):
                for i, part in enumerate(widget.decompress(value)):
                    data[f"{bound.html_name}_{i}"] = "" if part is None else part
            elif isinstance(value, (list, tuple)):
                data[bound.html_name] = [str(v) for v in value]
            elif value is not None and value is not False:
                data[bound.html_name] = value

    add(page.context["adminform"].form)
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        data.update({f"{formset.prefix}-{k}": v for k, v in formset.management_form.initial.items()})
        for form in formset.forms:
            add(form)
    data.update(changed)
    return data


@pytest.fixture
def running():
    tournament = make_tournament(bot_players(4), slug="running")
    tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    return tournament


# --- the records -------------------------------------------------------------------------------

def test_the_audit_log_is_looked_at_in_the_admin_and_never_added_changed_or_deleted(admin_client, running):
    event = AuditEvent.objects.filter(tournament=running).first()

    assert admin_client.get("/admin/tournaments/auditevent/").status_code == 200
    page = admin_client.get(url(event))
    assert page.status_code == 200 and page.context["has_change_permission"] is False
    assert admin_client.post(url(event), {"action": "forged"}).status_code == 403
    assert admin_client.get("/admin/tournaments/auditevent/add/").status_code == 403
    assert admin_client.post(url(event, "delete"), {"post": "yes"}).status_code == 403
    admin_client.post("/admin/tournaments/auditevent/", {"action": "delete_selected", "_selected_action": [event.pk],
                                                         "post": "yes"})
    assert AuditEvent.objects.get(pk=event.pk).action == event.action


def test_a_result_submission_is_read_only_in_the_admin(admin_client, running):
    match = Match.objects.filter(round__tournament=running).first()
    submission = ResultSubmission.objects.create(match=match, version=1, scores=[1, 0, 0, 0], places=[1, 2, 3, 4])

    assert admin_client.get(url(submission)).status_code == 200
    assert admin_client.post(url(submission), {"status": "confirmed"}).status_code == 403
    assert admin_client.get("/admin/tournaments/resultsubmission/add/").status_code == 403
    assert admin_client.post(url(submission, "delete"), {"post": "yes"}).status_code == 403
    assert ResultSubmission.objects.get(pk=submission.pk).status == ResultSubmission.Status.PENDING


def test_the_rating_ledger_takes_no_line_from_the_admin(admin_client):
    assert admin_client.get("/admin/tournaments/ratingchange/").status_code == 200
    assert admin_client.get("/admin/tournaments/ratingchange/add/").status_code == 403


# --- a running tournament is the services' -------------------------------------------------------

def test_a_running_tournament_its_rounds_matches_and_seats_are_read_only_in_the_admin(admin_client, running):
    rnd = Round.objects.get(tournament=running)
    match = Match.objects.filter(round=rnd).first()

    for obj in (running, rnd, match):
        page = admin_client.get(url(obj))
        assert page.status_code == 200 and page.context["has_change_permission"] is False, obj
        assert admin_client.post(url(obj), {}).status_code == 403, obj
        assert admin_client.post(url(obj, "delete"), {"post": "yes"}).status_code == 403, obj
    entries = admin_client.get(url(running)).context["inline_admin_formsets"][0]
    assert not (entries.has_add_permission or entries.has_change_permission or entries.has_delete_permission)
    seats = admin_client.get(url(match)).context["inline_admin_formsets"][0]
    assert not (seats.has_add_permission or seats.has_change_permission or seats.has_delete_permission)
    admin_client.post("/admin/tournaments/match/", {"action": "delete_selected", "_selected_action": [match.pk],
                                                    "post": "yes"})
    assert Match.objects.filter(pk=match.pk).exists() and Round.objects.filter(pk=rnd.pk).exists()
    running.refresh_from_db()
    assert running.status == Tournament.Status.RUNNING and running.name == "running"


def test_nothing_new_is_put_into_a_running_tournament_from_the_admin(admin_client, running):
    other = make_tournament(bot_players(4, prefix="later"), slug="later")
    play_out(other)  # finished: its rounds may be picked

    rounds = admin_client.get("/admin/tournaments/match/add/").context["adminform"].form.fields["round"].queryset
    tournaments = admin_client.get("/admin/tournaments/round/add/").context["adminform"].form.fields[
        "tournament"].queryset

    assert not rounds.filter(tournament=running).exists() and rounds.filter(tournament=other).exists()
    assert running not in tournaments and other in tournaments


# --- what stays editable -----------------------------------------------------------------------

def test_a_tournament_not_yet_started_is_renamed_in_the_admin_and_its_status_stays_the_services(admin_client):
    draft = make_tournament(bot_players(4), slug="draft")
    page = admin_client.get(url(draft))
    assert page.context["has_change_permission"] is True

    answer = admin_client.post(url(draft), form_data(page, name="Renamed", status=Tournament.Status.RUNNING))

    assert answer.status_code == 302, answer.context["adminform"].form.errors if answer.context else answer
    draft.refresh_from_db()
    assert draft.name == "Renamed" and draft.status == Tournament.Status.REGISTRATION  # status: read-only


def test_a_tournament_not_yet_started_is_deleted_in_the_admin_with_its_audit(admin_client):
    draft = make_tournament(bot_players(4), slug="draft")
    assert AuditEvent.objects.filter(tournament=draft).exists()  # "created", "entered"

    assert admin_client.post(url(draft, "delete"), {"post": "yes"}).status_code == 302

    assert not Tournament.objects.filter(pk=draft.pk).exists()


def test_a_finished_tournament_is_renamed_in_the_admin_but_not_deleted(admin_client):
    done = make_tournament(bot_players(4), slug="done")
    play_out(done)
    assert done.status == Tournament.Status.FINISHED
    page = admin_client.get(url(done))

    assert admin_client.post(url(done), form_data(page, name="Archived")).status_code == 302
    assert admin_client.post(url(done, "delete"), {"post": "yes"}).status_code == 403
    done.refresh_from_db()
    assert done.name == "Archived"
    match = Match.objects.filter(round__tournament=done).first()
    assert admin_client.get(url(match)).context["has_change_permission"] is True  # its event is over


def test_a_player_is_still_renamed_in_the_admin_while_a_tournament_of_theirs_runs(admin_client, running):
    player = running.entries.first().player
    page = admin_client.get(url(player))

    assert admin_client.post(url(player), form_data(page, display_name="Ada L.")).status_code == 302
    player.refresh_from_db()
    assert player.display_name == "Ada L."
