"""No API answer lets anyone rebuild or read a card they may not see (the trust issue's
"Done when").

Threat model: a bot seated at a table calls the API *during its own match*, or so does a
stranger with an account. So the probes run from inside the matches. Every entrant but one
(a plain ``random`` bot) is a **spy**: it plays exactly like ``random`` (the same seeded
choices), each player owned by its own account. At each decision of the table's first spy
(each *step* of the match; the other spies only play) it first requests the API as every
role:

* ``anonymous``: no credentials;
* ``other-seat``: the owner of the player at *another* seat of the same table (full-scope
  token; the seat rotates from step to step);
* ``organiser``: the tournament's (and the ladder's) owner, full-scope token;
* ``bystander``: a signed-in stranger with every scope;
* ``own``: the spy's owner, signed in with every scope (as at a browser): **the owner of a
  built-in bot**, who is entitled to nothing of its seat while the match is played (the
  service plays it: docs/online.md), only to its ``bot_config``. (A token tied to the spy
  cannot be made: a token is tied only to a remote bot.) ``other-seat`` is such an owner too;
* ``staff-bot``: a staff account's token tied to its own remote bot (not seated), which acts
  for that bot alone: it reads no other player's ``bot_config``, staff or not.

At the first step of every match: every endpoint as every role. At each later step: the
next (role, endpoint) pair of a rotation through all of them, so that every endpoint x role
is requested many times while matches are running (asserted). Endpoints: the running match
and every other match of its round (in duplicate play its *siblings*, same deal), the
running match's seat doors (the spy's seat and its event stream: 403 to everyone, its owner
included; the list of one's seats, which lists none of them), the tournament's match list,
the replays of the running match (409) and of its round's other matches (409 while secret;
200 once public in an ordinary round: their numbers are checked, not their cards, which are
their own), the match's submissions, the tournament, its rounds,
standings, audit and entries, the tournament list, the players and each seated player, the
submissions, and for a rated tournament the ladder, its leaderboard and each seated player's
history. One spy (the *forfeiter*) answers nonsense at its first decision where it does not
probe, so forfeits (seat fields, forfeit details, "forfeit" audit events) are there to leak.

**What is secret at a step.** A match's outcome is public once it is finished and, in
duplicate play (every table of a round plays the same deal), once its round is over. Until
then its seed (every deal derives from it), deck, replay and seats' outcomes are secret, and
so is the tournament's seed (every match seed derives from it) until the tournament is
finished. The test computes "public" itself from the database at every step, from that
rule, not through ``tournaments.selectors``.

**The checks** (:func:`check_response`, :func:`check_owner_secrets`), on every JSON answer,
walked recursively:

1. no number or string equal to (for strings: containing) the seed of a match whose outcome
   is not public (the running one, its siblings, rounds made ahead), nor the tournament's seed
   before it is finished;
2. *rebuild*: every integer of the answer (numeric strings too) is tried as the running
   match's seed, ``new_match(players, seed=x, options)``, and as the tournament's seed, through
   ``derive_seed(x, "round", r, "table"/"deal", k)`` as services/tournaments.py derives match
   seeds; neither may reproduce the running match's deal. "The deal" is compared by a
   fingerprint: the complete engine log (private events included, so every card dealt) of a
   canonical play-out, first legal action each time. Comparing the initial ``view(seat)``s is
   not enough: in Sette e mezzo nobody holds a card before staking, so every seed would
   "match". Derived seeds are also compared with the seeds of every match still secret;
3. *no hidden card*: the cards hidden from a caller now are the codes of the match's deck
   minus every card code appearing in the view it is entitled to: ``view(None)`` for every
   role, the owners of the seated bots (``own``, ``other-seat``) included. That view
   is taken from the **live engine state** the runner is playing: the spy finds it on the
   call stack (the ``state`` of ``bots.runner.play_match``, checked to be the state whose turn
   it is, and the ``match`` the worker is playing, checked to have its seed). That is exact;
   rebuilding the state from the seed and the spy's own view could not know other seats'
   private actions (Piazza's secret take-sets), and a seed does not name a table (duplicate
   siblings share it). No such card code may appear anywhere in an answer (as a whole token
   of a string, or a key). No answer checked shows a card legitimately: no endpoint but a
   replay shows cards, and the only replays whose cards are checked are those that must be
   409, so any card found is a leak. Public option values (Stoppa's ``removed_king``, Sette e
   mezzo's ``matta``) are skipped where they appear as the tournament's options. Limit: in
   Spacca il mazzo (two decks) a code with one copy in view hides the other copy from this
   check;
4. a match still secret shows null ``seed`` and ``finished_at``, and its seats null
   ``score``, ``place``, ``forfeit_reason``, ``forfeit_detail``, ``decisions``,
   ``think_seconds``; ``bot_config``, and a public seat's ``forfeit_detail``, only to the
   player's owner (a token tied to one bot: that bot's only); the standings count only public
   tables (a duplicate round's tables once the round is over), a leaderboard rates no more
   games than are public, a ladder's history names no secret match, and an audit event of a
   secret match shows no detail.

Denials must not be over-broad either: every read answers 200 to every role (replays of
secret matches 409), and the owners (``own``, ``other-seat``) read their own players'
``bot_config``. After each tournament the positive side: every replay answers 200 with its
record, the seeds are shown, every seat's result is, the standings count every table, the
ladder rated every seat, the forfeiter's owner reads its forfeit details and a bystander
does not; so the test cannot pass by answering nothing.

Every finding is recorded (role, endpoint, what) and the test fails listing them.
``test_the_checker_catches_*`` feed crafted answers to the checkers, so each check can fail.

**Duplicate tables with external bots.** An external bot (HTTP or subprocess) would be shown a
duplicate round's one deal at each of its tables: the cast of a duplicate tournament tries to
seat one (its owner entering it where entry is open, the organiser entering her own, the
organiser turning duplicate play on with it entered) and every door refuses it, naming the
rule; the spies then play the tournament as above. The Stoppa run seats a real HTTP bot (a
local server) among the spies instead, and checks afterwards that no program sat at two tables
of one deal and that it was sent one ``start`` a table.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

import bots
import engine
from bots.random_bot import RandomBot
from engine.cards import FRENCH_DECK_WITH_JOKERS, ITALIAN_DECK
from tournaments import limits
from tournaments.models import Entry, Match, Player, Seat, Tournament
from tournaments.services import tokens
from tournaments.services.ladders import ladder_create
from tournaments.services.players import player_create
from tournaments.services.seeds import derive_seed
from tournaments.services.tournaments import entry_add, tournament_create

from ..bots.test_http import bot_server, random_player  # noqa: F401 - bot_server: a fixture
from .helpers import as_user, play_out

ROLES = ("anonymous", "other-seat", "organiser", "bystander", "own", "staff-bot")
ALL_SCOPES = ["read", "organise", "play"]
SEAT_SECRETS = ("score", "place", "forfeit_reason", "forfeit_detail", "decisions", "think_seconds")

# Every card code of every game: a whole token of a string (not part of a longer word).
_ALL_CODES = sorted(set(ITALIAN_DECK) | set(FRENCH_DECK_WITH_JOKERS), key=lambda c: (-len(c), c))
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, _ALL_CODES)) + r")(?![A-Za-z0-9])")


def deck_codes(game: str, options: dict) -> frozenset[str]:
    if game == "spacca_il_mazzo" or (game == "piazza" and options.get("deck", "italian") != "italian"):
        return frozenset(FRENCH_DECK_WITH_JOKERS)
    return frozenset(ITALIAN_DECK)


def card_tokens(value: Any) -> set[str]:
    """Every card code appearing in ``value`` (strings and keys, recursively)."""
    found: set[str] = set()

    def walk(v):
        if isinstance(v, str):
            found.update(CARD_TOKEN.findall(v))
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)

    walk(value)
    return found


# --- the deal fingerprint and the rebuild check ---------------------------------------------

_FINGERPRINTS: dict[tuple, bytes] = {}


def deal_fingerprint(game: str, players: int, options: dict, seed: int | str) -> bytes:
    """The match's whole deal: the complete log (private events included) of a canonical
    play-out, the first legal action each time. Equal for two seeds iff they deal the same."""
    key = (game, players, json.dumps(options, sort_keys=True), str(seed))
    cached = _FINGERPRINTS.get(key)
    if cached is None:
        state = engine.game(game).new_match(players=players, seed=seed, options=options)
        for _ in range(400):
            if state.is_over():
                break
            state.apply(state.legal_actions()[0])
        cached = hashlib.blake2b(json.dumps(state.log, sort_keys=True, default=str).encode()).digest()
        _FINGERPRINTS[key] = cached
    return cached


@dataclass
class Secrets:
    """What is secret at one step, about the running match and its tournament."""

    game: str
    players: int
    options: dict  # the tournament's options, as the matches are made with
    public_options: dict  # the options resolved for this table: shown values, not leaks
    match_id: int
    match_seed: int
    round_number: int
    table: int
    deal: int | None
    hidden_seeds: dict[int, str]  # seed -> what it is the seed of
    hidden_matches: set[int]
    derivations: set[tuple[int, str, int]] = field(default_factory=set)  # (round, "table"/"deal", key)
    tournament_id: int | None = None
    public_played: Counter = field(default_factory=Counter)  # player id -> public tables
    fingerprint: bytes = b""

    def __post_init__(self):
        if not self.fingerprint:
            self.fingerprint = deal_fingerprint(self.game, self.players, self.options, self.match_seed)


_REBUILT: dict[tuple[bytes, int], list[str]] = {}


def rebuild_findings(secrets: Secrets, x: int) -> list[str]:
    """Does the number ``x``, as a match seed or as the tournament's seed, rebuild the running
    match's deal (or give the seed of another secret match)?"""
    key = (secrets.fingerprint, x)
    if key in _REBUILT:
        return _REBUILT[key]
    found = []
    if deal_fingerprint(secrets.game, secrets.players, secrets.options, x) == secrets.fingerprint:
        found.append(f"{x} as a seed rebuilds the deal of running match {secrets.match_id}")
    kind, k = ("deal", secrets.deal) if secrets.deal is not None else ("table", secrets.table)
    derived = derive_seed(x, "round", secrets.round_number, kind, k)
    if deal_fingerprint(secrets.game, secrets.players, secrets.options, derived) == secrets.fingerprint:
        found.append(f"{x} as the tournament's seed rebuilds the deal of running match {secrets.match_id}")
    for r, kind, k in sorted(secrets.derivations):
        derived = derive_seed(x, "round", r, kind, k)
        if derived in secrets.hidden_seeds:
            found.append(f"{x} as the tournament's seed gives the secret seed of {secrets.hidden_seeds[derived]}")
    _REBUILT[key] = found
    return found


