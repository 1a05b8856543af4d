"""`manage.py token_create USER --scope read --scope play [--bot NAME] [--name TEXT]`: make a
personal API token for an account and print it (once: only its hash is stored)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.models import ApiToken, Player
from tournaments.services import ServiceError
from tournaments.services.tokens import token_create


class Command(BaseCommand):
    help = "Make a personal API token for an account and print it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--scope", action="append", choices=ApiToken.Scope.values, required=True,
                            help="repeat for several: read, organise, play")
        parser.add_argument("--bot", help="tie the token to this bot (a player name the account owns)")
        parser.add_argument("--name", default="made with manage.py token_create")

    def handle(self, *args, username: str, scope: list[str], bot: str | None, name: str, **options) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no account {username!r}")
        player = None
        if bot is not None:
            player = Player.objects.filter(name=bot).first()
            if player is None:
                raise CommandError(f"no player {bot!r}")
        try:
            _, token = token_create(user=user, name=name, scopes=scope, bot=player)
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(token)
