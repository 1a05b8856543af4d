"""Shared pieces of the bot tests: a short Sette e mezzo match, the misbehaving bot, and whole
matches played by one bot at every seat."""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import bots
import engine
from bots.runner import MatchOutcome, play_match

GAME = "sette_e_mezzo"
OPTIONS = {"hands": 3}  # short matches: every seat still decides several times
ROOT = Path(__file__).resolve().parents[2]
MISBEHAVE = Path(__file__).with_name("misbehave.py")
# Generous start-up (a loaded 2-core machine starts Python slowly), tight decisions.
FAST = {"startup": 10.0, "decision": 0.5, "bank": 0.5, "memory_mb": 256}


def misbehaving(mode: str, after: int = 0, **limits) -> bots.Bot:
    """A subprocess bot that plays ``after`` legal decisions, then does ``mode``."""
    marker = f"marker-{uuid.uuid4().hex}"
    bot = bots.create(
        "subprocess", game=GAME, seed=1,
        command=[sys.executable, str(MISBEHAVE), mode, str(after), marker],
        limits={**FAST, **limits},
    )
    bot.marker = marker
    return bot


def table_with(bot: bots.Bot, seat: int = 0, players: int = 3) -> list[bots.Bot]:
    table = [bots.create("random", game=GAME, seed=s) for s in range(players)]
    table[seat] = bot
    return table


def play(players: list, seed: int = 7, **kwargs) -> MatchOutcome:
    return play_match(GAME, players, seed=seed, options=OPTIONS, **kwargs)


def running(marker: str) -> list[int]:
    """Pids of live processes whose command line holds ``marker``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(pid))
    return found


def assert_legal_over_whole_matches(bot: bots.Bot, game: str, matches: int, *, players, options) -> None:
    """``bot`` plays every seat of ``matches`` seeded matches (match s: ``players(s)`` players,
    ``options(s)``) to the end, answering only legal actions."""
    rules = engine.game(game)
    for seed in range(matches):
        state = rules.new_match(players(seed), seed=seed, options=options(seed))
        while not state.is_over():
            action = bot.act(state.view(state.current_player()))
            assert action in state.legal_actions()
            state.apply(action)
