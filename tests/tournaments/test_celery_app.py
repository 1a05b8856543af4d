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


def test_each_task_goes_to_the_queue_of_its_class_of_work(settings):
    """Matches, clocks and housekeeping, webhooks: each class on its own queue, read from the
    settings whenever a task is sent, by a service, a task or Celery beat (which names no
    queue): a slow receiver or a long batch holds only its own class's workers."""
    import tournaments.tasks  # noqa: F401 - registers them, as a worker's autodiscovery does
    from tournaments.celery import app

    settings.MATCH_QUEUE, settings.CLOCK_QUEUE, settings.WEBHOOK_QUEUE = "m", "c", "w"
    expected = {
        "play_matches": "m", "play_match": "m", "open_online_matches": "m", "move_online_bots": "m",
        "expire_deadlines": "c", "reclaim_matches": "c", "tick": "c",
        "send_webhooks": "w", "retry_webhooks": "w",
    }
    ours = {name.rsplit(".", 1)[1] for name in app.tasks if name.startswith("tournaments.tasks.")}
    assert ours == set(expected)  # a new task is given its class of work (services.dispatch.QUEUE_SETTING)
    for name, queue in expected.items():
        assert app.amqp.router.route({}, f"tournaments.tasks.{name}")["queue"].name == queue, name
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert app.amqp.router.route({}, entry["task"])["queue"].name in ("c", "w")
    assert app.amqp.router.route({"queue": "x"}, "tournaments.tasks.tick")["queue"].name == "x"  # named: wins
