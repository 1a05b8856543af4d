"""The session transcript of docs/online.md ("A session") is what the API answers today: this
test plays the same session through the API and compares, times masked. When the API changes
on purpose, the test writes the new transcript to a file it names: paste it into the doc."""

from __future__ import annotations

import json
import random
import re
import tempfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tokens import token_create

DOC = Path(__file__).resolve().parents[2] / "docs" / "online.md"
# Times: the instants, and the seconds a seat thought (``think_seconds``), which differ every run.
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z|(?<=\"think_seconds\": )[0-9.e-]+")


def documented() -> str:
    text = DOC.read_text()
    section = text[text.index("## A session"):]
    return section[section.index("```text\n") + len("```text\n"):section.index("\n```", section.index("```text"))]


def session() -> str:
    """The session, played through the API: ada's seats of an online Sette e mezzo round robin
    of three, moved at random (seeded), the first action sent twice with the same key; at the
    end, the match and a catch-up of a seat's event stream."""
    User = get_user_model()
    olga, ada = User.objects.create_user("olga"), User.objects.create_user("ada")
    people = player_create(name="ada", kind="person", owner=ada)
    bot = player_create(name="ada-bot", kind="bot", bot_kind="remote", owner=ada)
    heuristic = builtin_bot_get_or_create(bot="heuristic", name="heuristic")
    _, secret = token_create(user=olga, name="desk", scopes=["read", "organise"])
    desk = APIClient()
    desk.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    _, secret = token_create(user=ada, name="phone", scopes=["read", "play"])
    phone = APIClient()
    phone.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    made = desk.post("/api/tournaments/", {
        "name": "Online night", "slug": "online-night", "game": "sette_e_mezzo", "table_size": 3, "seed": 7,
        "format": "round_robin", "format_config": {}, "options": {"hands": 1}, "online": True, "open_entry": True,
        "several_seats": True, "move_seconds": 120}, format="json").json()
    for player, client in ((people, phone), (bot, phone), (heuristic, desk)):
        assert client.post(f"/api/tournaments/{made['id']}/entries/", {"player": player.pk}, format="json").status_code == 201
    assert desk.post(f"/api/tournaments/{made['id']}/start/").status_code == 202

    lines: list[str] = []

    def call(method: str, path: str, body: dict | None = None, key: str | None = None):
        headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        answer = (phone.post(path, body, format="json", **headers) if method == "POST" else phone.get(path))
        lines.append(f"{method} {path}" + (f"  {json.dumps(body)}" if body is not None else ""))
        if key:
            lines.append(f"  Idempotency-Key: {key}")
        text = (b"".join(answer.streaming_content).decode().rstrip("\n")
                if answer["Content-Type"].startswith("text/event-stream") else json.dumps(answer.json()))
        lines.append(f"-> {answer.status_code} {text}")
        lines.append("")
        return answer

    rng = random.Random(7)
    awaited = call("GET", "/api/seats/?your_turn=true").json()["results"]
    match = awaited[0]["match"]
    move = 0
    while awaited:
        position = awaited[0]["position"]
        view = call("GET", f"/api/matches/{match}/seats/{position}/").json()
        action = {"action": rng.choice(view["view"]["legal_actions"])}
        url = f"/api/matches/{match}/seats/{position}/actions/"
        call("POST", url, action, key=f"move-{move}")
        if move == 0:
            call("POST", url, action, key=f"move-{move}")  # a retry: answered as the first time
        move += 1
        awaited = phone.get("/api/seats/?your_turn=true").json()["results"]
    call("GET", f"/api/matches/{match}/")
    call("GET", f"/api/matches/{match}/seats/0/events/?follow=false")
    call("GET", "/api/seats/")
    return "\n".join(lines).rstrip("\n")


@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_the_documented_session_is_what_the_api_answers():
    played = session()
    if TIME.sub("<time>", played) != TIME.sub("<time>", documented()):
        out = Path(tempfile.gettempdir()) / "online-session.txt"
        out.write_text(played + "\n")
        pytest.fail(f"docs/online.md's session differs from what the API answers now: the new one is in {out}")