def check_response(secrets: Secrets, hidden_cards: frozenset[str], data: Any) -> list[str]:
    """Checks 1-4 on one answer, whoever asked; returns the findings."""
    findings: list[str] = []
    numbers: set[int] = set()
    seeds = secrets.hidden_seeds
    seed_texts = [(str(s), what) for s, what in seeds.items()]

    def number(v: int, where: str) -> None:
        if v in seeds:
            findings.append(f"{where}: {v} is the seed of {seeds[v]}")
        numbers.add(v)

    def text(v: str, where: str, public_option: bool) -> None:
        for s, what in seed_texts:
            if s in v:
                findings.append(f"{where}: {v[:80]!r} holds the seed of {what}")
        stripped = v.strip()
        if stripped.lstrip("-").isdigit() and len(stripped) < 40:
            numbers.add(int(stripped))
        if not public_option:
            cards = set(CARD_TOKEN.findall(v)) & hidden_cards
            if cards:
                findings.append(f"{where}: hidden card(s) {sorted(cards)} in {v[:80]!r}")

    def walk(v: Any, where: str, option_values: dict | None = None, key: Any = None) -> None:
        if isinstance(v, bool) or v is None:
            return
        if isinstance(v, int):
            number(v, where)
        elif isinstance(v, float):
            if v == v and abs(v) != float("inf") and v.is_integer():
                for s, what in seeds.items():
                    if abs(v - s) <= 4096:
                        findings.append(f"{where}: {v!r} is the seed of {what}")
        elif isinstance(v, str):
            public = option_values is not None and option_values.get(key, object()) == v
            text(v, where, public)
        elif isinstance(v, dict):
            check_object(v, where)
            for k, x in v.items():
                text(str(k), f"{where}.{k}(key)", False)
                opts = secrets.public_options if k == "options" and isinstance(x, dict) else None
                if opts is not None:
                    for ok, ov in x.items():
                        text(str(ok), f"{where}.options.{ok}(key)", False)
                        walk(ov, f"{where}.options.{ok}", opts, ok)
                else:
                    walk(x, f"{where}.{k}")
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                walk(x, f"{where}[{i}]")

    def check_object(obj: dict, where: str) -> None:
        # A match (MatchSerializer): secret until its outcome is public.
        if "seats" in obj and "table" in obj and obj.get("id") in secrets.hidden_matches:
            for name in ("seed", "finished_at"):
                if obj.get(name) is not None:
                    findings.append(f"{where}.{name}: {obj[name]!r} shown for secret match {obj['id']}")
            for i, seat in enumerate(obj.get("seats") or []):
                for name in SEAT_SECRETS:
                    if seat.get(name) is not None:
                        findings.append(f"{where}.seats[{i}].{name}: {seat[name]!r} shown for secret match {obj['id']}")
        # An audit event about a secret match says nothing of its result.
        if "action" in obj and "detail" in obj and obj.get("match") in secrets.hidden_matches and obj["detail"]:
            findings.append(f"{where}.detail: {obj['detail']!r} shown for secret match {obj['match']}")
        # A rating change (history) of a secret match.
        if "after_mu" in obj and obj.get("match") in secrets.hidden_matches:
            findings.append(f"{where}: a rating change of secret match {obj['match']}")
        # A replay of a secret match.
        if "record" in obj and obj.get("match") in secrets.hidden_matches and obj.get("record") is not None:
            findings.append(f"{where}.record: the replay of secret match {obj['match']}")
        # A standings line counts public tables only.
        if "played" in obj and "match_points" in obj and "player" in obj:
            if obj["played"] != secrets.public_played.get(obj["player"], 0):
                findings.append(f"{where}.played: {obj['played']} tables counted for player {obj['player']}, "
                                f"{secrets.public_played.get(obj['player'], 0)} public")
        # A leaderboard line: rated games are public games.
        if "rating" in obj and "games" in obj and "player" in obj:
            if obj["games"] > secrets.public_played.get(obj["player"], 0):
                findings.append(f"{where}.games: {obj['games']} rated games for player {obj['player']}, "
                                f"{secrets.public_played.get(obj['player'], 0)} public")

    walk(data, "$")
    for x in sorted(numbers):
        findings.extend(f"$ (number {x}): {f}" for f in rebuild_findings(secrets, x))
    return findings


