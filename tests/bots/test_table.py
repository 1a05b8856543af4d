"""bots.table: a table rebuilt from its actions and forfeits plays on as the one that played
them; what waits for the network is named by step() and moved by act(); its stream of typed
events tells every move, log entry, forfeit and the end, each in JSON."""

from __future__ import annotations

import json

import pytest

import bots
import engine
from bots.base import BotFailure
from bots.runner import play_match
from bots.table import (
    BY_BOT,
    BY_FALLBACK,
    BY_SEAT,
    NETWORK,
    Forfeit,
    Forfeited,
    Fresh,
    Logged,
    Moved,
    Over,
    Table,
    decision_seed,
    forfeit_detail,
)

GAME, OPTIONS, SEED = "sette_e_mezzo", {"hands": 3}, 21


def fresh(seat: int) -> Fresh:
    return Fresh(lambda decision: bots.create("random", game=GAME, seed=decision_seed(SEED, seat, decision)))


def test_a_table_rebuilt_halfway_plays_on_as_the_one_played_in_one_go():
    whole = play_match(GAME, [fresh(s) for s in range(3)], seed=SEED, options=OPTIONS)
    actions = whole.state.actions
    half = len(actions) // 2
    table = Table(GAME, [fresh(s) for s in range(3)], seed=SEED, options=OPTIONS, actions=actions[:half])
    assert table.played == half and table.step() is None
    assert table.state.actions == actions and table.places() == list(whole.places)


def test_a_forfeited_seat_rebuilt_from_its_forfeit_is_played_by_the_same_fallback():
    whole = Table(GAME, [fresh(0), fresh(1), fresh(2)], seed=SEED, options=OPTIONS)
    whole.forfeit(1, "crash", "gone")
    whole.step()
    first_fallback = next(e.number for e in whole.events if isinstance(e, Moved) and e.by == BY_FALLBACK)
    cut = first_fallback + 3
    again = Table(GAME, [fresh(0), fresh(1), fresh(2)], seed=SEED, options=OPTIONS,
                  actions=whole.state.actions[:cut], forfeits={1: Forfeit("crash", "gone", 0)})
    again.step()
    assert again.state.actions == whole.state.actions
    assert again.places() == whole.places() and whole.places()[1] == 3


def test_a_seat_that_waits_for_the_network_stops_the_table_until_its_move_comes():
    table = Table(GAME, [NETWORK, fresh(1), fresh(2)], seed=SEED, options=OPTIONS)
    while (seat := table.step()) is not None:
        assert seat == 0 and table.awaited() == 0
        with pytest.raises(engine.IllegalAction):
            table.act(0, {"type": "no such move"})  # refused, not forfeited: the sender is told
        table.act(0, table.state.legal_actions()[0])
    assert table.state.is_over() and not table.forfeits
    assert {e.by for e in table.events if isinstance(e, Moved) and e.seat == 0} == {BY_SEAT}


def test_an_answer_the_engine_refuses_forfeits_the_seat_and_its_detail_is_cut_in_one_place():
    table = Table(GAME, [fresh(0), fresh(1), fresh(2)], seed=SEED, options=OPTIONS)
    seat = table.state.current_player()
    assert not table.answer(seat, {"type": "shout"})
    assert table.forfeits[seat].reason == "illegal"
    long = "x" * 5000 + " the end"
    table.answer((seat + 1) % 3, None, BotFailure("crash", long))
    assert table.forfeits[(seat + 1) % 3].detail == forfeit_detail(long) and forfeit_detail(long).endswith("the end")


def test_the_stream_tells_the_deal_every_move_the_forfeits_and_the_end_in_json():
    table = Table(GAME, [fresh(0), fresh(1), fresh(2)], seed=SEED, options=OPTIONS)
    table.forfeit(2, "timeout", "too slow")
    table.step()
    kinds = [e.kind for e in table.events]
    assert kinds[-1] == "over" and "forfeit" in kinds and "move" in kinds
    logged = [e for e in table.events if isinstance(e, Logged)]
    assert [e.index for e in logged] == list(range(len(table.state.log)))  # every entry, the deal's included
    assert sum(isinstance(e, Moved) for e in table.events) == len(table.state.actions)
    over = table.events[-1]
    assert isinstance(over, Over) and list(over.places) == table.places() and over.places[2] == 3
    forfeited = next(e for e in table.events if isinstance(e, Forfeited))
    assert forfeited.json() == {"kind": "forfeit", "seat": 2, "actions": 0, "reason": "timeout", "detail": "too slow"}
    assert json.loads(json.dumps([e.json() for e in table.events]))  # every event's JSON form is JSON
    assert {e.by for e in table.events if isinstance(e, Moved) and e.seat != 2} == {BY_BOT}


def test_the_events_since_a_mark_are_the_streams_tail_told_as_each_move_comes():
    """events_since(told) is what events holds after the mark, whether read move by move (a
    network seat's, as the replay does) or after forfeits and the fallback's moves."""
    whole = play_match(GAME, [fresh(s) for s in range(3)], seed=SEED, options=OPTIONS)
    table = Table(GAME, [NETWORK] * 3, seed=SEED, options=OPTIONS)
    read = table.events_since(0)
    assert read and all(isinstance(e, Logged) and e.actions == 0 for e in read)  # the deal
    for action in whole.state.actions:
        mark = table.told
        table.act(table.awaited(), action)
        new = table.events_since(mark)
        assert isinstance(new[0], Moved) and new[0].action == action
        read += [e for e in new if not isinstance(e, Over)]
    assert read + [table.events[-1]] == table.events and isinstance(table.events[-1], Over)
    forfeiting = Table(GAME, [NETWORK] * 3, seed=SEED, options=OPTIONS)
    forfeiting.act(forfeiting.awaited(), whole.state.actions[0])
    forfeiting.forfeit(1, "timeout", "too slow")
    forfeiting.forfeit(2, "crash", "gone")
    forfeiting.step(most=5)
    everything = forfeiting.events
    assert forfeiting.told > 1 + 1 + 2  # the deal, the move, the forfeits, then the fallback's moves
    for mark in range(forfeiting.told + 1):
        since = forfeiting.events_since(mark)
        assert since == everything[len(everything) - len(since):]
    assert forfeiting.events_since(forfeiting.told) == []  # not over: nothing told since
