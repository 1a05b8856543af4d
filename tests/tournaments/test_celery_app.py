"""The Celery tasks are known by name in every process that may send them, not only in the
workers (whose autodiscovery imports tournaments.tasks): a web request that starts a
tournament sends its bot matches by task name (services.dispatch)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "tournaments.settings"
from django.core.wsgi import get_wsgi_application
get_wsgi_application()  # what a web server does: settings, apps, nothing else imported
from celery import current_app
from tournaments.services import dispatch
current_app.tasks[dispatch.PLAY_MATCHES]
print("tournaments.tasks" in sys.modules)
"""


def test_a_web_process_knows_the_task_bot_matches_are_sent_to():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "True"