def check_owner_secrets(data: Any, may_see) -> list[str]:
    """bot_config, and forfeit details of public matches, only to the player's owner.
    ``may_see(player_id) -> bool``."""
    findings: list[str] = []

    def walk(v: Any, where: str) -> None:
        if isinstance(v, dict):
            if "bot_config" in v and "kind" in v and v["bot_config"] is not None and not may_see(v.get("id")):
                findings.append(f"{where}.bot_config of player {v.get('id')} shown to a non-owner")
            if "position" in v and "forfeit_detail" in v and v["forfeit_detail"] is not None \
                    and not may_see(v.get("player")):
                findings.append(f"{where}.forfeit_detail of player {v.get('player')} shown to a non-owner")
            for k, x in v.items():
                walk(x, f"{where}.{k}")
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{where}[{i}]")

    walk(data, "$")
    return findings


# --- the spy -----------------------------------------------------------------------------------


def live_match(seat: int) -> tuple[engine.State, int]:
    """The engine state the runner is playing, whose turn is ``seat``'s (the ``state`` of
    bots.runner.play_match), and the id of the match the worker is playing (the ``match`` of
    tournaments.services.play): found on the call stack. Only the test looks at them, to
    know what each caller is entitled to see and which table the spy sits at (duplicate
    tables share their seed, so the seed does not tell)."""
    state = match = None
    frame = sys._getframe(1)
    while frame is not None and match is None:
        local = frame.f_locals
        if state is None and isinstance(local.get("state"), engine.State) and local["state"].current_player() == seat:
            state = local["state"]
        elif state is not None and isinstance(local.get("match"), Match):
            match = local["match"]
        frame = frame.f_back
    if state is None or match is None:
        raise AssertionError("the spy found no live engine state and match on the stack: have bots.runner or "
                             "services.play changed?")
    assert match.seed == state.seed, (match.pk, match.seed, state.seed)
    return state, match.pk


class SpyBot(RandomBot):
    """``random``'s choices, but first it calls the API (through the test's :class:`Probe`)."""

    probe: Probe | None = None

    def __init__(self, game: str, seed=None, **options):
        super().__init__(game, seed, **options)
        self.seat: int | None = None
        self.decisions = 0

    def start(self, seat, view):
        self.seat = seat

    def act(self, view):
        probe = SpyBot.probe
        forfeit = False
        if probe is not None:
            try:
                forfeit = probe.step(self, *live_match(self.seat), view)
            except Exception:  # noqa: BLE001 - the runner would forfeit the seat and say nothing
                probe.errors.append(traceback.format_exc())
        self.decisions += 1
        if forfeit:
            return "no action"  # malformed: the seat is forfeited, and audited
        return super().act(view)


