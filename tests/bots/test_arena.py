"""The arena: reports that add up, duplicate deals, processes, and the command line."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from bots import arena

from .helpers import GAME, MISBEHAVE, OPTIONS, ROOT

TRIO = ["random#a", "random#b", "random#c"]


def small(**kwargs):
    kwargs.setdefault("matches", 8)
    return arena.run(GAME, kwargs.pop("bots", TRIO), seed=kwargs.pop("seed", 3),
                     options=OPTIONS, **kwargs)


def test_a_duplicate_report_of_a_zero_sum_game_adds_up():
    report = small(duplicate=True)
    assert report.matches == 8 * 3 and report.deals == 8
    assert {b.name for b in report.bots} == set(TRIO)
    # Sette e mezzo is zero-sum and every bot holds every seat of every deal
    assert sum(b.mean * b.seats for b in report.bots) == pytest.approx(0, abs=1e-9)
    assert sum(b.first_share for b in report.bots) == pytest.approx(1)
    for b in report.bots:
        assert b.ci_low <= b.mean <= b.ci_high
        assert b.decisions > 0 and b.forfeits == {}


def test_in_duplicate_copies_of_one_bot_tie_exactly_because_the_luck_cancels():
    # A bot's seed follows the seat and the deal, so copies of one bot replay each other's
    # choices in every rotation: whatever separates two bots in duplicate is their play.
    report = small(duplicate=True)
    assert all(b.mean == 0 and b.ci_low == b.ci_high == 0 for b in report.bots)
    assert {round(b.first_share, 9) for b in report.bots} == {round(1 / 3, 9)}


def test_in_duplicate_every_bot_holds_every_seat_of_every_deal():
    tasks = arena._tasks(GAME, tuple(TRIO), 5, 1, True, None, None, arena.ForfeitPolicy())
    held = {(t.seed, seat, t.specs[seat]) for t in tasks for seat in range(3)}
    assert len(tasks) == 15 and len(held) == 5 * 3 * 3
    assert len({t.seed for t in tasks}) == 5


def test_repeated_names_are_one_bot_holding_several_seats():
    report = small(bots=["random", "random#x"], players=4)
    assert {b.name: b.seats for b in report.bots} == {"random": 2, "random#x": 2}
    assert sum(b.mean * b.seats for b in report.bots) == pytest.approx(0, abs=1e-9)


def test_the_same_seed_gives_the_same_report_with_one_process_or_two():
    one = small(matches=6)
    two = small(matches=6, jobs=2)
    assert [(b.name, b.mean, b.first_share) for b in one.bots] == \
        [(b.name, b.mean, b.first_share) for b in two.bots]


def test_forfeits_are_counted_per_bot_and_reason():
    bad = f"subprocess:{sys.executable} {MISBEHAVE} garbage 0"
    report = small(bots=["random#a", "random#b", bad], matches=2, limits={"startup": 10.0})
    assert report.bot(bad).forfeits == {"malformed": 2}
    assert report.bot("random#a").forfeits == {}


def test_the_confidence_interval_is_students_t():
    mean, low, high = arena.mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert high - mean == pytest.approx(3.182 * 1.2909944 / 2, rel=1e-4)
    assert arena.mean_ci([5.0])[1] == -math.inf


def test_bad_arguments_are_refused_before_playing():
    with pytest.raises(ValueError):
        arena.run(GAME, ["random", "random"], matches=1)  # Sette e mezzo needs 3 players
    with pytest.raises(ValueError):
        arena.run(GAME, TRIO, matches=1, options={"no_such_option": 1})


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "bots.arena", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_the_command_prints_a_row_per_bot():
    done = run_cli(GAME, *TRIO, "--matches", "3", "--duplicate", "--seed", "9",
                   "--option", "hands=2", "--no-progress")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "9 matches (3 deals × 3 rotations)" in lines[0]
    assert "95% CI" in lines[1]
    assert sorted(line.split()[0] for line in lines[2:]) == TRIO


def test_the_command_names_an_unknown_bot_without_a_traceback():
    done = run_cli(GAME, "random", "random", "nobody", "--matches", "1", "--no-progress")
    assert done.returncode == 2
    assert "no bot 'nobody'" in done.stderr and "Traceback" not in done.stderr
