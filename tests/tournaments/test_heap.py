"""The web servers' processes settle their heap once the app is loaded (tournaments/heap.py):
gunicorn's through its config's hook, uvicorn's through the ASGI lifespan. Each is run in a
fresh process, since settling is for a whole process."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import asyncio, gc, json, os
os.environ["DJANGO_SETTINGS_MODULE"] = "tournaments.settings"
before = gc.get_freeze_count()
if {server!r} == "gunicorn":
    import django
    django.setup()
    from tournaments import gunicorn_conf
    gunicorn_conf.post_worker_init(None)
    replies = []
else:
    from tournaments.asgi import application
    messages = [{{"type": "lifespan.startup"}}, {{"type": "lifespan.shutdown"}}]
    replies = []
    async def receive():
        return messages.pop(0)
    async def send(message):
        replies.append(message["type"])
    asyncio.run(application({{"type": "lifespan", "asgi": {{"version": "3.0"}}}}, receive, send))
print(json.dumps({{"before": before, "frozen": gc.get_freeze_count(), "threshold": gc.get_threshold()[0],
                  "replies": replies}}))
"""


def settled(server: str) -> dict:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE.format(server=server)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_gunicorn_worker_freezes_the_loaded_app_out_of_the_collectors_reach():
    got = settled("gunicorn")
    assert got["before"] == 0 and got["frozen"] > 10_000
    assert got["threshold"] == 20_000


def test_a_uvicorn_process_settles_its_heap_at_the_lifespans_startup_and_answers_both_messages():
    got = settled("uvicorn")
    assert got["replies"] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert got["before"] == 0 and got["frozen"] > 10_000 and got["threshold"] == 20_000