@pytest.fixture
def spy_registered(monkeypatch, settings):
    """``spy`` is a built-in bot for the test's duration (bots' registry is a plain dict), one
    the service accepts (tournaments.limits lists the built-in bots it runs, with their
    options: the spy takes none), given all the time its probes take (the service's bots have
    a second a decision: services.clocks). The 409s the spies provoke by the thousand are not
    logged."""
    settings.BOT_DECISION_SECONDS = settings.BOT_MATCH_SECONDS = 24 * 3600.0
    bots.register("spy", SpyBot)
    monkeypatch.setitem(limits.BOT_OPTIONS, "spy", {})
    request_log = logging.getLogger("django.request")
    level = request_log.level
    request_log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        request_log.setLevel(level)
        bots._BOTS.pop("spy", None)
        SpyBot.probe = None


@dataclass
class Role:
    name: str
    client: APIClient
    user: Any = None
    bot_id: int | None = None

    def may_see(self, player_id, owners: dict[int, int | None]) -> bool:
        if self.user is None or player_id is None:
            return False
        if self.bot_id is not None and self.bot_id != player_id:
            return False
        return owners.get(player_id) == self.user.pk


def client_for(token: str | None) -> APIClient:
    client = APIClient()
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@dataclass
class Cast:
    """The tournament under test and everyone who calls the API about it."""

    tournament: Tournament
    organiser: Role
    anonymous: Role
    bystander: Role
    owner_roles: dict[int, Role]  # player id -> its owner (full-scope token)
    own_roles: dict[int, Role]  # spy player id -> its owner, signed in (every scope)
    owners: dict[int, int | None]  # player id -> owner user id
    staff_bot: Role  # a staff account's token tied to its own remote bot
    ladder_id: int | None = None
    forfeiter_id: int | None = None  # a spy that answers nonsense where it does not probe
    program: tuple[int, list] | None = None  # an HTTP bot seated among the spies, and what it was sent


def make_cast(*, game: str, table_size: int, entrants: int, randoms: int = 1, format: str, format_config: dict,
              options: dict, duplicate: bool = False, ladder: bool = False, slug: str = "info",
              forfeiter: bool = False, program=None) -> Cast:
    """``program``: (url, what it is sent) of a local HTTP bot to seat, or to be refused a seat
    in duplicate play."""
    users = get_user_model().objects
    organiser = users.create_user(f"{slug}-organiser")
    bystander = users.create_user(f"{slug}-bystander")
    the_ladder = ladder_create(slug=f"{slug}-ladder", name="ladder", game=game, owner=organiser) if ladder else None
    tournament = tournament_create(
        name=f"{slug} {game}", slug=f"{slug}-{game.replace('_', '-')}", game=game, table_size=table_size,
        format=format, format_config=format_config, options=options, duplicate=duplicate,
        seed=derive_seed("test_information", slug),  # fixed, for a reproducible run; 63 bits as drawn
        ladder=the_ladder, owner=organiser, open_entry=True,
    )
    if tournament.owner_id != organiser.pk:  # while tournament_create(owner=) is being added
        Tournament.objects.filter(pk=tournament.pk).update(owner=organiser)
        tournament.refresh_from_db()
    owner_roles, own_roles, owners = {}, {}, {}
    forfeiter_id = None
    for i in range(entrants):
        spy = i < entrants - randoms
        name = f"{slug}-{'spy' if spy else 'rnd'}-{i + 1}"
        owner = users.create_user(f"{name}-owner")
        config = {"bot": "spy" if spy else "random", "options": {}}
        player = player_create(name=name, kind="bot", display_name=name, bot_kind="builtin", bot_config=config,
                               owner=owner)
        entry_add(tournament=tournament, player=player)
        _, token = tokens.token_create(user=owner, name="everything", scopes=ALL_SCOPES)
        owner_roles[player.pk] = Role("other-seat", client_for(token), owner)
        owners[player.pk] = owner.pk
        if spy:
            own_roles[player.pk] = Role("own", as_user(owner), owner)
            if forfeiter:
                forfeiter_id = player.pk  # the last spy entered
    _, org_token = tokens.token_create(user=organiser, name="org", scopes=ALL_SCOPES)
    _, by_token = tokens.token_create(user=bystander, name="look", scopes=ALL_SCOPES)
    staff = users.create_user(f"{slug}-staff", is_staff=True)
    remote = player_create(name=f"{slug}-staff-remote", kind="bot", bot_kind="remote", owner=staff)
    _, staff_token = tokens.token_create(user=staff, name="the bot", scopes=["read", "play"], bot=remote)
    owners[remote.pk] = staff.pk
    seated_program = seat_program(tournament, organiser, program, slug) if program is not None else None
    if seated_program is not None:  # its author is an "other-seat" too: the owner of an external bot
        author = Player.objects.get(pk=seated_program[0]).owner
        _, token = tokens.token_create(user=author, name="everything", scopes=ALL_SCOPES)
        owner_roles[seated_program[0]] = Role("other-seat", client_for(token), author)
        owners[seated_program[0]] = author.pk
    return Cast(
        tournament=tournament, organiser=Role("organiser", client_for(org_token), organiser),
        anonymous=Role("anonymous", client_for(None)), bystander=Role("bystander", client_for(by_token), bystander),
        owner_roles=owner_roles, own_roles=own_roles, owners=owners,
        staff_bot=Role("staff-bot", client_for(staff_token), staff, bot_id=remote.pk),
        ladder_id=the_ladder.pk if the_ladder else None, forfeiter_id=forfeiter_id, program=seated_program,
    )


SHARED_DEAL_RULE = "in duplicate play each entrant plays every seat rotation of its table's deal"


