"""Players: people, and bots with their configuration."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

import bots
import engine
from bots.external import bwrap_problem
from bots.external.http import why_not_public
from tournaments import limits
from tournaments.errors import ServiceError
from tournaments.models import Player

from .versions import player_renamed

EXTERNAL = frozenset({"subprocess", "http"})  # registered in bots/, but configured as their own kinds


def builtin_bots(game: str | None = None) -> set[str]:
    """Names of the built-in bots (for ``game``, or for any game)."""
    games = [game] if game else list(engine.games())
    return {b for g in games for b in bots.available(g)} - EXTERNAL


def _url_host(url: Any) -> str:
    """The host of an http bot's URL; "" for a URL that has none or does not parse."""
    return limits.url_host(url)


def public_only(host: str) -> bool:
    """Whether an http bot at ``host`` may only be reached at public addresses (checked again
    at every connection, by bots.external.http)."""
    allowed = {h.strip().lower() for h in settings.HTTP_BOTS_ALLOWED_HOSTS if h.strip()}
    return settings.HTTP_BOTS_PUBLIC_ONLY and host.lower() not in allowed


def check_public_url(url: str, field: str, key: str, rule: str) -> None:
    """Refuse ``url`` (a 400 naming ``key``) when its host is held to the public-address rule
    (:func:`public_only`) and cannot be public (bots.external.why_not_public: any range off the
    public internet, an IPv4 address spelled otherwise than a.b.c.d, %-escapes decoded first)."""
    host = _url_host(url)
    why = public_only(host) and why_not_public(host)
    if why:
        raise ServiceError(f"{field}: {why}; {rule} (HTTP_BOTS_ALLOWED_HOSTS lists exceptions)", key)


def _construct_problem(bot: str, game: str, options: dict) -> str | None:
    """Why the built-in ``bot`` cannot be made for ``game`` with ``options`` (None: it can)."""
    try:
        bots.create(bot, game=game, seed=0, **options)
    except Exception as exc:  # noqa: BLE001 - whatever the bot itself refuses: refused here, not at play time
        return str(exc) or type(exc).__name__
    return None


def builtin_problem(config: dict, game: str) -> str | None:
    """Why a built-in bot with this bot_config cannot play ``game`` through the service: not a
    bot of that game, options beyond the limits (tournaments.limits) or refused by the bot
    itself. None when it can."""
    name = config.get("bot")
    if name not in builtin_bots(game):
        return f"built-in bot {name!r} does not play {game}"
    options = config.get("options") or {}
    try:
        limits.check_bot_options(name, options)
    except ServiceError as exc:
        return exc.message
    return limits.bot_options_problem(name, game, options) or _construct_problem(name, game, options)


def _check_builtin_config(config: dict) -> dict:
    """``{"bot": name, "options": {...}}``: a built-in bot, options it accepts through the
    service (tournaments.limits.BOT_OPTIONS), and at least one game it then plays: the bot is
    made once for each of its games, so what it refuses is refused now. A game it cannot play
    with these options (an ismcts budget above that game's ceiling, a rollout bot of another
    game) refuses it at entry."""
    limits.check_keys(config, ("bot", "options"), "a built-in")
    name = config.get("bot")
    known = sorted(builtin_bots())
    if name not in known:
        raise ServiceError(f"bot_config.bot must be a built-in bot: one of {', '.join(known)}", "bot_config")
    options = config.get("options")
    options = limits.check_bot_options(name, {} if options is None else options)
    problems = {}
    for game in sorted(engine.games()):
        if name in bots.available(game):
            problems[game] = limits.bot_options_problem(name, game, options) or _construct_problem(name, game, options)
    if problems and all(problems.values()):
        why = "; ".join(f"{game}: {problem}" for game, problem in problems.items())
        raise ServiceError(f"bot_config.options: {name} cannot play any game with these options ({why})", "bot_config")
    return {"bot": name, "options": options}


def sandbox_refusal() -> str | None:
    """Why this server cannot run subprocess bots (None: it can). The service runs them only in
    the bubblewrap sandbox, never without it (docs/bots.md): where bwrap is missing or cannot
    make namespaces, they are refused at registration and at a tournament's start, and a seat
    of one at play is forfeited."""
    problem = bwrap_problem()
    if problem is None:
        return None
    return f"subprocess bots run only in the bubblewrap sandbox, which cannot start on this server: {problem}"


def _check_bot_config(bot_kind: str, config: Any) -> dict:
    """A bot's configuration, checked against tournaments.limits: unknown keys and options
    are refused, every string and number is bounded, a URL that does not parse is a 400."""
    if not isinstance(config, dict):
        raise ServiceError("bot_config must be an object", "bot_config")
    if bot_kind == Player.BotKind.BUILTIN:
        return _check_builtin_config(config)
    if bot_kind == Player.BotKind.REMOTE:
        if config:
            raise ServiceError("a remote bot has no bot_config: it plays through the API with its owner's token",
                               "bot_config")
        return {}
    if bot_kind == Player.BotKind.SUBPROCESS:
        checked = limits.check_subprocess_config(config)
        refusal = sandbox_refusal()
        if refusal:
            raise ServiceError(refusal, "bot_config")
        return checked
    if bot_kind == Player.BotKind.HTTP:
        checked = limits.check_http_config(config)
        check_public_url(checked["url"], "bot_config.url", "bot_config",
                         "the service only calls bots on the public internet")
        return checked
    raise ServiceError(f"bot_kind must be one of {', '.join(Player.BotKind.values)}", "bot_kind")


