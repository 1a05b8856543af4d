"""One name for each rating system (``elo``, ``openskill``) wherever one is written: the API,
its schema, ``run_tournament --rating``, the README and docs/tournaments.md; ladders stored
under openskill's old name (``openskill_plackett_luce``) are renamed by migration 0012."""

from __future__ import annotations

import importlib
import re
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from tournaments import ratings
from tournaments.models import RatingChange, RatingLadder, Tournament
from tournaments.services.ladders import ladder_create, ladder_system

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["elo", "openskill"]


def test_the_systems_are_named_elo_and_openskill_in_the_code_the_schema_and_the_docs():
    assert sorted(ratings.SYSTEMS) == NAMES
    schema = SchemaGenerator().get_schema(request=None, public=True)
    system = schema["components"]["schemas"]["LadderRequest"]["properties"]["system"]
    assert system["allOf"] == [{"$ref": "#/components/schemas/SystemEnum"}]
    assert schema["components"]["schemas"]["SystemEnum"]["enum"] == NAMES
    readme = (ROOT / "README.md").read_text()
    assert re.search(r"--rating elo\\\|openskill\]", readme)
    assert "(`elo`, the default, or\n`openskill`)" in (ROOT / "docs" / "tournaments.md").read_text()


def test_run_tournament_rates_on_openskill_as_the_readme_says(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    out = StringIO()
    call_command("run_tournament", "sette_e_mezzo", "--bots", "random:4", "--format-option", "rounds=1", "--option",
                 "hands=1", "--rating", "openskill", "--slug", "skill", stdout=out)
    ladder = Tournament.objects.get(slug="skill").ladder
    assert ladder.system == "openskill" and ladder.config["system"] == "openskill"
    assert RatingChange.objects.filter(ladder=ladder).exists()


def test_the_api_takes_openskill_and_refuses_another_spelling():
    get_user_model().objects.create_user("ada", password="x")
    client = APIClient()
    client.login(username="ada", password="x")
    made = client.post("/api/ladders/", {"slug": "skill", "name": "Skill", "game": "stoppa", "system": "openskill"})
    assert made.status_code == 201 and made.json()["system"] == "openskill"
    assert made.json()["config"]["system"] == "openskill"
    elo = client.post("/api/ladders/", {"slug": "plain", "name": "Plain", "game": "stoppa"})
    assert elo.status_code == 201 and elo.json()["system"] == "elo"  # the default
    old = client.post("/api/ladders/", {"slug": "old", "name": "Old", "game": "stoppa",
                                        "system": "openskill_plackett_luce"})
    assert old.status_code == 400 and "system" in old.json()["error"]["fields"]


def test_migration_0012_renames_the_ladders_stored_under_the_old_name():
    migration = importlib.import_module("tournaments.migrations.0013_openskill_name")
    current = ladder_create(slug="skill", name="Skill", game="stoppa", system="openskill", config={"beta": 5})
    stored = {**current.config, "system": "openskill_plackett_luce"}
    RatingLadder.objects.filter(pk=current.pk).update(system="openskill_plackett_luce", config=stored,
                                                      config_hash=migration.fingerprint(stored))
    # Read as stored (the migrations before 0012 do): the same system, under its old name.
    assert ratings.system_from_json(stored) == ratings.PlackettLuceSystem(beta=5)

    migration.rename(migration.OLD, migration.NEW)(apps, None)
    ladder = RatingLadder.objects.get(pk=current.pk)
    assert (ladder.system, ladder.config, ladder.config_hash) == (current.system, current.config, current.config_hash)
    assert ladder.config_hash == ladder_system(ladder).fingerprint()
    # The same configuration again is that ladder, not a new version.
    assert ladder_create(slug="skill", name="Skill", game="stoppa", system="openskill", config={"beta": 5}) == ladder
