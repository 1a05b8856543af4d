"""`manage.py demo`: the main job on the embedded defaults. Built-in bots play a Stoppa Swiss
tournament at tables of four, through the same services, ratings and standings as any
tournament; it ends with the standings (with their tie-breaks) and the leaderboard."""

from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

import bots


class Command(BaseCommand):
    help = "Run a Stoppa Swiss tournament of built-in bots and print standings and leaderboard."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
        parser.add_argument("--rounds", type=int, default=5, help="Swiss rounds (default 5)")

    def handle(self, *args: Any, seed: int, rounds: int, **options: Any) -> None:
        available = bots.available("stoppa")
        # Random players, and the rule-based ones where they exist: 12 entrants, 3 tables.
        field = ["random:6", "heuristic:6"] if "heuristic" in available else ["random:12"]
        call_command(
            "run_tournament", "stoppa", "--bots", *field, "--format", "swiss",
            "--format-option", f"rounds={rounds}", "--table-size", "4", "--seed", str(seed),
            "--name", f"Stoppa Swiss demo (seed {seed})", "--ladder", "demo-stoppa",
            stdout=self.stdout,
        )