def seat_program(tournament: Tournament, organiser, program, slug: str) -> tuple[int, list] | None:
    """Seat a local HTTP bot (``program``: its url and the messages it gets), entered by its
    owner (entry is open). In duplicate play every door refuses it, naming the rule: its owner's
    entry, the organiser's entry of her own such bot, and duplicate play turned on with it
    entered (then it is withdrawn unplayed, and the spies play). Returns (its player id, its
    messages) when seated."""
    url, seen = program
    author = get_user_model().objects.create_user(f"{slug}-author")
    bot = player_create(name=f"{slug}-program", kind="bot", bot_kind="http", owner=author,
                        bot_config={"url": url, "limits": {"startup": 5.0, "decision": 2.0, "bank": 1.0}})
    entries = f"/api/tournaments/{tournament.pk}/entries/"

    def refused(answer, status: int, field: str) -> bool:
        return answer.status_code == status and SHARED_DEAL_RULE in answer.json()["error"]["fields"][field][0]

    if not tournament.duplicate:
        assert as_user(author).post(entries, {"player": bot.pk}, format="json").status_code == 201
        return bot.pk, seen
    assert refused(as_user(author).post(entries, {"player": bot.pk}, format="json"), 400, "player")
    hers = player_create(name=f"{slug}-organisers-program", kind="bot", bot_kind="http", owner=organiser,
                         bot_config={"url": url})
    assert refused(as_user(organiser).post(entries, {"player": hers.pk}, format="json"), 400, "player")
    hers.delete()  # never entered: the cast's owners need not know it
    Tournament.objects.filter(pk=tournament.pk).update(duplicate=False)
    assert as_user(author).post(entries, {"player": bot.pk}, format="json").status_code == 201
    turned_on = as_user(organiser).patch(f"/api/tournaments/{tournament.pk}/", {"duplicate": True}, format="json")
    assert refused(turned_on, 409, "duplicate")
    Entry.objects.filter(tournament=tournament, player=bot).delete()  # never played: gone
    Tournament.objects.filter(pk=tournament.pk).update(duplicate=True)
    return None



def public_rule(status: str, deal, round_status: str) -> bool:
    """The rule under test, stated independently of tournaments.selectors."""
    return status == Match.Status.FINISHED and (deal is None or round_status == "finished")


