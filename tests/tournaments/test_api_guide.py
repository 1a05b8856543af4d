"""docs/api.md's newcomer's guide, run line by line with bash and curl against a live server:
an account, a token, a tournament of registered bots, a webhook, the start, the standings. Only
the two settings at its top change: the server's address and the webhook receiver's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tournaments.models import Tournament

from .test_webhooks import Receiver

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"

pytestmark = [pytest.mark.django_db(transaction=True)]


def guide() -> str:
    text = DOC.read_text()
    section = text[text.index("## A newcomer's guide"):]
    return section[section.index("```sh\n") + len("```sh\n"):section.index("\n```", section.index("```sh"))]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed (.ci/run installs it)")
def test_the_newcomers_guide_runs_as_written(live_server, settings):
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]  # the local receiver stands in for the public one
    receiver = Receiver()
    try:
        script = guide()
        script, n = re.subn(r"^BASE=\S+", f"BASE={live_server.url}", script, count=1, flags=re.M)
        script, m = re.subn(r"^HOOK_URL=\S+", f"HOOK_URL={receiver.url}", script, count=1, flags=re.M)
        assert n == m == 1, "the guide's first lines set BASE and HOOK_URL"
        ran = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PATH": os.environ["PATH"]})
        assert ran.returncode == 0, ran.stderr + ran.stdout
        tournament = Tournament.objects.get(slug="saturday-stoppa")
        assert tournament.status == "finished" and tournament.entries.count() == 5
        lines = ran.stdout.strip().splitlines()
        assert lines[0] == "olga" and re.fullmatch(r"[0-9a-f]{64}", lines[1])  # the account, the webhook's secret
        assert lines[2].startswith("1st")  # the winner's explanation
        assert lines[-3].startswith("match,tournament,round,table,status")
        heard = [e["event"] for e in receiver.events()]
        assert {"round.published", "match.finished", "standings.changed", "tournament.finished"} <= set(heard)
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()
