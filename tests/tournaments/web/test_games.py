"""Every engine game is declared to the pages (tournaments/web/games/<game>.py, gathered by
tournaments/web/games/__init__.py), with every field, and an unknown name fails saying where
one goes. What the fields say is checked against the engine in test_replay.py (every event in
words, no seat told a card it did not see, every table drawn from what the seat sees, each
replay step's table, a hand's and a stage's end included)."""

from __future__ import annotations

import dataclasses
import random

import pytest

import engine
from tournaments import games as tournament_games
from tournaments.web import games
from tournaments.web.games.base import WebGame

FIELDS = {"name", "layout", "events", "actions", "hidden", "private", "opens", "hand_end", "undo", "held"}


def test_every_engine_game_and_only_they_have_a_web_declaration():
    assert set(games.GAMES) == set(engine.games())
    assert {module.__name__.rsplit(".", 1)[1] for module in games.MODULES} == set(engine.games())


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_a_declaration_has_every_field_and_each_is_sound(name):
    game = games.get(name)
    assert isinstance(game, WebGame) and game.name == name
    assert {f.name for f in dataclasses.fields(WebGame)} == FIELDS
    assert callable(game.layout) and callable(game.private)
    assert game.events and all(isinstance(k, str) and callable(say) for k, say in game.events.items())
    assert game.actions and all(isinstance(k, str) and callable(say) for k, say in game.actions.items())
    assert game.hidden
    for kind, fields in game.hidden.items():
        assert isinstance(kind, str) and isinstance(fields, tuple) and fields
        seats = game.private({"type": kind, "seat": 0})
        assert seats is None or isinstance(seats, tuple)
    assert callable(game.opens) and callable(game.hand_end) and callable(game.undo)
    assert isinstance(game.held, tuple) and all(isinstance(field, str) for field in game.held)


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_the_replays_fields_read_the_games_own_log(name):
    """``opens`` names a hand or a stage at events of the game's own log; a game that opens
    hands has an option that counts them (the replay cuts the match there); a game that opens
    stages undoes their openings in the fields it names in ``held``, a game without stages
    undoes nothing."""
    game = games.get(name)
    seen = set()
    for seed in range(2):
        state = engine.game(name).new_match(players=3, seed=seed)
        rng = random.Random(seed)
        while not state.is_over() and len(state.log) < 3000:
            state.apply(rng.choice(state.legal_actions()))
        log = state.log
        for index in range(len(log)):
            opened = game.opens(log, index)
            assert opened in ("hand", "stage", None)
            seen.add(opened)
    if "hand" in seen:
        assert tournament_games.get(name).counted_by
    if "stage" in seen:
        view = state.view(0)
        assert game.held and all(field in view for field in game.held)
    else:
        assert not game.held and game.undo({}, {"type": "deal"}, [], 0) is False


def test_a_declaration_may_leave_out_no_field():
    with pytest.raises(TypeError):
        WebGame(name="x", layout=lambda view, table: None)  # type: ignore[call-arg]


def test_an_unknown_game_fails_clearly_naming_where_its_declaration_goes():
    with pytest.raises(engine.UnknownGame) as err:
        games.get("briscola")
    assert "tournaments/web/games/briscola.py" in str(err.value)
    assert "tournaments/web/games/__init__.py" in str(err.value)