class Probe:
    """What the spies do at each step, and what they found."""

    PER_STEP = 1  # requests at each step after a match's first (which requests everything)

    def __init__(self, cast: Cast):
        self.cast = cast
        self.violations: list[tuple[str, str, str]] = []
        self.errors: list[str] = []
        self.hits: Counter = Counter()  # (role, endpoint) -> requests while running
        self.requests = 0
        self.steps = 0
        self.matches_probed: set[int] = set()
        self.match_steps: Counter = Counter()  # match id -> steps so far
        self.cursor = 0  # where the rotation of later steps is
        self.seconds = 0.0

    # -- what is secret now

    def secrets(self, match: Match) -> Secrets:
        t = self.cast.tournament
        rows = list(Match.objects.filter(round__tournament=t).values_list(
            "pk", "seed", "status", "deal", "round__status", "round__number", "table"))
        hidden_seeds, hidden_matches, derivations = {}, set(), set()
        public = set()
        for pk, seed, status, deal, round_status, number, table in rows:
            if public_rule(status, deal, round_status):
                public.add(pk)
                continue
            hidden_matches.add(pk)
            hidden_seeds[seed] = f"match {pk} (round {number}, table {table}, {status})"
            derivations.add((number, "deal", deal) if deal is not None else (number, "table", table))
        t_status = Tournament.objects.filter(pk=t.pk).values_list("status", flat=True).get()
        if t_status != Tournament.Status.FINISHED:
            hidden_seeds[t.seed] = f"tournament {t.pk}"
        played = Counter(Seat.objects.filter(match__in=public).values_list("player_id", flat=True))
        n = match.seats.count()
        return Secrets(
            game=t.game, players=n, options=t.options,
            public_options=engine.game(t.game).resolve_options(n, t.options),
            match_id=match.pk, match_seed=match.seed, round_number=match.round.number, table=match.table,
            deal=match.deal, hidden_seeds=hidden_seeds, hidden_matches=hidden_matches, derivations=derivations,
            tournament_id=t.pk, public_played=played,
        )

    # -- what to ask

    def endpoints(self, match: Match, secrets: Secrets, seated: list[int], spy_seat: int
                  ) -> list[tuple[str, str, int | dict]]:
        """(endpoint name, url, expected status: one for every role, or by role with None the
        others')."""
        t = self.cast.tournament.pk
        m = match.pk
        siblings = list(Match.objects.filter(round=match.round).exclude(pk=m).order_by("table")
                        .values_list("pk", flat=True))
        out = [
            ("matches/{running}", f"/api/matches/{m}/", 200),
            ("matches/{running}/replay", f"/api/matches/{m}/replay/", 409),
            ("matches?tournament", f"/api/matches/?tournament={t}", 200),
            ("matches/{running}/submissions", f"/api/matches/{m}/submissions/", 200),
            # The spy's seat: the service plays it, nobody reads it, its owner included.
            ("matches/{running}/seats/{spy}", f"/api/matches/{m}/seats/{spy_seat}/", 403),
            ("matches/{running}/seats/{spy}/events", f"/api/matches/{m}/seats/{spy_seat}/events/?follow=false", 403),
            ("seats", "/api/seats/", {"anonymous": 401, None: 200}),
            ("tournaments/{t}", f"/api/tournaments/{t}/", 200),
            ("tournaments/{t}/rounds", f"/api/tournaments/{t}/rounds/", 200),
            ("tournaments/{t}/standings", f"/api/tournaments/{t}/standings/", 200),
            ("tournaments/{t}/audit", f"/api/tournaments/{t}/audit/", 200),
            ("tournaments/{t}/entries", f"/api/tournaments/{t}/entries/", 200),
            ("tournaments", "/api/tournaments/", 200),
            ("players", "/api/players/", 200),
            ("submissions", "/api/submissions/", 200),
        ]
        out += [("players/{seated}", f"/api/players/{p}/", 200) for p in seated]
        for s in siblings:
            out.append(("matches/{sibling}", f"/api/matches/{s}/", 200))
            if s in secrets.hidden_matches:
                out.append(("matches/{sibling}/replay", f"/api/matches/{s}/replay/", 409))
            else:  # a table of an ordinary round, finished: its replay is open, its cards its own
                out.append(("matches/{sibling}/replay", f"/api/matches/{s}/replay/", 200))
        if self.cast.ladder_id is not None:
            ladder = self.cast.ladder_id
            out += [
                ("ladders/{l}", f"/api/ladders/{ladder}/", 200),
                ("ladders/{l}/leaderboard", f"/api/ladders/{ladder}/leaderboard/", 200),
            ]
            out += [("ladders/{l}/history/{seated}", f"/api/ladders/{ladder}/history/{p}/", 200) for p in seated]
        return out

    # -- one step

    def step(self, spy: SpyBot, state: engine.State, match_id: int, view: dict) -> bool:
        """One step of the match, if ``spy`` is its table's first spy. True: ``spy`` is to
        forfeit now (the forfeiter, elsewhere than where it probes, at its first decision)."""
        began = time.perf_counter()
        match = Match.objects.select_related("round__tournament").get(pk=match_id)
        assert match.status == Match.Status.RUNNING and match.round.tournament_id == self.cast.tournament.pk
        assert match.deck is None  # the deal is the seed's alone
        seats = list(match.seats.order_by("position").values_list("player_id", flat=True))
        spy_player = seats[spy.seat]
        if spy.seat != min(i for i, p in enumerate(seats) if p in self.cast.own_roles):
            # The table's first spy probes: its decisions are the match's steps.
            return spy_player == self.cast.forfeiter_id and spy.decisions == 0
        self.steps += 1
        self.matches_probed.add(match.pk)
        step = self.match_steps[match.pk]
        self.match_steps[match.pk] += 1
        secrets = self.secrets(match)
        deck = deck_codes(secrets.game, secrets.options)
        others = [s for s in range(len(seats)) if s != spy.seat]
        other_seat = others[step % len(others)]
        roles = {
            "anonymous": (self.cast.anonymous, None),
            "other-seat": (self.cast.owner_roles[seats[other_seat]], None),  # a built-in bot's owner
            "organiser": (self.cast.organiser, None),
            "bystander": (self.cast.bystander, None),
            "own": (self.cast.own_roles[spy_player], None),  # its seat is the service's: nothing of it
            "staff-bot": (self.cast.staff_bot, None),
        }
        endpoints = self.endpoints(match, secrets, seats, spy.seat)
        if step == 0:  # the first step of a match: everything, as everyone
            plan = [(r, e) for r in ROLES for e in endpoints]
        else:  # then one (role, endpoint) at a time, going round all of them
            pairs = [(r, e) for e in endpoints for r in ROLES]
            plan = [pairs[(self.cursor + i) % len(pairs)] for i in range(self.PER_STEP)]
            self.cursor += self.PER_STEP
        hidden_by_seat = {}
        for role_name, endpoint in plan:
            role, seat = roles[role_name]
            if seat not in hidden_by_seat:
                hidden_by_seat[seat] = frozenset(deck - card_tokens(state.view(seat)))
            self.request(role, endpoint, secrets, hidden_by_seat[seat], seat, spy_player)
        self.seconds += time.perf_counter() - began
        return False

    def request(self, role: Role, endpoint: tuple[str, str, int | dict], secrets: Secrets, hidden: frozenset[str],
                seat: int | None, spy_player: int) -> None:
        name, url, expected = endpoint
        if isinstance(expected, dict):
            expected = expected.get(role.name, expected[None])
        label = role.name if seat is None else f"{role.name} (seat {seat})"
        self.hits[(role.name, name)] += 1
        self.requests += 1
        try:
            answer = role.client.get(url, HTTP_ACCEPT="application/json")
        except Exception as exc:  # noqa: BLE001 - a page that raises is one more violation to report
            self.violations.append((label, url, f"raised {type(exc).__name__}: {exc}"))
            return
        if answer.status_code != expected:
            self.violations.append((label, url, f"status {answer.status_code}, expected {expected}: "
                                                f"{answer.content[:200]!r}"))
        try:
            data = answer.json()
        except ValueError:
            self.violations.append((label, url, f"not JSON: {answer.content[:120]!r}"))
            return
        public_replay = name == "matches/{sibling}/replay" and expected == 200
        # Another match's public replay shows that match's cards (codes the running match
        # shares): its seeds and numbers are checked, not its cards.
        for finding in check_response(secrets, frozenset() if public_replay else hidden, data):
            self.violations.append((label, url, finding))
        for finding in check_owner_secrets(data, lambda p: role.may_see(p, self.cast.owners)):
            self.violations.append((label, url, finding))
        if name == "seats" and answer.status_code == 200 and data.get("results"):
            self.violations.append((label, url, f"lists seats the service plays: {data['results']}"))
        # Not over-broad: a player's owner reads its secrets.
        if name == "players/{seated}" and answer.status_code == 200 and role.may_see(data.get("id"), self.cast.owners):
            if data.get("bot_config") is None:
                self.violations.append((label, url, "the owner is denied its own player's bot_config"))

    # -- the report

    def report(self) -> str:
        lines = [f"{self.steps} steps in {len(self.matches_probed)} matches, {self.requests} requests, "
                 f"{self.seconds:.1f} s probing"]
        seen = Counter()
        for role, url, what in self.violations:
            what = re.sub(r"\[\d+\]", "[*]", re.sub(r"\d{6,}", "N", what))
            seen[(role.split(" ")[0], re.sub(r"/\d+", "/{id}", url.split("?")[0]), what)] += 1
        lines.append(f"{len(self.violations)} violation(s), {len(seen)} distinct:")
        for (role, url, what), count in seen.most_common(60):
            lines.append(f"  [{count}x] {role} {url}: {what}")
        examples = self.violations[:15]
        if examples:
            lines.append("first findings verbatim:")
            lines += [f"  {role} GET {url}: {what}" for role, url, what in examples]
        for error in self.errors[:3]:
            lines.append("probe error:\n" + error)
        return "\n".join(lines)


# --- after the tournament: the positive side ----------------------------------------------------


