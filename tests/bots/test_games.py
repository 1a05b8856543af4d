"""Every engine game is declared to the bots layer (bots/games.py: ``GAME`` in each
bots/<game>_bots.py), with every field, and an unknown name fails saying where one goes."""

from __future__ import annotations

import dataclasses

import pytest

import bots
import engine
from bots import games
from bots.ismcts import searchable_games
from bots.tuning import GameBots, Search


def test_every_engine_game_and_only_they_have_a_bots_declaration():
    assert set(games.GAMES) == set(engine.games())


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_a_declaration_has_every_field_and_each_is_sound(name):
    game = games.get(name)
    assert isinstance(game, GameBots) and game.name == name
    assert {f.name for f in dataclasses.fields(GameBots)} == {"name", "heuristic", "bots", "search"}
    assert isinstance(game.heuristic, type) and issubclass(game.heuristic, bots.Bot)
    assert all(isinstance(n, str) and callable(f) for n, f in game.bots.items())
    search = game.search
    assert isinstance(search, Search)
    assert isinstance(search.delegate, tuple) and all(isinstance(p, str) for p in search.delegate)
    assert search.horizon in ("hand", "match") and search.mode in ("tree", "paired")
    assert isinstance(search.horizon_field, str) and search.guard >= 0
    assert search.depth is None or search.depth >= 1
    for hook in (search.candidates, search.estimate, search.consistent):
        assert hook is None or callable(hook)


def test_a_declaration_may_leave_out_no_field():
    with pytest.raises(TypeError):
        Search(delegate=(), horizon="hand", horizon_field="hand", guard=0.0, mode="tree")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        GameBots(name="x", heuristic=bots.RandomBot, bots={})  # type: ignore[call-arg]


def test_the_heuristic_and_a_games_own_bots_are_registered_for_that_game_alone():
    own = [name for game in games.GAMES.values() for name in game.bots]
    assert len(own) == len(set(own))  # one game per own bot
    for name, game in games.GAMES.items():
        assert "heuristic" in bots.available(name)
        for bot in game.bots:
            assert [g for g in engine.games() if bot in bots.available(g)] == [name]
    assert "ismcts" in bots.available(searchable_games()[0])


def test_an_unknown_game_fails_clearly_naming_where_its_declaration_goes():
    with pytest.raises(engine.UnknownGame) as err:
        games.get("briscola")
    assert "bots/briscola_bots.py" in str(err.value) and "bots/games.py" in str(err.value)
    with pytest.raises(engine.UnknownGame):
        bots.create("ismcts", game="briscola", seed=1)
