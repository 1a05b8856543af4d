"""The openskill system's one name: ``openskill``, as the docs, the schema and
``run_tournament --rating`` say it, where ladders were stored as ``openskill_plackett_luce``.
Each such ladder's system, its configuration's ``system`` and the fingerprint of that
configuration (tournaments/ratings/config.py) are rewritten; its ratings and ledger, which the
name never entered, are untouched."""

import hashlib
import json

from django.db import migrations

OLD, NEW = "openskill_plackett_luce", "openskill"


def fingerprint(config: dict) -> str:
    """tournaments.ratings.config.fingerprint of a stored configuration (its JSON form)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def rename(old: str, new: str):
    def run(apps, schema_editor):
        RatingLadder = apps.get_model("tournaments", "RatingLadder")
        for ladder in RatingLadder.objects.filter(system=old):
            ladder.system = new
            ladder.config = {**ladder.config, "system": new}
            ladder.config_hash = fingerprint(ladder.config)
            ladder.save(update_fields=["system", "config", "config_hash"])
    return run


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0012_tournament_confirmation"),
    ]

    operations = [
        migrations.RunPython(rename(OLD, NEW), rename(NEW, OLD)),
    ]
