"""Every engine game is declared to the pages (tournaments/web/games/<game>.py, gathered by
tournaments/web/games/__init__.py), with every field, and an unknown name fails saying where
one goes. What the fields say is checked against the engine in test_replay.py (every event in
words, no seat told a card it did not see, every table drawn from what the seat sees)."""

from __future__ import annotations

import dataclasses

import pytest

import engine
from tournaments.web import games
from tournaments.web.games.base import WebGame

FIELDS = {"name", "layout", "events", "actions", "hidden", "private"}


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


def test_a_declaration_may_leave_out_no_field():
    with pytest.raises(TypeError):
        WebGame(name="x", layout=lambda view, table: None)  # type: ignore[call-arg]


def test_an_unknown_game_fails_clearly_naming_where_its_declaration_goes():
    with pytest.raises(engine.UnknownGame) as err:
        games.get("briscola")
    assert "tournaments/web/games/briscola.py" in str(err.value)
    assert "tournaments/web/games/__init__.py" in str(err.value)
