from io import StringIO

import pytest
from django.core.management import call_command

from tournaments.management.commands.play_match import format_event, split_hands
from tournaments.models import Tournament


def test_an_event_prints_as_its_type_then_its_fields():
    event = {"type": "bust", "seat": 2, "cards": ["7B", "5C"], "paid": 3}
    assert format_event(event) == "bust: seat=2 cards=[7B 5C] paid=3"


def test_an_event_with_only_a_type_prints_as_its_type():
    assert format_event({"type": "match_over"}) == "match_over"


def test_hands_are_split_where_the_hand_number_changes():
    log = [{"type": "start", "hand": 1}, {"type": "stand"}, {"type": "start", "hand": 2}, {"type": "stand"}]
    assert split_hands(log) == [log[:2], log[2:]]


def test_a_hand_field_holding_cards_is_not_taken_for_a_hand_number():
    log = [{"type": "deal"}, {"type": "show", "hand": ["7B"]}, {"type": "deal"}, {"type": "stand"}]
    assert split_hands(log) == [log[:2], log[2:]]


def test_a_log_without_recognisable_hands_is_one_group():
    log = [{"type": "a"}, {"type": "b"}]
    assert split_hands(log) == [log]


def test_play_match_prints_a_seeded_match_to_the_end():
    out = StringIO()
    call_command("play_match", "sette_e_mezzo", "random", "random", "random", "random", "--option", "hands=2",
                 seed=3, stdout=out)
    text = out.getvalue()
    assert "Hand 2" in text
    assert "Final result" in text
    assert "first dealer" in text


@pytest.mark.django_db
def test_the_demo_runs_a_stoppa_tournament_to_its_standings_and_leaderboard():
    out = StringIO()
    call_command("demo", rounds=2, stdout=out)
    text = out.getvalue()
    assert Tournament.objects.get().status == Tournament.Status.FINISHED
    assert "Standings" in text and "Leaderboard" in text
    assert "1." in text  # the explanation of first place


@pytest.mark.django_db
def test_the_demo_run_again_shows_the_same_tournament_and_rates_nothing_twice():
    from tournaments.models import RatingChange

    call_command("demo", rounds=2, stdout=StringIO())
    ledger = RatingChange.objects.count()
    out = StringIO()
    call_command("demo", rounds=2, stdout=out)
    assert Tournament.objects.count() == 1
    assert RatingChange.objects.count() == ledger
    assert "is finished" in out.getvalue() and "Standings" in out.getvalue()
    assert "--seed 2 plays another" in out.getvalue()


def bar_updates(monkeypatch) -> list[tuple[int, int]]:
    """(completed, total) of the progress bar each time a command moves it."""
    from rich.progress import Progress

    seen: list[tuple[int, int]] = []
    update = Progress.update

    def noted(self, task_id, **fields):
        update(self, task_id, **fields)
        task = self._tasks[task_id]
        if task.total is not None:
            seen.append((int(task.completed), int(task.total)))

    monkeypatch.setattr(Progress, "update", noted)
    return seen


@pytest.mark.django_db
def test_the_demos_progress_counts_every_round_s_matches_and_ends_full(monkeypatch):
    """Issue 28: the bar ended at "15/3" (its total was round 1's tables)."""
    seen = bar_updates(monkeypatch)
    out = StringIO()
    call_command("demo", rounds=3, stdout=out)
    assert "9/9" in out.getvalue() and "/3 " not in out.getvalue()
    assert seen[0] == (0, 9)  # a Swiss's rounds are known ahead: 3 rounds of 3 tables
    assert all(done <= total for done, total in seen) and seen[-1] == (9, 9)


@pytest.mark.django_db
def test_an_eliminations_progress_never_runs_past_its_total_and_ends_full(monkeypatch):
    seen = bar_updates(monkeypatch)
    out = StringIO()
    call_command("run_tournament", "piazza", "--bots", "random:16", "--format", "single_elimination",
                 "--table-size", "2", "--seed", "3", stdout=out)
    assert all(done <= total for done, total in seen) and seen[-1] == (15, 15)  # 8 + 4 + 2 + 1 tables
    assert "15/15" in out.getvalue()
