"""bulk_set / bulk_set_rows: one UPDATE writes each row's own values, JSON included, on SQLite
and on PostgreSQL (the `services` leg)."""

from __future__ import annotations

import pytest

from tournaments.models import Match, Seat
from tournaments.services.bulk import bulk_set, bulk_set_rows

from .helpers import started_round_robin

pytestmark = [pytest.mark.django_db, pytest.mark.services]


def test_each_row_gets_its_own_values_and_other_rows_are_untouched():
    tournament, _ = started_round_robin(8)
    seats = list(Seat.objects.filter(match__round__tournament=tournament).order_by("pk"))
    chosen, others = seats[:5], seats[5:]
    written = bulk_set_rows(Seat, ["score", "place", "forfeit_reason"],
                            [(seat.pk, 10 * i - 7, i + 1, f"reason {i}") for i, seat in enumerate(chosen)])
    assert written == 5
    stored = {s.pk: (s.score, s.place, s.forfeit_reason) for s in Seat.objects.filter(pk__in=[s.pk for s in seats])}
    assert [stored[s.pk] for s in chosen] == [(10 * i - 7, i + 1, f"reason {i}") for i in range(5)]
    assert [stored[s.pk] for s in others] == [(None, None, "")] * len(others)


def test_json_values_round_trip_including_null_and_what_orjson_refuses():
    tournament, _ = started_round_robin(8)
    matches = list(Match.objects.filter(round__tournament=tournament).order_by("pk")[:3])
    records = [
        {"game": "stoppa", "actions": [{"type": "show", "cards": ["AD", "JD"]}], "deck": None, "note": "è già"},
        None,
        {1: "an int key, which json turns into a string"},
    ]
    bulk_set_rows(Match, ["record"], [(m.pk, r) for m, r in zip(matches, records)])
    assert [Match.objects.get(pk=m.pk).record for m in matches] == [
        records[0], None, {"1": "an int key, which json turns into a string"},
    ]


def test_model_instances_are_written_field_by_field():
    tournament, _ = started_round_robin(8)
    matches = list(Match.objects.filter(round__tournament=tournament).order_by("pk"))
    for i, match in enumerate(matches):
        match.lease_owner = f"worker-{i}"
        match.notes = [f"note {i}"]
    assert bulk_set(matches, ["lease_owner", "notes"]) == len(matches)
    assert [(m.lease_owner, m.notes) for m in Match.objects.filter(pk__in=[m.pk for m in matches]).order_by("pk")] == [
        (f"worker-{i}", [f"note {i}"]) for i in range(len(matches))
    ]
