"""The match runner: bots see only views, every failure is a forfeit, matches always end."""

from __future__ import annotations

import json
import random
import time

import pytest

import bots
import engine
from bots.base import Bot
from bots.runner import ForfeitPolicy, forfeit_places, play_match

from .helpers import GAME, play


class Failing(Bot):
    """Plays randomly, then at decision ``at`` fails in the way ``how`` says."""

    def __init__(self, game, seed=None, *, how="raise", at=0):
        super().__init__(game, seed)
        self.how, self.at, self.asked = how, at, 0

    def act(self, view):
        self.asked += 1
        if self.asked - 1 == self.at:
            if self.how == "raise":
                raise RuntimeError("bug in my bot")
            if self.how == "illegal":
                return {"type": "stake", "amount": 10_000}
            if self.how == "malformed":
                return "stand"
            if self.how == "unhashable":
                return {"type": ["stand"]}
            if self.how == "slow":
                time.sleep(0.05)
        return self.rng.choice(view["legal_actions"])


class Recording(Bot):
    """Remembers everything it is handed."""

    def __init__(self, game, seed=None):
        super().__init__(game, seed)
        self.calls = []

    def start(self, seat, view):
        self.calls.append(("start", seat, view))

    def act(self, view):
        self.calls.append(("act", view))
        return self.rng.choice(view["legal_actions"])

    def finish(self, seat, view):
        self.calls.append(("finish", seat, view))


def randoms(n, seed=0):
    return [bots.create("random", game=GAME, seed=seed * 10 + s) for s in range(n)]


def test_a_bot_is_handed_only_json_views_of_its_own_seat_and_hooks_at_both_ends():
    table = randoms(3)
    table[1] = watcher = Recording(GAME, seed=1)
    outcome = play(table)
    kinds = [c[0] for c in watcher.calls]
    assert kinds[0] == "start" and kinds[-1] == "finish"
    assert kinds.count("act") == outcome.decisions[1] > 0
    for call in watcher.calls:
        view = call[-1]
        assert json.loads(json.dumps(view)) == view  # plain JSON: no State, nothing live
        assert view["seat"] == 1
    assert all(c[1] == 1 for c in watcher.calls if c[0] != "act")


def test_a_bot_that_mutates_its_view_cannot_change_the_match():
    class Vandal(Bot):
        def act(self, view):
            for action in view["legal_actions"]:
                action["type"] = "vandalised"
            return dict(view["legal_actions"][0])

    outcome = play([Vandal(GAME, 1), *randoms(2)])
    assert outcome.forfeits[0].reason == "illegal"  # its own action was the vandalised one
    assert outcome.state.is_over()
    replayed = engine.load(outcome.state.to_json())
    assert replayed.scores() == list(outcome.scores)


@pytest.mark.parametrize(
    "how, reason",
    [("raise", "exception"), ("illegal", "illegal"), ("malformed", "malformed"),
     ("unhashable", "malformed")],
)
def test_an_in_process_bot_that_fails_is_forfeited_and_the_match_completes(how, reason):
    table = randoms(3)
    table[2] = Failing(GAME, seed=4, how=how, at=1)
    outcome = play(table)
    assert outcome.state.is_over()
    assert outcome.forfeits[2].reason == reason
    assert outcome.forfeits[2].at_decision == 1
    assert outcome.places[2] == 3


def test_an_exception_forfeit_says_the_exception_and_not_where_the_code_runs():
    # A forfeit's detail is shown to the bot's owner: the bot's own words, never a traceback
    # naming the files of the code that ran it.
    table = [Failing(GAME, seed=4, how="raise", at=0), *randoms(2)]
    detail = play(table).forfeits[0].detail
    assert detail == "RuntimeError: bug in my bot"


def test_the_decision_limit_of_the_policy_applies_to_in_process_bots():
    table = [Failing(GAME, seed=4, how="slow", at=0), *randoms(2)]
    outcome = play(table, policy=ForfeitPolicy(decision_limit=0.01, overrun=0.0))
    assert outcome.forfeits[0].reason == "timeout"
    assert "allowance of 0.010 s" in outcome.forfeits[0].detail


class Timed(Bot):
    """Plays randomly, noting the time it was allowed at each decision, and sleeping
    ``sleep`` seconds at each."""

    def __init__(self, game, seed=None, *, sleep=0.0):
        super().__init__(game, seed)
        self.sleep, self.allowed = sleep, []

    def act(self, view):
        self.allowed.append(None if self.deadline is None else self.deadline - time.monotonic())
        time.sleep(self.sleep)
        return self.rng.choice(view["legal_actions"])


