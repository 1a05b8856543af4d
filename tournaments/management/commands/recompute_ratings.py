"""`manage.py recompute_ratings LADDER`: rebuild a ladder from its recorded results and compare
the rebuilt ledger with the stored one, bit for bit; `--write` replaces it."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.models import RatingLadder
from tournaments.services.ladders import ladder_recompute


class Command(BaseCommand):
    help = "Rebuild a rating ladder from history and report (or, with --write, repair) any difference."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ladder", help="ladder slug (latest version) or slug@version")
        parser.add_argument("--write", action="store_true", help="replace the stored ledger when it differs")

    def handle(self, *args: Any, ladder: str, write: bool, **options: Any) -> None:
        slug, _, version = ladder.partition("@")
        ladders = RatingLadder.objects.filter(slug=slug).order_by("-version")
        if version:
            ladders = ladders.filter(version=int(version))
        found = ladders.first()
        if found is None:
            raise CommandError(f"no ladder {ladder!r}")
        report = ladder_recompute(ladder=found, write=write)
        self.stdout.write(f"{found}: {report.matches} rated matches replayed")
        if not report.differences:
            self.stdout.write("the stored ledger is exactly what the history gives")
            return
        for line in report.differences[:50]:
            self.stdout.write(f"  {line}")
        if len(report.differences) > 50:
            self.stdout.write(f"  … and {len(report.differences) - 50} more")
        if report.written:
            self.stdout.write(f"rewrote the ledger ({len(report.differences)} difference(s) repaired)")
        else:
            raise CommandError(f"{len(report.differences)} difference(s); run again with --write to repair")
