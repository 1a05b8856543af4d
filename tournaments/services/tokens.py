"""Personal API tokens: made, found and revoked here (the model: ``tournaments.models.ApiToken``).

A token reads ``mzt_<prefix>_<secret>``: the prefix (8 characters) finds the row, the SHA-256
of the whole token must equal the stored digest. The token is shown once, when it is made.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from tournaments import plain
from tournaments.errors import ServiceError
from tournaments.models import ApiToken, Player

PREFIX = "mzt_"
SCOPES = tuple(ApiToken.Scope.values)
# A bot's token acts at its table and reads; it never organises.
BOT_SCOPES = frozenset({ApiToken.Scope.READ, ApiToken.Scope.PLAY})
KIND_SAID = {Player.BotKind.BUILTIN: "a built-in bot", Player.BotKind.HTTP: "an HTTP bot",
             Player.BotKind.SUBPROCESS: "a subprocess bot"}
MAX_TOKENS_PER_USER = 50
MAX_LIFETIME = timedelta(days=366 * 2)
# last_used_at is written at most this often per token, not on every request.
TOUCH_EVERY = timedelta(minutes=1)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _check_scopes(scopes, bot: Player | None) -> list[str]:
    if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) for s in scopes):
        raise ServiceError(f"scopes must be a non-empty list of: {', '.join(SCOPES)}", "scopes")
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown:
        raise ServiceError(f"unknown scope(s) {', '.join(unknown)}; scopes: {', '.join(SCOPES)}", "scopes")
    if bot is not None and not set(scopes) <= BOT_SCOPES:
        raise ServiceError("a token for one bot may only read and play, not organise", "scopes")
    return sorted(set(scopes), key=SCOPES.index)


@transaction.atomic
def token_create(
    *, user, name: str, scopes: list[str], bot: Player | None = None, expires_at: datetime | None = None
) -> tuple[ApiToken, str]:
    """A new token for ``user``; returns (row, the token itself: shown this once only)."""
    scopes = _check_scopes(scopes, bot)
    if bot is not None and (bot.kind != Player.Kind.BOT or bot.owner_id != user.pk):
        raise ServiceError("a token may be tied only to a bot you own", "bot", code="forbidden")
    if bot is not None and bot.bot_kind != Player.BotKind.REMOTE:
        # Its token is how a remote bot's program reads and plays its seats. The service plays
        # the other bots' seats, which are nobody's to read (tournaments.permissions.sees_seat).
        raise ServiceError(f"a token may be tied only to a remote bot, which plays its seats through the API; "
                           f"{bot.name} is {KIND_SAID.get(bot.bot_kind, bot.bot_kind)}, whose seats the service plays and "
                           "nobody reads", "bot")
    now = timezone.now()
    if expires_at is not None and not now < expires_at <= now + MAX_LIFETIME:
        raise ServiceError(f"expires_at must be in the future and at most {MAX_LIFETIME.days} days away", "expires_at")
    live = ApiToken.objects.filter(user=user, revoked_at__isnull=True).count()
    if live >= MAX_TOKENS_PER_USER:
        raise ServiceError(f"at most {MAX_TOKENS_PER_USER} live tokens per account: revoke one first", "name",
                           code="conflict")
    prefix = secrets.token_hex(4)
    while ApiToken.objects.filter(prefix=prefix).exists():  # 2^32 prefixes: a clash is rare
        prefix = secrets.token_hex(4)
    token = f"{PREFIX}{prefix}_{secrets.token_urlsafe(32)}"
    row = ApiToken.objects.create(user=user, name=name, prefix=prefix, digest=_digest(token), scopes=scopes, bot=bot,
                                  expires_at=expires_at)
    return row, token


def token_find(token: str) -> ApiToken | None:
    """The live token row for ``token`` (its user loaded), or None: unknown, wrong secret,
    revoked, expired, or its user inactive."""
    if not token.startswith(PREFIX):
        return None
    prefix, sep, _ = token[len(PREFIX):].partition("_")
    if not sep or len(prefix) != 8:
        return None
    row = plain.token_with_user(prefix)  # a bot token's rules need only bot_id, not the bot's row
    if row is None or not hmac.compare_digest(row.digest, _digest(token)):
        return None
    now = timezone.now()
    if row.revoked_at is not None or (row.expires_at is not None and row.expires_at <= now) or not row.user.is_active:
        return None
    if row.last_used_at is None or now - row.last_used_at > TOUCH_EVERY:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
        row.last_used_at = now
    return row


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke a token; revoking twice is harmless."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=token.revoked_at)
    return token
