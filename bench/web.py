"""The pages' server time on the API bench's big data set (issue 16's goal: a leaderboard page and
a player page each under 100 ms of server time).

    python bench/web.py [--requests 200]

Needs the database bench/api.py leaves with ``--keep-db`` (``mazziere_bench_api``: 10,000 players,
100,000 rated matches in one ladder). It renders, in this process, through Django's whole stack
(DEBUG off, the test client: no network, so the time is the server's alone), ``--requests``
times each: the leaderboard's first page, a random page (``?page=``), a search, a random rated
player's page, and prints p50/p99/max ms and the queries each page makes.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POSTGRES = "postgres://postgres@127.0.0.1:5432/mazziere_bench_api"
GOAL_MS = 100.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    if not 1 <= args.requests <= 10_000:
        parser.error("--requests is 1 to 10000")
    os.environ.update(DATABASE_URL=POSTGRES, DEBUG="false", SECRET_KEY="bench-" + "x" * 50,
                      ALLOWED_HOSTS="testserver", DATABASE_CONN_MAX_AGE="600",
                      DJANGO_SETTINGS_MODULE="tournaments.settings")
    os.environ.pop("CELERY_BROKER_URL", None)
    sys.path.insert(0, str(ROOT))
    import warnings

    import django

    warnings.filterwarnings("ignore", message="No directory at")  # no collectstatic here: no static files asked
    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from tournaments.models import Rating, RatingLadder

    ladder = RatingLadder.objects.filter(slug="bench").first()
    if ladder is None:
        sys.exit("no bench data: run `python bench/api.py --keep-db` first")
    rated = list(Rating.objects.filter(ladder=ladder).values_list("player_id", flat=True))
    pages = max(1, len(rated) // 50)
    rng = random.Random(1)
    kinds = {
        "leaderboard, first page": lambda: f"/ladders/{ladder.pk}/",
        "leaderboard, random page": lambda: f"/ladders/{ladder.pk}/?page={rng.randint(1, pages)}",
        "leaderboard, search": lambda: f"/ladders/{ladder.pk}/?q=bot-{rng.randint(1, 999)}",
        "a player's page": lambda: f"/players/{rng.choice(rated)}/",
    }
    client = Client()
    print(f"{len(rated):,} rated players, {pages} pages of 50; {args.requests} requests each, server time")
    print(f"{'page':<28}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'queries':>9}  goal")
    for name, url in kinds.items():
        for _ in range(5):  # warm: connections, templates, code
            client.get(url())
        times, queries = [], 0
        for _ in range(args.requests):
            with CaptureQueriesContext(connection) as seen:
                began = time.perf_counter()
                answer = client.get(url())
                times.append((time.perf_counter() - began) * 1000)
            assert answer.status_code == 200, (name, answer.status_code)
            queries = max(queries, len(seen))
        times.sort()
        p50, p99 = times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]
        print(f"{name:<28}{p50:>9.1f}{p99:>9.1f}{times[-1]:>9.1f}{queries:>9}  {'met' if p99 < GOAL_MS else 'NOT met'}")


if __name__ == "__main__":
    main()
