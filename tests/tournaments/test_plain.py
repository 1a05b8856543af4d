"""Plain-SQL rows (tournaments.plain): the statements a move runs on every request must give the
code the same objects the ORM would, on SQLite and on PostgreSQL alike."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from tournaments import plain
from tournaments.models import ApiToken, Match, MatchAction, Tournament
from tournaments.services.players import player_create
from tournaments.services.tokens import token_create, token_find

from .helpers import bot_players, make_tournament

pytestmark = [pytest.mark.django_db, pytest.mark.services]


def fields_of(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def read(model, alias: str, pk: int):
    columns = plain.Columns(model, alias)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns.select} FROM {plain.table(model)} {alias} WHERE {alias}.id = %s", [pk])
        return columns.make(cursor.fetchone())


def test_a_row_read_in_plain_sql_is_the_instance_the_orm_makes():
    # JSON fields (objects, lists, null), a duration, datetimes, booleans and nulls: every kind
    # of column a converter must turn back into what the field holds.
    tournament = make_tournament(bot_players(4), options={"hands": 2}, round_interval=timedelta(hours=2, seconds=3),
                                 starts_at=timezone.now() + timedelta(days=1), online=True, move_seconds=60)
    Tournament.objects.filter(pk=tournament.pk).update(tiebreaks=["buchholz"], points_by_place=[3, 1, 0, 0])
    orm = Tournament.objects.get(pk=tournament.pk)

    plain = read(Tournament, "t", tournament.pk)

    assert type(plain) is Tournament and not plain._state.adding
    assert fields_of(plain) == fields_of(orm)
    assert plain.round_interval == timedelta(hours=2, seconds=3) and plain.options == {"hands": 2}


def test_a_token_found_in_plain_sql_carries_its_user_and_only_a_live_token_is_found():
    owner = get_user_model().objects.create_user("ada")
    bot = player_create(name="ada-bot", kind="bot", bot_kind="remote", owner=owner)
    row, secret = token_create(user=owner, name="laptop", scopes=["read", "play"], bot=bot)

    found = token_find(secret)

    assert fields_of(found) | {"last_used_at": None} == fields_of(ApiToken.objects.get(pk=row.pk)) | {"last_used_at": None}
    assert found.user == owner and found.user.username == "ada" and found.scopes == ["read", "play"]
    assert token_find(secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None  # one character off
    get_user_model().objects.filter(pk=owner.pk).update(is_active=False)
    assert token_find(secret) is None  # its user deactivated


def test_a_row_inserted_in_plain_sql_reads_back_through_the_orm_and_its_constraints_hold():
    tournament = make_tournament(bot_players(4))
    from tournaments.services.tournaments import tournament_start

    tournament_start(tournament=tournament)
    match = Match.objects.filter(round__tournament=tournament).first()
    at = timezone.now()
    values = {"match_id": match.pk, "seq": 0, "seat": 1, "action": {"type": "stake", "amount": 3}, "by": "seat",
              "idempotency_key": "k-1", "created_at": at}

    plain.insert(MatchAction, values)

    stored = MatchAction.objects.get(match=match, seq=0)
    assert (stored.seat, stored.action, stored.by, stored.idempotency_key, stored.created_at) == (
        1, {"type": "stake", "amount": 3}, "seat", "k-1", at)
    with pytest.raises(IntegrityError), transaction.atomic():
        plain.insert(MatchAction, {**values, "seq": 1})  # the same seat's Idempotency-Key again
    with pytest.raises(IntegrityError), transaction.atomic():
        plain.insert(MatchAction, {**values, "idempotency_key": ""})  # the same number again


def test_a_row_updated_in_plain_sql_changes_that_row_only():
    tournament = make_tournament(bot_players(8), table_size=4)
    from tournaments.services.tournaments import tournament_start

    tournament_start(tournament=tournament)
    first, second = Match.objects.filter(round__tournament=tournament).order_by("table")[:2]
    deadline = timezone.now() + timedelta(seconds=90)

    changed = plain.update(Match, first.pk, {"awaiting_seat": 2, "deadline_at": deadline, "awaiting_since": None})

    assert changed == 1
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.awaiting_seat, first.deadline_at, first.awaiting_since) == (2, deadline, None)
    assert (second.awaiting_seat, second.deadline_at) == (None, None)
    assert plain.update(Match, 10**9, {"awaiting_seat": 1}) == 0


def test_a_partly_read_row_holds_each_value_in_its_own_field_whatever_order_they_come_in():
    tournament = make_tournament(bot_players(4))
    from tournaments.services.tournaments import tournament_start

    tournament_start(tournament=tournament)
    match = Match.objects.filter(round__tournament=tournament).first()

    partial = plain.partial(Match, {"finished_at": None, "status": "running", "round_id": match.round_id, "id": match.pk})

    assert (partial.pk, partial.status, partial.finished_at, partial.round_id) == (match.pk, "running", None,
                                                                                   match.round_id)
    assert partial.seed == match.seed  # a field left out is read when touched, as with only()
