"""Who may do what through the API: every write endpoint against every kind of caller.

The roles: anonymous, a signed-in stranger, the event's owner, a co-organiser, the owner of a
player seated at the match (``seated``), the owner of an external bot (``bot_owner``), staff.
Each cell runs on a fresh world; an allowed call must succeed (2xx), a denied one must be 401
(anonymous) or 403 (signed in) with the reason, and must change nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments.models import ApiToken, AuditEvent, Match, Player, ResultSubmission, Tournament
from tournaments.services.ladders import ladder_create
from tournaments.services.leagues import league_create
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.results import result_submit
from tournaments.services.tokens import token_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

from .helpers import error, fields

pytestmark = [pytest.mark.django_db, pytest.mark.services]

ROLES = ["anonymous", "stranger", "owner", "co_organiser", "seated", "bot_owner", "staff"]


@dataclass
class World:
    users: dict
    ladder: object
    league: object
    registration: Tournament  # open for entries, four built-in bots entered
    running: Tournament  # four people at one table, match ``match`` awaiting a result
    match: Match
    submission: ResultSubmission  # reported by the first seated player's owner
    http_bot: Player
    guest_entry: object  # the first seated player's entry in ``registration``


@pytest.fixture
def world(settings) -> World:
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["bots.example.org"]
    User = get_user_model()
    users = {name: User.objects.create_user(name) for name in ROLES if name != "anonymous"}
    users["staff"].is_staff = True
    users["staff"].save()
    users["author"] = User.objects.create_user("author")  # seated too: the submission's author
    owner = users["owner"]
    ladder = ladder_create(slug="club", name="Club", game="stoppa", owner=owner)
    league = league_create(name="Lega", slug="lega", game="stoppa", table_size=3, division_size=3,
                           round_interval=timezone.timedelta(days=7), promote=1, relegate=1, owner=owner)
    league.organisers.add(users["co_organiser"])
    http_bot = player_create(name="remote", kind="bot", bot_kind="http", owner=users["bot_owner"],
                             bot_config={"url": "https://bots.example.org/play?token=s3cret"})

    def tournament(slug, **extra):
        t = tournament_create(name=slug, slug=slug, game="stoppa", table_size=4, format="round_robin",
                              options={"hands": 1}, owner=owner, **extra)
        t.organisers.add(users["co_organiser"])
        return t

    registration = tournament("saturday")
    for i in range(4):
        entry_add(tournament=registration, player=builtin_bot_get_or_create(bot="random", name=f"rnd-{i}"))
    guest = player_create(name="guest", kind="person", owner=users["author"])
    guest_entry = entry_add(tournament=registration, player=guest)

    running = tournament("club-night")
    people = [player_create(name="ada", kind="person", owner=users["author"]),
              player_create(name="bea", kind="person", owner=users["seated"]),
              player_create(name="cai", kind="person", owner=owner),
              player_create(name="dan", kind="person", owner=owner)]
    for person in people:
        entry_add(tournament=running, player=person)
    tournament_start(tournament=running)
    match = Match.objects.get(round__tournament=running)
    submission, _, _ = result_submit(match=match, scores=[10, 0, 0, -10], places=[1, 2, 2, 4], user=users["author"])
    return World(users, ladder, league, registration, running, match, submission, http_bot, guest_entry)


def client(world: World, role: str) -> APIClient:
    c = APIClient()
    if role != "anonymous":
        c.force_authenticate(world.users[role])
    return c


@dataclass(frozen=True)
class Call:
    name: str
    method: str
    url: Callable[[World], str]
    body: Callable[[World], dict] | None
    allowed: frozenset[str]


ANYONE_SIGNED_IN = frozenset(ROLES) - {"anonymous"}
ORGANISERS = frozenset({"owner", "co_organiser", "staff"})
OWNER = frozenset({"owner", "staff"})

CALLS = [
    Call("register a person", "post", lambda w: "/api/players/", lambda w: {"name": "newbie", "kind": "person"},
         ANYONE_SIGNED_IN),
    Call("change a bot", "patch", lambda w: f"/api/players/{w.http_bot.pk}/",
         lambda w: {"display_name": "renamed"}, frozenset({"bot_owner", "staff"})),
    Call("make a new version of a ladder", "post", lambda w: "/api/ladders/",
         lambda w: {"slug": "club", "name": "Club", "game": "stoppa", "system": "elo", "config": {"k": 16}}, OWNER),
    Call("make a new ladder", "post", lambda w: "/api/ladders/",
         lambda w: {"slug": "mine", "name": "Mine", "game": "stoppa", "system": "elo"}, ANYONE_SIGNED_IN),
    Call("name a ladder's co-organiser", "post", lambda w: f"/api/ladders/{w.ladder.pk}/organisers/",
         lambda w: {"username": "stranger"}, OWNER),
    Call("create a tournament", "post", lambda w: "/api/tournaments/",
         lambda w: {"name": "x", "slug": "x", "game": "stoppa", "table_size": 4, "format": "swiss"}, ANYONE_SIGNED_IN),
    Call("create a tournament on someone's ladder", "post", lambda w: "/api/tournaments/",
         lambda w: {"name": "x", "slug": "x", "game": "stoppa", "table_size": 4, "format": "swiss",
                    "ladder": w.ladder.pk}, OWNER),
    Call("enter a built-in bot", "post", lambda w: f"/api/tournaments/{w.registration.pk}/entries/",
         lambda w: {"player": builtin_bot_get_or_create(bot="heuristic").pk}, ORGANISERS),
    Call("enter someone else's bot", "post", lambda w: f"/api/tournaments/{w.registration.pk}/entries/",
         lambda w: {"player": w.http_bot.pk}, frozenset({"staff"})),
    Call("change a tournament before it starts", "patch", lambda w: f"/api/tournaments/{w.registration.pk}/",
         lambda w: {"name": "Saturday, renamed"}, ORGANISERS),
    Call("delete a tournament before it starts", "delete", lambda w: f"/api/tournaments/{w.registration.pk}/",
         None, OWNER),
    Call("rename a ladder", "patch", lambda w: f"/api/ladders/{w.ladder.pk}/", lambda w: {"name": "Renamed"}, OWNER),
    Call("start a tournament", "post", lambda w: f"/api/tournaments/{w.registration.pk}/start/", None, ORGANISERS),
    Call("cancel a tournament", "post", lambda w: f"/api/tournaments/{w.registration.pk}/cancel/", None, ORGANISERS),
    Call("name a co-organiser", "post", lambda w: f"/api/tournaments/{w.registration.pk}/organisers/",
         lambda w: {"username": "stranger"}, OWNER),
    Call("remove a co-organiser", "delete",
         lambda w: f"/api/tournaments/{w.registration.pk}/organisers/co_organiser/", None, OWNER),
    Call("withdraw an entry", "post", lambda w: f"/api/entries/{w.guest_entry.pk}/withdraw/", None, ORGANISERS),
    Call("disqualify an entry", "post", lambda w: f"/api/entries/{w.guest_entry.pk}/disqualify/",
         lambda w: {"reason": "late"}, ORGANISERS),
    Call("report a result", "post", lambda w: f"/api/matches/{w.match.pk}/submissions/",
         lambda w: {"scores": [10, 0, 0, -10], "places": [1, 2, 2, 4]}, ORGANISERS | {"seated"}),
    Call("confirm a result", "post", lambda w: f"/api/submissions/{w.submission.pk}/confirm/", None,
         ORGANISERS | {"seated"}),
    Call("reject a result", "post", lambda w: f"/api/submissions/{w.submission.pk}/reject/",
         lambda w: {"reason": "wrong"}, ORGANISERS | {"seated"}),
    Call("create a league", "post", lambda w: "/api/leagues/",
         lambda w: {"name": "L", "slug": "l2", "game": "stoppa", "table_size": 3, "division_size": 3,
                    "round_interval": "7 00:00:00", "promote": 1, "relegate": 1}, ANYONE_SIGNED_IN),
    Call("add a built-in bot to a league", "post", lambda w: f"/api/leagues/{w.league.pk}/join/",
         lambda w: {"player": builtin_bot_get_or_create(bot="random", name="rnd-0").pk}, ORGANISERS),
    Call("name a league's co-organiser", "post", lambda w: f"/api/leagues/{w.league.pk}/organisers/",
         lambda w: {"username": "stranger"}, OWNER),
    Call("make a token", "post", lambda w: "/api/tokens/", lambda w: {"name": "laptop", "scopes": ["read"]},
         ANYONE_SIGNED_IN),
]


def _changes(world: World) -> tuple:
    """Everything the calls above could change."""
    registration = Tournament.objects.get(pk=world.registration.pk)
    return (
        registration.status, registration.entries.count(), sorted(registration.organisers.values_list("pk", flat=True)),
        Tournament.objects.count(), Player.objects.count(), Player.objects.get(pk=world.http_bot.pk).display_name,
        world.ladder.organisers.count(), world.league.organisers.count(), world.league.players.count(),
        list(ResultSubmission.objects.order_by("pk").values_list("pk", "status")),
        list(world.registration.entries.values_list("withdrawn_at", "disqualified")),
        ApiToken.objects.count(), AuditEvent.objects.count(),
    )


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.name)
def test_every_write_is_allowed_to_exactly_its_roles(world, call, role):
    body = call.body(world) if call.body else None
    before = _changes(world)
    answer = getattr(client(world, role), call.method)(call.url(world), body, format="json")
    if role in call.allowed:
        assert 200 <= answer.status_code < 300, (call.name, role, answer.status_code, answer.content)
    else:
        assert answer.status_code == (401 if role == "anonymous" else 403), (call.name, role, answer.content)
        refusal = error(answer)
        assert refusal["message"]  # says why
        assert refusal["code"] in ({"not_authenticated"} if role == "anonymous" else {"permission_denied", "forbidden"}), refusal
        assert _changes(world) == before  # and nothing happened


def test_the_author_of_a_result_cannot_confirm_it_but_may_withdraw_it(world):
    author = client(world, "author")
    denied = author.post(f"/api/submissions/{world.submission.pk}/confirm/")
    assert denied.status_code == 403 and "other than its author" in error(denied)["message"]
    assert author.post(f"/api/submissions/{world.submission.pk}/reject/", {"reason": "typo"}, format="json").status_code == 200


def test_a_bots_secrets_are_shown_to_its_owner_only(world):
    url = f"/api/players/{world.http_bot.pk}/"
    for role in ROLES:
        shown = client(world, role).get(url).json()["bot_config"]
        if role in ("bot_owner", "staff"):
            assert shown == {"url": "https://bots.example.org/play?token=s3cret"}
        else:
            assert shown is None, role
    listed = client(world, "stranger").get("/api/players/?bot_kind=http").json()["results"]
    assert [p["bot_config"] for p in listed] == [None]
    assert "s3cret" not in client(world, "anonymous").get("/api/players/").content.decode()


def test_entry_open_to_owners_lets_a_bot_author_enter_his_own_bot_only(world):
    Tournament.objects.filter(pk=world.registration.pk).update(open_entry=True)
    url = f"/api/tournaments/{world.registration.pk}/entries/"
    assert client(world, "stranger").post(url, {"player": world.http_bot.pk}, format="json").status_code == 403
    assert client(world, "bot_owner").post(url, {"player": world.http_bot.pk}, format="json").status_code == 201
    mine = world.registration.entries.get(player=world.http_bot)
    assert client(world, "bot_owner").post(f"/api/entries/{mine.pk}/withdraw/").status_code == 200
    other = world.registration.entries.exclude(player=world.http_bot).first()
    assert client(world, "bot_owner").post(f"/api/entries/{other.pk}/withdraw/").status_code == 403


def test_a_league_division_is_run_by_the_leagues_organisers(world):
    for i in range(3):
        client(world, "owner").post(f"/api/leagues/{world.league.pk}/join/",
                                    {"player": builtin_bot_get_or_create(bot="random", name=f"rnd-{i}").pk},
                                    format="json")
    season = client(world, "co_organiser").post(f"/api/leagues/{world.league.pk}/seasons/")
    assert season.status_code == 201, season.json()
    division = season.json()["divisions"][0]
    assert client(world, "stranger").post(f"/api/tournaments/{division}/cancel/").status_code == 403
    assert client(world, "co_organiser").post(f"/api/tournaments/{division}/cancel/").status_code == 200


# --- tokens -----------------------------------------------------------------------------------

def bearer(token: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return c


def test_a_token_does_what_its_scopes_allow_and_no_more(world):
    _, read_only = token_create(user=world.users["owner"], name="dashboard", scopes=["read"])
    _, organise = token_create(user=world.users["owner"], name="scripts", scopes=["organise"])
    start = f"/api/tournaments/{world.registration.pk}/start/"
    denied = bearer(read_only).post(start)
    assert denied.status_code == 403
    assert bearer(read_only).get(f"/api/tournaments/{world.registration.pk}/").status_code == 200
    assert bearer(organise).post(start).status_code == 202


def test_a_play_token_reports_for_its_players_but_runs_no_event(world):
    _, play = token_create(user=world.users["seated"], name="phone", scopes=["play"])
    assert bearer(play).post(f"/api/matches/{world.match.pk}/submissions/", {"scores": [10, 0, 0, -10], "places": [1, 2, 2, 4]},
                             format="json").status_code == 200  # the pending one: same result
    assert bearer(play).post("/api/tournaments/", {"name": "x", "slug": "x", "game": "stoppa", "table_size": 4,
                                                   "format": "swiss"}, format="json").status_code == 403


def test_a_token_tied_to_one_bot_acts_for_that_bot_alone(world):
    remote = player_create(name="remote-bot", kind="bot", bot_kind="remote", owner=world.users["bot_owner"])
    _, token = token_create(user=world.users["bot_owner"], name="remote", scopes=["read", "play"], bot=remote)
    online = tournament_create(name="online", slug="online", game="stoppa", table_size=4, format="round_robin",
                               options={"hands": 1}, owner=world.users["owner"], online=True, open_entry=True)
    url = f"/api/tournaments/{online.pk}/entries/"
    assert bearer(token).post(url, {"player": world.http_bot.pk}, format="json").status_code == 403
    assert bearer(token).post(url, {"player": remote.pk}, format="json").status_code == 201
    # It reads the secrets of its own bot only: not those of its owner's other bot.
    assert bearer(token).get(f"/api/players/{remote.pk}/").json()["bot_config"] == {}
    assert bearer(token).get(f"/api/players/{world.http_bot.pk}/").json()["bot_config"] is None


def test_a_staff_accounts_bot_token_reads_no_other_players_secrets(world):
    """Staff may do everything, but a token tied to a bot acts for that bot alone: it reads no
    other player's bot_config, not even those of its own account's other bots."""
    staff = world.users["staff"]
    remote = player_create(name="staff-remote", kind="bot", bot_kind="remote", owner=staff)
    mine = player_create(name="staff-http", kind="bot", bot_kind="http", owner=staff,
                         bot_config={"url": "https://bots.example.org/staff?token=hidden"})
    _, token = token_create(user=staff, name="remote", scopes=["read", "play"], bot=remote)
    tied = bearer(token)
    for player in (world.http_bot, mine):
        assert tied.get(f"/api/players/{player.pk}/").json()["bot_config"] is None, player.name
    listed = tied.get("/api/players/?bot_kind=http").json()["results"]
    assert [p["bot_config"] for p in listed] == [None, None]
    assert "s3cret" not in tied.get("/api/players/").content.decode()
    assert tied.patch(f"/api/players/{world.http_bot.pk}/", {"display_name": "mine"}, format="json").status_code == 403
    assert tied.get(f"/api/players/{remote.pk}/").json()["bot_config"] == {}
    # Staff's own session reads them all, as before.
    assert client(world, "staff").get(f"/api/players/{world.http_bot.pk}/").json()["bot_config"] is not None


def test_a_bot_token_may_not_organise(world):
    remote = player_create(name="remote-bot", kind="bot", bot_kind="remote", owner=world.users["bot_owner"])
    answer = client(world, "bot_owner").post("/api/tokens/", {"name": "x", "scopes": ["organise"],
                                                              "bot": remote.pk}, format="json")
    assert answer.status_code == 400 and "only read and play" in fields(answer)["scopes"][0]


@pytest.mark.parametrize("kind", ["builtin", "http", "subprocess"])
def test_a_token_is_tied_only_to_a_remote_bot(world, kind):
    """A token tied to a bot is how a remote bot's program plays: the service plays every other
    bot's seats, which nobody reads, so no token is tied to one (400 naming the rule), through the
    API or manage.py token_create."""
    owner = world.users["staff"] if kind == "subprocess" else world.users["bot_owner"]
    config = {"builtin": {"bot": "random"}, "http": {"url": "https://bots.example.org/mine"},
              "subprocess": {"command": ["python3", "bot.py"]}}[kind]
    bot = player_create(name=f"mine-{kind}", kind="bot", bot_kind=kind, bot_config=config, owner=owner)
    before = ApiToken.objects.count()
    answer = client(world, "staff" if kind == "subprocess" else "bot_owner").post(
        "/api/tokens/", {"name": "x", "scopes": ["read", "play"], "bot": bot.pk}, format="json")
    assert answer.status_code == 400, answer.content
    assert "only to a remote bot" in fields(answer)["bot"][0] and "nobody reads" in fields(answer)["bot"][0]
    with pytest.raises(CommandError, match="only to a remote bot"):
        call_command("token_create", owner.get_username(), "--scope", "read", "--bot", bot.name, stdout=StringIO())
    assert ApiToken.objects.count() == before


def test_a_token_is_shown_once_and_stored_hashed(world):
    answer = client(world, "owner").post("/api/tokens/", {"name": "laptop", "scopes": ["read"]}, format="json")
    assert answer.status_code == 201
    token = answer.json()["token"]
    row = ApiToken.objects.get(pk=answer.json()["id"])
    secret = token.split("_", 2)[2]  # mzt_<prefix>_<secret>; the secret may itself hold "_"
    assert len(secret) > 20 and token not in (row.digest, row.prefix) and secret not in row.digest
    listed = client(world, "owner").get("/api/tokens/").json()["results"]
    assert [t["name"] for t in listed] == ["laptop"] and "token" not in listed[0]
    assert client(world, "stranger").get("/api/tokens/").json()["results"] == []
    assert client(world, "stranger").delete(f"/api/tokens/{row.pk}/").status_code == 404


@pytest.mark.parametrize("spoil", ["revoked", "expired", "inactive user", "wrong secret", "garbage"])
def test_a_spoilt_token_is_refused_on_every_endpoint(world, spoil):
    row, token = token_create(user=world.users["owner"], name="t", scopes=["read"])
    if spoil == "revoked":
        assert client(world, "owner").delete(f"/api/tokens/{row.pk}/").status_code == 204
    elif spoil == "expired":
        ApiToken.objects.filter(pk=row.pk).update(expires_at=timezone.now() - timezone.timedelta(seconds=1))
    elif spoil == "inactive user":
        get_user_model().objects.filter(pk=world.users["owner"].pk).update(is_active=False)
    elif spoil == "wrong secret":
        token = token[:-4] + ("aaaa" if not token.endswith("aaaa") else "bbbb")
    else:
        token = "not a token at all"
    answer = bearer(token).get("/api/tournaments/")
    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")


def test_tokens_are_managed_with_a_session_or_a_password_never_with_a_token(world):
    _, token = token_create(user=world.users["owner"], name="t", scopes=["read", "organise", "play"])
    assert bearer(token).post("/api/tokens/", {"name": "more", "scopes": ["read"]}, format="json").status_code == 401
    world.users["owner"].set_password("correct horse battery")
    world.users["owner"].save()
    basic = APIClient()
    basic.credentials(HTTP_AUTHORIZATION="Basic b3duZXI6Y29ycmVjdCBob3JzZSBiYXR0ZXJ5")  # owner:correct horse battery
    assert basic.post("/api/tokens/", {"name": "bot", "scopes": ["play"]}, format="json").status_code == 201
    # The password works there only: everywhere else it is not a way in.
    assert basic.post(f"/api/tournaments/{world.registration.pk}/cancel/").status_code == 401


READS = [
    lambda w: "/api/players/", lambda w: f"/api/players/{w.http_bot.pk}/",
    lambda w: "/api/ladders/", lambda w: f"/api/ladders/{w.ladder.pk}/", lambda w: f"/api/ladders/{w.ladder.pk}/leaderboard/",
    lambda w: f"/api/ladders/{w.ladder.pk}/organisers/",
    lambda w: f"/api/ladders/{w.ladder.pk}/history/{w.http_bot.pk}/",
    lambda w: "/api/tournaments/", lambda w: f"/api/tournaments/{w.running.pk}/",
    lambda w: f"/api/tournaments/{w.running.pk}/standings/", lambda w: f"/api/tournaments/{w.running.pk}/rounds/",
    lambda w: f"/api/tournaments/{w.running.pk}/audit/", lambda w: f"/api/tournaments/{w.running.pk}/entries/",
    lambda w: f"/api/tournaments/{w.running.pk}/organisers/",
    lambda w: "/api/entries/", lambda w: f"/api/entries/{w.guest_entry.pk}/",
    lambda w: "/api/matches/", lambda w: f"/api/matches/{w.match.pk}/", lambda w: f"/api/matches/{w.match.pk}/submissions/",
    lambda w: "/api/submissions/", lambda w: f"/api/submissions/{w.submission.pk}/",
    lambda w: "/api/leagues/", lambda w: f"/api/leagues/{w.league.pk}/", lambda w: f"/api/leagues/{w.league.pk}/seasons/",
    lambda w: f"/api/leagues/{w.league.pk}/organisers/",
]


@pytest.mark.parametrize("role", ROLES)
def test_everyone_reads_every_public_endpoint_and_only_owners_see_secrets(world, role):
    for url in READS:
        answer = client(world, role).get(url(world))
        assert answer.status_code == 200, (url(world), role)
        assert ("s3cret" in answer.content.decode()) == (role in ("bot_owner", "staff") and "/players/" in url(world))
    tokens = client(world, role).get("/api/tokens/")
    assert tokens.status_code == (401 if role == "anonymous" else 200)


def test_a_duplicate_tables_reported_result_is_shown_only_to_its_table_and_the_organisers(world):
    # Every table of a duplicate round plays the same cards: a result reported at one table
    # tells the others of the round something about theirs until the round is over.
    User = get_user_model()
    owners = [User.objects.create_user(f"dup-{i}") for i in range(8)]
    people = [player_create(name=f"dup-{i}", kind="person", owner=owner) for i, owner in enumerate(owners)]
    duplicate = tournament_create(name="dup", slug="dup", game="stoppa", table_size=4, format="swiss",
                                  format_config={"rounds": 1}, options={"hands": 1}, duplicate=True,
                                  owner=world.users["owner"])
    for person in people:
        entry_add(tournament=duplicate, player=person)
    tournament_start(tournament=duplicate)
    first, *others = Match.objects.filter(round__tournament=duplicate).order_by("table")
    at_first = {seat.player.owner for seat in first.seats.all()}
    # A player of the round who plays the same deal at another table, and never at this one.
    seated_second = next(seat.player.owner for match in others if match.deal == first.deal
                         for seat in match.seats.all() if seat.player.owner not in at_first)
    seated_first = first.seats.order_by("position").first().player.owner
    submission, _, _ = result_submit(match=first, scores=[10, 0, 0, -10], user=seated_first)

    def shown_to(user):
        c = APIClient()
        if user is not None:
            c.force_authenticate(user)
        listed = [s["id"] for s in c.get("/api/submissions/").json()["results"]]
        of_match = [s["id"] for s in c.get(f"/api/matches/{first.pk}/submissions/").json()["results"]]
        one = c.get(f"/api/submissions/{submission.pk}/").status_code
        return submission.pk in listed, submission.pk in of_match, one

    for user in (None, world.users["stranger"], seated_second):
        assert shown_to(user) == (False, False, 404)
    for user in (seated_first, world.users["owner"], world.users["staff"]):
        assert shown_to(user) == (True, True, 200)
