"""Every engine game is declared to the tournament layer (tournaments/games/<game>.py, gathered by
tournaments/games/__init__.py), with every field, and an unknown name fails saying where one goes.
What each field holds is checked where it is used (test_limits.py: the option bounds, phases
and ismcts's ceilings against the engine, the docs and the bots)."""

from __future__ import annotations

import dataclasses

import pytest

import engine
from tournaments import games
from tournaments.games.base import FRENCH, ITALIAN, Bound, EngineFigure, TournamentGame

FIELDS = {"name", "display_name", "option_bounds", "engine_bounded", "options_problem", "phases",
          "ismcts_iterations", "counted_by", "deck", "engine_figure"}


def test_every_engine_game_and_only_they_have_a_tournament_declaration():
    assert set(games.GAMES) == set(engine.games())
    assert {module.__name__.rsplit(".", 1)[1] for module in games.MODULES} == set(engine.games())


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_a_declaration_has_every_field_and_each_is_sound(name):
    game = games.get(name)
    assert isinstance(game, TournamentGame) and game.name == name
    assert {f.name for f in dataclasses.fields(TournamentGame)} == FIELDS
    assert game.display_name and game.display_name == engine.game(name).title.split(" (")[0]
    assert all(isinstance(b, Bound) and b.low <= b.high and b.why for b in game.option_bounds.values())
    assert all(isinstance(what, str) and what for what in game.engine_bounded.values())
    defaults = engine.game(name).resolve_options(engine.game(name).min_players, {})
    assert game.options_problem(defaults) is None
    assert isinstance(game.phases, tuple)
    assert game.ismcts_iterations is None or game.ismcts_iterations >= 1
    assert game.counted_by is None or game.counted_by in engine.game(name).options
    assert game.deck(None) in (ITALIAN, FRENCH) and game.deck(defaults) in (ITALIAN, FRENCH)
    figure = game.engine_figure
    assert isinstance(figure, EngineFigure) and figure.measure in ("hands/s", "decisions/s")
    assert engine.game(name).min_players <= figure.players <= engine.game(name).max_players


def test_a_declaration_may_leave_out_no_field():
    with pytest.raises(TypeError):
        TournamentGame(name="x", display_name="X")  # type: ignore[call-arg]


def test_an_unknown_game_fails_clearly_naming_where_its_declaration_goes():
    with pytest.raises(engine.UnknownGame) as err:
        games.get("briscola")
    assert "tournaments/games/briscola.py" in str(err.value) and "tournaments/games/__init__.py" in str(err.value)
