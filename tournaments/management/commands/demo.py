"""`manage.py demo`: the main job on the embedded defaults. Built-in bots play a Stoppa Swiss
tournament at tables of four, through the same services, ratings and standings as any
tournament; it ends with the standings (with their tie-breaks) and the leaderboard.

The demo of a seed and a number of rounds is one tournament: run again, it finishes the one a
stop left half way, or shows the finished one's standings again, and never rates it twice
(run_tournament --resume). Another --seed plays another demo, on the same ``demo-stoppa``
ladder."""

from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

import bots
from tournaments.models import Tournament


class Command(BaseCommand):
    help = "Run a Stoppa Swiss tournament of built-in bots and print standings and leaderboard."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
        parser.add_argument("--rounds", type=int, default=5, help="Swiss rounds (default 5)")

    def handle(self, *args: Any, seed: int, rounds: int, **options: Any) -> None:
        slug = f"stoppa-swiss-demo-seed-{seed}-{rounds}-rounds"
        status = Tournament.objects.filter(slug=slug).values_list("status", flat=True).first()
        if status is not None:
            call_command("run_tournament", "--resume", slug, stdout=self.stdout)
            if status == Tournament.Status.FINISHED:
                self.stdout.write(f"This demo was played already: --seed {seed + 1} plays another.")
            return
        available = bots.available("stoppa")
        # Random players, and the rule-based ones where they exist: 12 entrants, 3 tables.
        field = ["random:6", "heuristic:6"] if "heuristic" in available else ["random:12"]
        call_command(
            "run_tournament", "stoppa", "--bots", *field, "--format", "swiss",
            "--format-option", f"rounds={rounds}", "--table-size", "4", "--seed", str(seed),
            "--name", f"Stoppa Swiss demo (seed {seed})", "--slug", slug, "--ladder", "demo-stoppa",
            stdout=self.stdout,
        )