def test_an_in_process_bot_is_told_each_decisions_allowance_and_its_match_time_runs_down():
    bot = Timed(GAME, seed=4, sleep=0.02)
    outcome = play([bot, *randoms(2)], policy=ForfeitPolicy(decision_limit=0.05, match_limit=0.09, overrun=1.0))
    assert not outcome.forfeits and len(bot.allowed) >= 5
    assert 0 < bot.allowed[0] <= 0.05  # the decision's limit, the match's time being longer
    assert bot.allowed[-1] <= 0.0  # the match's 0.09 s spent at 0.02 s a decision: none left
    assert all(a >= b - 0.005 for a, b in zip(bot.allowed, bot.allowed[1:]))


def test_a_decision_past_its_allowance_within_the_grace_is_no_forfeit():
    bot = Timed(GAME, seed=4, sleep=0.03)
    outcome = play([bot, *randoms(2)], policy=ForfeitPolicy(decision_limit=0.01, overrun=0.5))
    assert not outcome.forfeits


def test_a_bot_with_no_match_time_left_past_the_grace_is_forfeited_on_time():
    bot = Timed(GAME, seed=4, sleep=0.06)
    outcome = play([bot, *randoms(2)], policy=ForfeitPolicy(match_limit=0.2, overrun=0.05))
    assert outcome.forfeits[0].reason == "timeout"
    assert outcome.forfeits[0].at_decision >= 2  # the first decisions were in its time


def test_the_policys_time_limits_are_not_an_external_bots():
    bot = Timed(GAME, seed=4, sleep=0.03)
    bot.clocked = True  # keeps its own time, as bots.external's transports do
    outcome = play([bot, *randoms(2)], policy=ForfeitPolicy(decision_limit=0.01, overrun=0.0))
    assert not outcome.forfeits
    assert bot.allowed[0] is None  # and is given no deadline


def test_when_the_policy_does_not_rank_forfeits_last_the_engine_places_stand():
    table = [Failing(GAME, seed=4, how="raise", at=0), *randoms(2)]
    outcome = play(table, policy=ForfeitPolicy(rank_last=False))
    assert 0 in outcome.forfeits
    assert list(outcome.places) == outcome.state.places()


def test_the_policy_chooses_the_fallback_bot():
    with pytest.raises(ValueError, match="no bot 'nobody'"):
        play([Failing(GAME, how="raise"), *randoms(2)], policy=ForfeitPolicy(fallback="nobody"))


def test_a_match_is_the_same_for_the_same_seed_and_bots():
    a = play(randoms(4, seed=3), seed=11)
    b = play(randoms(4, seed=3), seed=11)
    assert a.state.to_json() == b.state.to_json()
    assert a.places == b.places


def test_random_failures_always_end_in_a_complete_match_with_forfeits_last():
    """Property: whatever fails and when, the match ends, only failing seats are
    forfeited, they rank after every other seat, and the rest keep the engine's order."""
    hows = ["raise", "illegal", "malformed", "unhashable", None]
    for case in range(150):
        rng = random.Random(case)
        n = rng.randint(3, 6)
        table, failing = [], set()
        for seat in range(n):
            how = rng.choice(hows)
            if how is None:
                table.append(bots.create("random", game=GAME, seed=case * 7 + seat))
            else:
                table.append(Failing(GAME, seed=seat, how=how, at=rng.randint(0, 3)))
        outcome = play_match(GAME, table, seed=case, options={"hands": rng.randint(1, 3)})
        assert outcome.state.is_over()
        assert set(outcome.forfeits) <= {s for s, b in enumerate(table) if isinstance(b, Failing)}
        failing = {s for s, b in enumerate(table) if isinstance(b, Failing) and b.asked > b.at}
        assert set(outcome.forfeits) == failing
        engine_places = outcome.state.places()
        kept = [s for s in range(n) if s not in failing]
        for s in failing:
            assert all(outcome.places[s] > outcome.places[k] for k in kept)
        for a in kept:
            for b in kept:
                if engine_places[a] < engine_places[b]:
                    assert outcome.places[a] < outcome.places[b]
                if engine_places[a] == engine_places[b]:
                    assert outcome.places[a] == outcome.places[b]
        assert engine.load(outcome.state.to_json()).scores() == list(outcome.scores)


def test_forfeit_places_put_forfeited_seats_after_the_rest_sharing_their_place():
    assert forfeit_places([1, 2, 3, 4], [0]) == [4, 1, 2, 3]
    assert forfeit_places([1, 1, 3, 4], [3, 0]) == [3, 1, 2, 3]
    assert forfeit_places([2, 1, 2], []) == [2, 1, 2]
