"""The engine contract (shared/design/engine.md), checked the same way for every game."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine import IllegalAction, InvalidOptions, UnknownGame

GAMES = sorted(engine.games())


def table_sizes(game):
    return sorted({game.min_players, (game.min_players + game.max_players) // 2, game.max_players})


def play_randomly(state, rng, limit=None):
    steps = 0
    while not state.is_over() and (limit is None or steps < limit):
        state.apply(rng.choice(state.legal_actions()))
        steps += 1
    return state


def test_games_are_registered_by_name():
    assert set(engine.games()) >= {"sette_e_mezzo"}
    for name, game in engine.games().items():
        assert engine.game(name) is game
        assert game.name == name and game.title
        assert 2 <= game.min_players <= game.max_players


def test_an_unknown_game_lists_the_valid_names():
    with pytest.raises(UnknownGame, match="sette_e_mezzo"):
        engine.game("briscola")
    assert issubclass(UnknownGame, ValueError)


@pytest.mark.parametrize("name", GAMES)
def test_default_options_are_valid_options(name):
    game = engine.game(name)
    defaults = game.default_options(game.min_players)
    assert "dealer" in defaults
    explicit = game.new_match(players=game.min_players, seed=1, options=defaults)
    implicit = game.new_match(players=game.min_players, seed=1)
    assert explicit.options == implicit.options
    with pytest.raises(InvalidOptions, match="no_such_option"):
        game.new_match(players=game.min_players, seed=1, options={"no_such_option": 1})
    with pytest.raises(InvalidOptions, match="players"):
        game.new_match(players=game.max_players + 1, seed=1)


@pytest.mark.parametrize("name", GAMES)
def test_random_matches_end_with_consistent_results(name):
    game = engine.game(name)
    for players in table_sizes(game):
        for seed in range(8):
            state = play_randomly(game.new_match(players=players, seed=seed), random.Random(seed))
            scores, places, ranking = state.scores(), state.places(), state.ranking()
            assert len(scores) == len(places) == players
            assert sorted(ranking) == list(range(players))
            assert 1 in places
            assert [places[s] for s in ranking] == sorted(places)
            assert state.legal_actions() == [] and state.current_player() is None
            assert game.places(scores) == places  # what a service checks reported results with
            if game.zero_sum:
                assert sum(scores) == 0, (players, seed, scores)


@pytest.mark.parametrize("name", GAMES)
def test_a_replay_from_json_reproduces_the_match(name):
    game = engine.game(name)
    for players in table_sizes(game):
        state = play_randomly(game.new_match(players=players, seed=players), random.Random(players))
        data = json.loads(json.dumps(state.to_json()))
        assert data["game"] == name and data["players"] == players
        again = engine.load(data)
        assert again.log == state.log
        assert again.scores() == state.scores()
        also = engine.replay(name, players=players, seed=data["seed"], options=data["options"],
                             deck=data["deck"], actions=data["actions"])
        assert also.log == state.log


@pytest.mark.parametrize("name", GAMES)
def test_the_same_seed_and_actions_give_the_same_match(name):
    game = engine.game(name)
    a = play_randomly(game.new_match(players=game.min_players, seed="club night"), random.Random(5))
    b = play_randomly(game.new_match(players=game.min_players, seed="club night"), random.Random(5))
    assert a.log == b.log


@pytest.mark.parametrize("name", GAMES)
def test_a_clone_is_independent_of_its_original(name):
    game = engine.game(name)
    rng = random.Random(3)
    state = play_randomly(game.new_match(players=game.min_players, seed=3), rng, limit=15)
    before = json.dumps([state.to_json(), state.log, state.view(None)])
    copy = state.clone()
    play_randomly(copy, random.Random(4))
    assert json.dumps([state.to_json(), state.log, state.view(None)]) == before
    assert copy.is_over()
    # and the original plays on exactly like a fresh replay of itself
    replayed = engine.load(state.to_json())
    play_randomly(state, random.Random(6))
    play_randomly(replayed, random.Random(6))
    assert state.log == replayed.log


@pytest.mark.parametrize("name", GAMES)
def test_a_non_action_is_refused_without_change(name):
    game = engine.game(name)
    state = play_randomly(game.new_match(players=game.min_players, seed=9), random.Random(9), limit=5)
    before = json.dumps(state.to_json())
    for bad in (None, "pass", {"no": "type"}, {"type": "teleport"}):
        with pytest.raises(IllegalAction):
            state.apply(bad)
    assert json.dumps(state.to_json()) == before


@pytest.mark.parametrize("name", GAMES)
def test_a_legal_action_with_a_key_too_many_is_refused_naming_the_key_and_shown_as_json(name):
    """A client that adds a key (``{"type": "pass", "amount": 0}``) is told which key, and what
    the legal action is, both written as the JSON it sent: not another rule, nor a Python repr."""
    game = engine.game(name)
    rng = random.Random(3)
    for seed in range(30):
        state = play_randomly(game.new_match(players=game.min_players, seed=seed), rng, limit=rng.randrange(30))
        if state.is_over():
            continue
        legal = rng.choice(state.legal_actions())
        before = json.dumps(state.to_json())
        sent = {**legal, "note": "hi"}
        with pytest.raises(IllegalAction) as refused:
            state.apply(sent)
        assert str(refused.value) == (f"{json.dumps(sent, ensure_ascii=False)}: '{legal['type']}' takes no 'note' "
                                      f"now (legal: {json.dumps(legal, ensure_ascii=False)})")
        assert json.dumps(state.to_json()) == before


def test_stoppas_pass_with_an_amount_is_refused_for_its_amount_not_as_no_betting_action():
    state = engine.game("stoppa").new_match(players=4, seed=1)
    assert {"type": "pass"} in state.legal_actions()
    with pytest.raises(IllegalAction) as refused:
        state.apply({"type": "pass", "amount": 0})
    assert str(refused.value) == '{"type": "pass", "amount": 0}: \'pass\' takes no \'amount\' now (legal: {"type": "pass"})'
    with pytest.raises(IllegalAction, match=r'^\{"type": "fold"\} is not a betting action'):
        state.apply({"type": "fold"})


@pytest.mark.parametrize("name", GAMES)
def test_views_are_json_ready_for_every_seat_and_spectators(name):
    game = engine.game(name)
    rng = random.Random(2)
    state = game.new_match(players=game.min_players, seed=2)
    for _ in range(40):
        if state.is_over():
            break
        for seat in [None, *range(state.players)]:
            view = state.view(seat)
            json.dumps(view)
        assert state.view(state.current_player())["legal_actions"] == state.legal_actions()
        state.apply(rng.choice(state.legal_actions()))


# --------------------------------------------------------------------------- results


def test_places_rank_higher_scores_first_and_share_equal_ones():
    for game in engine.games().values():
        assert game.places([-50, 0, 0, 50]) == [4, 2, 2, 1]
        assert game.places([7, 7, 7]) == [1, 1, 1]
        assert game.places((3, -1)) == [1, 2]


def test_the_chip_games_are_zero_sum_and_the_point_games_are_not():
    zero_sum = {name for name, game in engine.games().items() if game.zero_sum}
    assert zero_sum == {"stoppa", "sette_e_mezzo"}
    assert engine.Game.zero_sum is False  # a new game says so explicitly to be checked as one
