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
    blank = lines.index("")
    assert sorted(line.split()[0] for line in lines[2:blank]) == TRIO
    # then the paired differences, every two bots once, higher-ranked first
    assert lines[blank + 1].startswith("paired (per deal)")
    pairs = [line.split()[:3] for line in lines[blank + 2:]]
    assert len(pairs) == 3 and {frozenset((a, b)) for a, _, b in pairs} == \
        {frozenset(p) for p in (TRIO[:2], TRIO[1:], TRIO[::2])}


def test_the_command_names_an_unknown_bot_without_a_traceback():
    done = run_cli(GAME, "random", "random", "nobody", "--matches", "1", "--no-progress")
    assert done.returncode == 2
    assert "no bot 'nobody'" in done.stderr and "Traceback" not in done.stderr


def result(deal, entries, scores):
    n = len(entries)
    return arena._Result(deal=deal, entries=entries, scores=scores, places=(1,) * n,
                         decisions=(1,) * n, decision_time=(0.0,) * n, forfeits=())


def test_the_paired_difference_is_the_mean_of_per_deal_differences_with_its_t_interval():
    # Table A B B in duplicate: per deal and bot, the mean over its seats and rotations.
    table = ("A", "B", "B")
    rotations = [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    per_deal = {0: (9, 3), 1: (4, 3), 2: (12, 7)}  # (A's seat score, each B seat's score)
    results = []
    for deal, (a, b) in per_deal.items():
        for r, entries in enumerate(rotations):
            # B's two seats differ (b - r, b + r) but average to b; A's seat varies by rotation
            # around a: +1, -2, +1.
            bs = iter((b - r, b + r))
            scores = tuple(a + (1, -2, 1)[r] if table[e] == "A" else next(bs) for e in entries)
            results.append(result(deal, entries, scores))
    report = arena._report("g", table, 0, True, 3, results, 0.0)
    pair = report.pair("A", "B")
    # differences 6, 1, 5: mean 4, sample sd sqrt(7), t(2 df) = 4.303
    half = 4.303 * math.sqrt(7) / math.sqrt(3)
    assert (pair.units, pair.mean) == (3, pytest.approx(4))
    assert (pair.ci_low, pair.ci_high) == (pytest.approx(4 - half), pytest.approx(4 + half))
    assert report.pair("B", "A").mean == pytest.approx(-4)
    assert report.pair("B", "A").ci_low == pytest.approx(-4 - half)
    assert report.pairs[0].a == "A"  # the higher-ranked bot first


def test_the_paired_interval_sees_a_steady_edge_that_per_bot_intervals_miss():
    # Not zero-sum: what a deal gives everyone swings widely, A always gets 1 more than B.
    results = []
    for deal, base in enumerate((10, 40, 25, 5, 33)):
        results.append(result(deal, (0, 1), (base + 1, base)))
        results.append(result(deal, (1, 0), (base, base + 1)))
    report = arena._report("g", ("A", "B"), 0, True, 5, results, 0.0)
    a, b = report.bot("A"), report.bot("B")
    assert a.ci_low < b.ci_high  # the per-bot intervals overlap ...
    pair = report.pair("A", "B")
    assert pair.mean == pytest.approx(1) and pair.ci_low == pytest.approx(1)  # ... this does not
    assert "A − B" in report.format() and "+1.000  [+1.000, +1.000]" in report.format()


def test_without_duplicate_the_paired_unit_is_the_match():
    results = [result(0, (0, 1), (3, 1)), result(1, (1, 0), (0, 2)), result(2, (0, 1), (5, 5))]
    report = arena._report("g", ("A", "B"), 0, False, 3, results, 0.0)
    pair = report.pair("A", "B")
    assert pair.units == 3 and pair.mean == pytest.approx((2 + 2 + 0) / 3)


def test_bot_options_on_the_command_line():
    assert arena.bot_options("ismcts@40") == ("ismcts", {"iterations": 40})
    assert arena.bot_options("ismcts:time_ms=200,guard=0,rollout=random") == \
        ("ismcts", {"time_ms": 200, "guard": 0, "rollout": "random"})
    assert arena.bot_options('ismcts:delegate=["bet","showdown"],depth=3') == \
        ("ismcts", {"delegate": ["bet", "showdown"], "depth": 3})
    assert arena.bot_options("heuristic") == ("heuristic", {})
    bot = arena.make_bot("ismcts@3#x", GAME, "s")
    assert bot.iterations == 3
    with pytest.raises(ValueError):
        arena.bot_options("ismcts@lots")
    with pytest.raises(ValueError):
        arena.bot_options("ismcts:fast")


def test_the_command_takes_a_budgeted_bot_and_refuses_an_unknown_option():
    done = run_cli(GAME, "ismcts@2", "random", "random", "--matches", "1", "--duplicate",
                   "--option", "hands=1", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "ismcts@2 − random" in done.stdout or "random − ismcts@2" in done.stdout
    done = run_cli(GAME, "ismcts:no_such=1", "random", "random", "--matches", "1",
                   "--no-progress")
    assert done.returncode == 2 and "Traceback" not in done.stderr
