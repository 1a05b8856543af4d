"""Where the time of one recorded match goes, in process on PostgreSQL (no Celery): claim,
building the bots, playing, recording, and closing rounds (which makes the next round).

    python bench/match_phases.py [--entrants 8] [--cycles 4] [--bot heuristic]
                                 # DATABASE_URL defaults to the local mazziere_bench,
                                 # which bench/tournament.py creates

Plays a Stoppa round robin out with services.play.tournament_play_out (the loop
run_tournament uses in eager mode) and prints milliseconds per match for each phase: the
part of bench/tournament.py's orchestration overhead that is the service's own work rather
than the broker's.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mazziere_bench")
os.environ["DJANGO_SETTINGS_MODULE"] = "tournaments.settings"


def timed(module, name: str, phase: str, spent: dict[str, float]) -> None:
    """Replace ``module.name`` by a wrapper that adds its time to ``spent[phase]``."""
    inner = getattr(module, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[phase] = spent.get(phase, 0.0) + time.perf_counter() - start

    setattr(module, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=8)
    parser.add_argument("--cycles", type=int, default=4)
    parser.add_argument("--bot", default="heuristic")
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    from bots import runner
    from tournaments.services import play, recording
    from tournaments.services.players import builtin_bot_get_or_create
    from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

    spent: dict[str, float] = {}
    # Patched where they are looked up: play.py imported them by name.
    timed(play, "matches_claim", "claim", spent)
    timed(play, "player_bot", "bots", spent)
    timed(runner, "play_match", "play", spent)
    timed(play, "matches_record_results", "record", spent)
    timed(recording, "rounds_close", "close", spent)

    slug = f"phases-{time.time()}"
    tournament = tournament_create(name=slug, slug=slug, game="stoppa", table_size=4, format="round_robin",
                                   format_config={"cycles": args.cycles}, seed=7)
    for i in range(args.entrants):
        entry_add(tournament=tournament,
                  player=builtin_bot_get_or_create(bot=args.bot, name=f"bench-{args.bot}-{i}"))
    start = time.perf_counter()
    tournament_start(tournament=tournament)  # nothing is sent: the matches are played here
    n = play.tournament_play_out(tournament=tournament, owner="bench").played
    total = time.perf_counter() - start
    print(f"{n} matches; ms per match: " + ", ".join(f"{phase} {seconds / n * 1000:.1f}" for phase, seconds in spent.items())
          + f"; total {total / n * 1000:.1f}")


if __name__ == "__main__":
    main()