@transaction.atomic
def player_create(
    *,
    name: str,
    kind: str,
    display_name: str = "",
    bot_kind: str = "",
    bot_config: dict | None = None,
    owner=None,
) -> Player:
    """Register a person or a bot. A bot needs a kind and a configuration that can run."""
    if kind not in Player.Kind.values:
        raise ServiceError(f"kind must be one of {', '.join(Player.Kind.values)}", "kind")
    if kind == Player.Kind.PERSON:
        if bot_kind or bot_config:
            raise ServiceError("a person has no bot_kind or bot_config", "bot_kind")
        config: dict = {}
    else:
        if bot_kind == Player.BotKind.SUBPROCESS and owner is not None and not getattr(owner, "is_staff", False):
            # A subprocess bot is a command run on the service's own machines.
            raise ServiceError("only staff may register subprocess bots: they run on the server", "bot_kind", code="forbidden")
        config = _check_bot_config(bot_kind, bot_config if bot_config is not None else {})
    if Player.objects.filter(name=name).exists():
        raise ServiceError(f"a player named {name!r} already exists", "name", code="unique")
    try:
        with transaction.atomic():
            return Player.objects.create(
                name=name, display_name=display_name, kind=kind, bot_kind=bot_kind, bot_config=config, owner=owner
            )
    except IntegrityError:
        raise ServiceError(f"a player named {name!r} already exists", "name", code="unique") from None


@transaction.atomic
def player_update(*, player: Player, display_name: str | None = None, bot_config: dict | None = None,
                  active: bool | None = None) -> Player:
    """Change a player's display name, a bot's configuration (checked as at registration) or
    whether it is active (an inactive player is entered nowhere new)."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    fields = []
    if display_name is not None:
        player.display_name = display_name
        fields.append("display_name")
    if bot_config is not None:
        if player.kind != Player.Kind.BOT:
            raise ServiceError("a person has no bot_config", "bot_config")
        player.bot_config = _check_bot_config(player.bot_kind, bot_config)
        fields.append("bot_config")
    if active is not None:
        player.active = active
        fields.append("active")
    if fields:
        player.save(update_fields=fields)
    if "display_name" in fields:
        player_renamed(player_id=player.pk)
    return player


def builtin_bot_get_or_create(*, bot: str, name: str | None = None, options: dict | None = None) -> Player:
    """The Player for a built-in bot (created on first use), e.g. for demos and run_tournament."""
    name = name or f"{bot}-bot"
    player = Player.objects.filter(name=name).first()
    if player is not None:
        return player
    return player_create(
        name=name,
        kind=Player.Kind.BOT,
        display_name=name,
        bot_kind=Player.BotKind.BUILTIN,
        bot_config={"bot": bot, "options": options or {}},
    )


def player_bot(player: Player, *, game: str, seed: int) -> bots.Bot:
    """The bot that plays for ``player`` at ``game`` (a ServiceError if it cannot). The
    stored configuration is held to tournaments.limits again, so a row written before a bound
    existed forfeits its seat rather than run beyond it."""
    if player.kind != Player.Kind.BOT:
        raise ServiceError(f"{player.name} is a person, not a bot", "player")
    if player.bot_kind == Player.BotKind.REMOTE:
        raise ServiceError(f"{player.name} is a remote bot: it plays through the API", "player")
    config = player.bot_config
    try:
        if player.bot_kind == Player.BotKind.BUILTIN:
            options = config.get("options") or {}
            limits.check_bot_options(config["bot"], options)
            problem = limits.bot_options_problem(config["bot"], game, options)
            if problem:
                raise ServiceError(problem, "player")
            return bots.create(config["bot"], game=game, seed=seed, **options)
        if player.bot_kind == Player.BotKind.SUBPROCESS:
            refusal = sandbox_refusal()
            if refusal:
                raise ServiceError(refusal, "player")
            # In the sandbox or not at all, working in its scratch folder: nothing of the
            # worker's own folder (the repository, its .env, an SQLite file) is shown to it.
            return bots.create("subprocess", game=game, seed=seed, command=config["command"],
                               limits=_stored_limits(config), sandbox="bwrap", in_scratch=True)
        headers = config.get("headers")
        return bots.create("http", game=game, seed=seed, url=config["url"], limits=_stored_limits(config),
                           headers=None if headers is None else limits.check_http_headers(headers),
                           public_only=public_only(_url_host(config["url"])))
    except ServiceError as exc:
        raise ServiceError(f"{player.name} cannot play {game}: {exc.message}", "player") from None
    except (ValueError, TypeError, KeyError) as exc:
        raise ServiceError(f"{player.name} cannot play {game}: {exc}", "player") from None


def _stored_limits(config: dict) -> dict | None:
    stored = config.get("limits")
    return None if stored is None else limits.check_external_limits(stored)
