"""Where the time of one recorded match goes, in process on PostgreSQL (no Celery): claim,
building the bots, playing, recording, and closing rounds (which makes the next round).

    python bench/match_phases.py        # DATABASE_URL defaults to the local mazziere_bench,
                                        # which bench/tournament.py creates

Prints milliseconds per match for each phase: the part of bench/tournament.py's
orchestration overhead that is the service's own work rather than the broker's.
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mazziere_bench")
os.environ["DJANGO_SETTINGS_MODULE"] = "tournaments.settings"
import django  # noqa: E402

django.setup()
from django.core.management import call_command  # noqa: E402

call_command("migrate", verbosity=0)
import tournaments.services.matches as M
import tournaments.services.players as P
import bots.runner as R
from tournaments.services.players import builtin_bot_get_or_create
from tournaments.services.tournaments import entry_add, tournament_create
from tournaments.services.dispatch import held
from tournaments.services.tournaments import tournament_start
acc={}
def wrap(mod, name, key):
    f=getattr(mod,name)
    def g(*a, **k):
        t=time.perf_counter(); r=f(*a, **k); acc[key]=acc.get(key,0)+time.perf_counter()-t; return r
    setattr(mod,name,g)
wrap(M,"matches_claim","claim"); wrap(P,"player_bot","bots"); wrap(R,"play_match","play"); wrap(M,"matches_record_results","record"); wrap(M,"rounds_close","close")
slug=f"ph-{time.time()}"
t=tournament_create(name=slug, slug=slug, game="stoppa", table_size=4, format="round_robin", format_config={"cycles":4}, seed=7)
for i in range(8): entry_add(tournament=t, player=builtin_bot_get_or_create(bot="heuristic", name=f"bench-heuristic-{i}"))
n=0; t0=time.perf_counter()
with held():
    tournament_start(tournament=t)
    while True:
        p=M.pending_bot_matches(t)
        if not p: break
        M.match_play_batch(match_ids=p, owner="x"); n+=len(p)  # one batch a round, as a lone worker
tt=time.perf_counter()-t0
print(n, "matches, per match ms:", {k: round(v/n*1000,1) for k,v in acc.items()}, "total", round(tt/n*1000,1))