def check_after(cast: Cast, probe: Probe) -> list[str]:
    """Once finished everything is public: replays open, seeds shown, standings complete."""
    findings = []
    t = Tournament.objects.get(pk=cast.tournament.pk)
    if t.status != Tournament.Status.FINISHED:
        return [f"the tournament is {t.status}, not finished"]
    anon = cast.anonymous.client
    body = anon.get(f"/api/tournaments/{t.pk}/").json()
    if body.get("seed") != t.seed:
        findings.append(f"finished tournament's seed shown as {body.get('seed')!r}, not {t.seed}")
    played = Counter()
    for match in Match.objects.filter(round__tournament=t).prefetch_related("seats"):
        for seat in match.seats.all():
            played[seat.player_id] += 1
        answer = anon.get(f"/api/matches/{match.pk}/replay/")
        if answer.status_code != 200 or (answer.json().get("record") or {}).get("seed") != match.seed:
            findings.append(f"replay of finished match {match.pk}: {answer.status_code} {answer.content[:100]!r}")
        detail = anon.get(f"/api/matches/{match.pk}/").json()
        if detail.get("seed") != match.seed or detail.get("finished_at") is None:
            findings.append(f"finished match {match.pk} shows seed {detail.get('seed')!r}")
        if any(s.get("score") is None or s.get("place") is None for s in detail.get("seats", [])):
            findings.append(f"finished match {match.pk} hides its seats' results: {detail.get('seats')}")
    standings = anon.get(f"/api/tournaments/{t.pk}/standings/").json()["results"]
    for line in standings:
        if line["played"] != played[line["player"]]:
            findings.append(f"standings count {line['played']} tables for player {line['player']}, "
                            f"it played {played[line['player']]}")
    if cast.ladder_id is not None:
        board = anon.get(f"/api/ladders/{cast.ladder_id}/leaderboard/").json()["results"]
        if not board or sum(line["games"] for line in board) != sum(played.values()):
            findings.append(f"the ladder rated {sum(line['games'] for line in board)} seats of {sum(played.values())}")
    # The owners read their players' configurations; others do not.
    for player_id, role in {**cast.owner_roles, **cast.own_roles}.items():
        mine = role.client.get(f"/api/players/{player_id}/").json()
        if mine.get("bot_config") is None:
            findings.append(f"{role.name}: player {player_id}'s owner is denied its bot_config")
    for player_id in cast.owners:
        if cast.bystander.client.get(f"/api/players/{player_id}/").json().get("bot_config") is not None:
            findings.append(f"the bystander reads player {player_id}'s bot_config")
    if cast.forfeiter_id is not None:
        forfeited = Seat.objects.filter(player_id=cast.forfeiter_id).exclude(forfeit_reason="")
        if not forfeited.exists():
            findings.append("the forfeiter never forfeited: the forfeit paths went unprobed")
        for seat in forfeited:
            url = f"/api/matches/{seat.match_id}/"
            mine = cast.owner_roles[cast.forfeiter_id].client.get(url).json()["seats"][seat.position]
            theirs = cast.bystander.client.get(url).json()["seats"][seat.position]
            if mine["forfeit_reason"] != "malformed" or not mine["forfeit_detail"]:
                findings.append(f"the forfeiter's owner reads {mine} at match {seat.match_id}")
            if theirs["forfeit_reason"] != "malformed" or theirs["forfeit_detail"] is not None:
                findings.append(f"the bystander reads {theirs} at match {seat.match_id}")
    # Every endpoint x role was requested while matches were running, many times.
    names = {name for _, name in probe.hits}
    enough = min(3, len(probe.matches_probed))
    for role in ROLES:
        for name in names:
            if probe.hits[(role, name)] < enough:
                findings.append(f"coverage: {role} requested {name} only {probe.hits[(role, name)]} time(s)")
    if cast.program is not None:
        program, seen = cast.program
        deals = list(Seat.objects.filter(player_id=program).values_list("match__seed", "match__deck"))
        if len(deals) < 2 or len({(seed, json.dumps(deck)) for seed, deck in deals}) != len(deals):
            findings.append(f"the program sat at {len(deals)} tables of {len(set(deals))} deals")
        starts = [m for m in seen if m.get("type") == "start"]
        if len(starts) != len(deals):
            findings.append(f"the program was sent {len(starts)} starts for its {len(deals)} tables")
    if len(probe.matches_probed) != Match.objects.filter(round__tournament=t).count():
        findings.append(f"spies probed {len(probe.matches_probed)} matches of "
                        f"{Match.objects.filter(round__tournament=t).count()}: every match needs a spy")
    return findings


def run(**config) -> tuple[Cast, Probe]:
    cast = make_cast(**config)
    probe = Probe(cast)
    SpyBot.probe = probe
    play_out(cast.tournament)
    SpyBot.probe = None
    return cast, probe


def assert_nothing_leaks(cast: Cast, probe: Probe) -> None:
    after = check_after(cast, probe)
    report = probe.report()
    print(report)
    if after:
        print("after the tournament:\n  " + "\n  ".join(after))
    assert not probe.errors, report
    assert not probe.violations, report
    assert not after, "\n".join(after)
    assert probe.steps > len(probe.matches_probed)


# --- the tests --------------------------------------------------------------------------------

GAMES = {
    # name: tournament settings. Every entrant but one is a spy, so every table seats one and
    # every match is probed from the inside.
    "stoppa": dict(game="stoppa", table_size=4, entrants=7, format="swiss",  # and the program: 8
                   format_config={"rounds": 2}, options={"hands": 1}, forfeiter=True, program=True),
    "sette_e_mezzo-duplicate": dict(game="sette_e_mezzo", table_size=3, entrants=3, format="swiss",
                                    format_config={"rounds": 2}, options={"hands": 2}, duplicate=True,
                                    forfeiter=True, program=True),
    "spacca_il_mazzo": dict(game="spacca_il_mazzo", table_size=2, entrants=4, format="swiss",
                            format_config={"rounds": 2}, options={"games": 1, "turn_limit": 40}),
    "piazza-ladder": dict(game="piazza", table_size=3, entrants=6, format="swiss",
                          format_config={"rounds": 2}, options={}, ladder=True),
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(GAMES))
def test_no_answer_lets_a_caller_rebuild_or_read_a_hidden_card(name, spy_registered, bot_server, settings):
    config = dict(GAMES[name])
    if config.pop("program", False):  # an HTTP bot: seated, or refused in duplicate play
        settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]
        config["program"] = bot_server(random_player())
    cast, probe = run(slug=name.split("-")[0].replace("_", "-"), **config)
    assert_nothing_leaks(cast, probe)


