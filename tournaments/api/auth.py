"""How API callers prove who they are: a personal token (``Authorization: Bearer mzt_…``) for
programs, the session cookie for the browser and the admin.

A session (a person at their browser) may do everything its user may; a token only what its
scopes allow (``read``, ``organise``, ``play``) and, when tied to one bot, only as that bot.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from tournaments.models import ApiToken
from tournaments.services import tokens

ALL_SCOPES = frozenset(ApiToken.Scope.values)


class TokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Bearer <token>``. A header naming another scheme is left to the other
    authenticators; a Bearer token that is unknown, revoked or expired is refused (401), on
    every endpoint, reads included: a caller who sent credentials learns they are wrong."""

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("the Authorization header must read 'Bearer <token>'")
        try:
            token = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("the token has characters a token never has") from None
        row = tokens.token_find(token)
        if row is None:
            raise exceptions.AuthenticationFailed("the token is unknown, revoked or expired")
        return row.user, row

    def authenticate_header(self, request):
        return f'{self.keyword} realm="api"'


def bearer_sent(request) -> bool:
    """Whether the request carries ``Authorization: Bearer ...`` (valid or not)."""
    header = authentication.get_authorization_header(request).split()
    return bool(header) and header[0].lower() == TokenAuthentication.keyword.lower().encode()


def scopes(request) -> frozenset[str]:
    """What the caller may do with its credentials: every scope for a session, the token's
    scopes for a token, none when anonymous."""
    if not request.user or not request.user.is_authenticated:
        return frozenset()
    if isinstance(request.auth, ApiToken):
        return frozenset(request.auth.scopes)
    return ALL_SCOPES


def token_bot_id(request) -> int | None:
    """The one bot a token is restricted to, if any."""
    return request.auth.bot_id if isinstance(request.auth, ApiToken) else None


class TokenScheme(OpenApiAuthenticationExtension):
    """How the OpenAPI schema names the token scheme (Swagger's "Authorize" button uses it)."""

    target_class = TokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "bearerFormat": "mzt_<prefix>_<secret>",
                "description": "a personal API token (POST /api/tokens/); scopes read, organise, play"}
