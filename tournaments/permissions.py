"""Who may do what: the service's permission rules as plain functions of a caller and an
object (the API turns a False into 403). docs/api.md, "Who may do what", states them.

* An event (tournament, league, rating ladder) is run by its **owner** and its
  **co-organisers**; a league's divisions are run by the league's. Only the owner names
  co-organisers. Staff run everything.
* A **player** is changed, and its secrets (``bot_config``, forfeit details) read, by its
  owner only (or staff). Its owner **acts for it** at a table: reports and confirms its
  matches' results, withdraws it, enters it where entry is open.
* A token caller is further bounded by its scopes (``organise`` to run events and change
  players, ``play`` to act for players, ``read`` for private reads) and, for a token tied to
  one bot, acts for that bot alone: staff or not, it reads and changes nothing else.
* A **seat's cards** are read, while its match is played, only through a seat played through
  the API (a person's, a remote bot's), by that player's owner. A seat the service plays (a
  built-in bot's, an external bot's the workers ask) is nobody's to read, its owner's included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Q

from tournaments.models import ApiToken, League, Match, Player, RatingLadder, Tournament

READ, ORGANISE, PLAY = ApiToken.Scope.READ, ApiToken.Scope.ORGANISE, ApiToken.Scope.PLAY


@dataclass(frozen=True)
class Caller:
    """Who is asking: the user (possibly anonymous), what its credentials allow, and the one
    bot a token is tied to (None: any of the user's players)."""

    user: Any
    scopes: frozenset[str]
    bot_id: int | None = None

    @classmethod
    def session(cls, user) -> Caller:
        """A person at a browser, signed in with a session: every scope its user has (the API
        sees a session so too: tournaments/api/auth.py)."""
        return cls(user=user, scopes=frozenset(ApiToken.Scope.values))

    @property
    def signed_in(self) -> bool:
        return bool(self.user is not None and self.user.is_authenticated)

    @property
    def staff(self) -> bool:
        return self.signed_in and bool(self.user.is_staff)

    def can(self, scope: str) -> bool:
        return scope in self.scopes


ANONYMOUS = Caller(user=None, scopes=frozenset())


def _is_organiser(caller: Caller, event: Tournament | League | RatingLadder) -> bool:
    if event.owner_id is not None and event.owner_id == caller.user.pk:
        return True
    if event.organisers.filter(pk=caller.user.pk).exists():
        return True
    if isinstance(event, Tournament) and event.season_id is not None:
        return _is_organiser(caller, event.season.league)
    return False


def organised_by(user, tournament: str = "") -> Q:
    """:func:`_is_organiser` as a query on tournaments (``tournament``: the lookup path to them,
    e.g. ``"match__round__tournament"``), for lists."""
    at = f"{tournament}__" if tournament else ""
    return (Q(**{f"{at}owner": user}) | Q(**{f"{at}organisers": user}) | Q(**{f"{at}season__league__owner": user})
            | Q(**{f"{at}season__league__organisers": user}))


def follows_webhooks() -> Q:
    """Webhooks whose owner may still follow their event, as a query on webhooks: the owner is
    an active account that organises the webhook's tournament (a division: its league's
    organisers too) or league, or is staff: who may subscribe (:func:`organises`). A webhook
    whose owner lost that (a co-organiser removed, the event handed over) is told nothing and
    cannot be changed."""
    owner = OuterRef("owner")
    organised = (Exists(Tournament.objects.filter(organised_by(owner), pk=OuterRef("tournament_id")))
                 | Exists(League.objects.filter(Q(owner=owner) | Q(organisers=owner), pk=OuterRef("league_id"))))
    return Q(owner__is_active=True) & (Q(owner__is_staff=True) | Q(organised))


def organises(caller: Caller, event: Tournament | League | RatingLadder) -> bool:
    """May run ``event``: change it, its entries, its rounds and results."""
    if not (caller.signed_in and caller.can(ORGANISE) and caller.bot_id is None):
        return False
    return caller.staff or _is_organiser(caller, event)


def owns(caller: Caller, thing: Tournament | League | RatingLadder | Player, scope: str = ORGANISE) -> bool:
    """Is the owner of ``thing`` (or staff), with ``scope``: names co-organisers of an event,
    changes a player, reads a player's secrets (scope ``read``)."""
    if not (caller.signed_in and caller.can(scope)):
        return False
    if caller.bot_id is not None:  # before staff: a bot's token is that bot's, whoever made it
        return isinstance(thing, Player) and caller.bot_id == thing.pk and thing.owner_id == caller.user.pk
    if caller.staff:
        return True
    return thing.owner_id is not None and thing.owner_id == caller.user.pk


def sees_secrets(caller: Caller, player: Player) -> bool:
    """May read ``player``'s bot_config and the details of its forfeits."""
    return owns(caller, player, READ)


def _speaks_for(caller: Caller, player: Player, scope: str) -> bool:
    """``player``'s owner, with ``scope``; a token tied to a bot, for that bot only."""
    if not (caller.signed_in and caller.can(scope)):
        return False
    if caller.bot_id is not None and caller.bot_id != player.pk:
        return False
    return player.owner_id is not None and player.owner_id == caller.user.pk


def acts_for(caller: Caller, player: Player) -> bool:
    """May act for ``player`` at a table (its owner, with the ``play`` scope)."""
    return _speaks_for(caller, player, PLAY)


def sees_seat(caller: Caller, player: Player) -> bool:
    """May read ``player``'s seat at a table, its own cards included: a seat played through the
    API (a person's, a remote bot's), by its owner with the ``read`` scope (a token tied to a
    bot, for that bot only), forfeited or not (a forfeited seat shows the cards it showed
    before). Nobody else, organisers and staff included; and nobody reads a seat the service
    plays (a built-in bot's, or an external bot's, which the workers ask: its program is sent
    its view, and that is all), its owner included: she would read a hand at a table where she
    plays another."""
    return player.plays_online and _speaks_for(caller, player, READ)


def seat_refusal(player: Player) -> str:
    """Why a caller :func:`sees_seat` refuses may not read ``player``'s seat, in words."""
    if not player.plays_online:
        return ("this seat is played by the service (a built-in or external bot): nobody reads its cards while "
                "the match is played, its owner included; the replay shows them once it is public")
    return "only the seat's player's owner sees its cards"


def seated(match: Match) -> list[Player]:
    return [seat.player for seat in match.seats.select_related("player")]


def reports_for(caller: Caller, match: Match) -> bool:
    """May report or confirm ``match``'s result: an organiser of its tournament, or the owner
    of a player seated at it. (Who confirms which report is the tournament's ``confirmation``:
    services.results.confirm_refusal.)"""
    return organises(caller, match.round.tournament) or any(acts_for(caller, p) for p in seated(match))


def may_enter(caller: Caller, event: Tournament | League, player: Player) -> bool:
    """May enter ``player`` in a tournament (or a league): an organiser enters built-in bots
    (the service's own programs) and players it owns; a player's owner enters it where entry
    is open. Nobody enters somebody else's person or external bot."""
    if organises(caller, event) and (
        caller.staff or player.bot_kind == Player.BotKind.BUILTIN or player.owner_id == caller.user.pk
    ):
        return True
    return event.open_entry and acts_for(caller, player)


def may_withdraw(caller: Caller, tournament: Tournament, player: Player) -> bool:
    """An organiser withdraws anyone; a player's owner withdraws it."""
    return organises(caller, tournament) or acts_for(caller, player)


def may_use_ladder(caller: Caller, ladder: RatingLadder) -> bool:
    """May attach a tournament or league to ``ladder`` (or make a new version of it)."""
    return organises(caller, ladder)