@pytest.mark.django_db
@pytest.mark.services
def test_smoke_one_short_match_leaks_nothing(spy_registered):
    """The same probes on one match, for scripts/test-services to run on PostgreSQL."""
    cast, probe = run(slug="smoke", game="sette_e_mezzo", table_size=3, entrants=3, format="swiss",
                      format_config={"rounds": 1}, options={"hands": 2})
    assert_nothing_leaks(cast, probe)


# --- the checker can fail ----------------------------------------------------------------------

def crafted_secrets() -> Secrets:
    tseed = 987654321
    seed = derive_seed(tseed, "round", 1, "table", 1)
    other = derive_seed(tseed, "round", 1, "table", 2)
    return Secrets(
        game="stoppa", players=4, options={"hands": 1},
        public_options=engine.game("stoppa").resolve_options(4, {"hands": 1}),
        match_id=7, match_seed=seed, round_number=1, table=1, deal=None,
        hidden_seeds={seed: "match 7", other: "match 8", tseed: "tournament 1"}, hidden_matches={7, 8},
        derivations={(1, "table", 1), (1, "table", 2)}, public_played=Counter({1: 1}),
    )


def test_the_checker_catches_a_seed_and_a_rebuild():
    secrets = crafted_secrets()
    clean = {"id": 7, "table": 1, "seed": None, "finished_at": None, "seats": [
        {"position": 0, "player": 1, **{name: None for name in SEAT_SECRETS}}], "count": 3}
    assert check_response(secrets, frozenset({"5D"}), clean) == []
    # The running match's seed, as a number, as a string, inside a text, as a float.
    for leak in ({**clean, "seed": secrets.match_seed}, {"x": str(secrets.match_seed)},
                 {"notes": [f"seed {secrets.match_seed} was used"]}, {"x": float(secrets.match_seed)}):
        findings = check_response(secrets, frozenset(), leak)
        assert any("seed of match 7" in f for f in findings), (leak, findings)
    # A sibling's seed, the tournament's seed.
    assert any("match 8" in f for f in check_response(secrets, frozenset(), {"s": [1, 2, secrets_seed(secrets, 8)]}))
    findings = check_response(secrets, frozenset(), {"seed": 987654321})
    assert any("seed of tournament 1" in f for f in findings)
    assert any("as the tournament's seed rebuilds the deal of running match 7" in f for f in findings), findings
    # The rebuild alone: the seed is not listed as secret, but it deals the same cards.
    bare = crafted_secrets()
    bare.hidden_seeds = {}
    findings = check_response(bare, frozenset(), {"x": bare.match_seed})
    seed = bare.match_seed
    assert findings == [f"$ (number {seed}): {seed} as a seed rebuilds the deal of running match 7"]


def secrets_seed(secrets: Secrets, match_id: int) -> int:
    return next(s for s, what in secrets.hidden_seeds.items() if what == f"match {match_id}")


def test_the_checker_catches_a_hidden_card_and_a_secret_result():
    secrets = crafted_secrets()
    hidden = frozenset({"5D", "KB", "10H"})
    assert check_response(secrets, hidden, {"cards": ["5D"]})
    assert check_response(secrets, hidden, {"detail": "answered {'type': 'lay', 'cards': ['10H']}"})
    assert check_response(secrets, hidden, {"5D": 1})
    assert not check_response(secrets, hidden, {"cards": ["6D"], "name": "spy-5D2"})
    # A public option value is not a leak where the options are shown, but is elsewhere.
    assert not check_response(secrets, hidden, {"options": {"removed_king": "KB"}})
    assert check_response(secrets, hidden, {"hand": ["KB"]})
    # A secret match's results, its finishing time; an audit event's detail; the standings.
    seat = {"position": 0, "player": 1, **{name: None for name in SEAT_SECRETS}}
    for name in SEAT_SECRETS:
        leak = {"id": 8, "table": 2, "seed": None, "finished_at": None, "seats": [{**seat, name: 0}]}
        assert any(f"seats[0].{name}" in f for f in check_response(secrets, frozenset(), leak))
    leak = {"id": 8, "table": 2, "seed": None, "finished_at": "2024-01-01T00:00:00Z", "seats": []}
    assert check_response(secrets, frozenset(), leak)
    assert check_response(secrets, frozenset(), {"id": 1, "match": 8, "action": "forfeit", "detail": {"0": "crash"}})
    assert not check_response(secrets, frozenset(), {"id": 1, "match": 8, "action": "forfeit", "detail": {}})
    line = {"rank": 1, "player": 1, "played": 2, "match_points": 3}
    assert check_response(secrets, frozenset(), line)
    assert not check_response(secrets, frozenset(), {**line, "played": 1})
    assert check_response(secrets, frozenset(), {"match": 7, "record": {"seed": 1}, "log": []})


def test_the_checker_catches_a_secret_shown_to_a_non_owner():
    player = {"id": 3, "kind": "bot", "bot_config": {"bot": "spy"}}
    assert check_owner_secrets(player, lambda p: False)
    assert not check_owner_secrets(player, lambda p: p == 3)
    assert not check_owner_secrets({**player, "bot_config": None}, lambda p: False)
    seat = {"position": 0, "player": 3, "forfeit_detail": "Traceback ..."}
    assert check_owner_secrets({"seats": [seat]}, lambda p: False)
    assert not check_owner_secrets({"seats": [seat]}, lambda p: p == 3)
