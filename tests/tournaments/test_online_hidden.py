"""Hidden information at online tables, over many random matches: every answer and every
streamed event each caller receives is compared with the engine's own ``view(seat)`` — or, for
anyone not holding the seat, with nothing at all — at every step.

Each match is a random table of one game (its size anywhere the game allows, up to six; Piazza,
whose matches are long, up to four), each
seat a person, a remote bot (its token tied to it), a built-in bot or an HTTP bot (a local
server the workers ask), and sometimes a person who also owns a remote bot at the same table
(one token reads both of their seats, no other: the tournament allows her several seats, and
refuses the second without that). A built-in bot is sometimes owned by an account seated at the
table, or by one that is not: **the owner of a built-in bot**, like an HTTP bot's author, is
refused its seat and its stream, and her list of seats and turn stream never show it (the
service plays those seats: nobody reads them). The program is sent its own seat's view and
nothing else. The table's duplicate twin is refused: online, and with an external bot.
The reference is an engine state the test replays itself from the match's seed and the stored
actions; the API's answers are checked against it, never against the service's own state.

``MAZZIERE_HIDDEN_MATCHES`` (default 10) sets how many matches; run more by hand.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

import engine
from tournaments.models import Match, MatchAction
from tournaments.services import ServiceError, dispatch, online
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tokens import token_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start, tournament_update

from ..bots.test_http import bot_server, random_player  # noqa: F401 - bot_server: a fixture
from .helpers import error, fields, parse_events

# Committed as a server commits them, so that the API's requests take the path they take in
# production (the states of online matches kept between requests: online_reads.replays).
pytestmark = pytest.mark.django_db(transaction=True)

MATCHES = int(os.environ.get("MAZZIERE_HIDDEN_MATCHES", "10"))
GAMES = {  # short matches
    "stoppa": {"hands": 1},
    "sette_e_mezzo": {"hands": 2},
    "piazza": {"table_max": 2},
    "spacca_il_mazzo": {"turn_limit": 25},
}
SEAT_FIELDS = {"match", "position", "player", "status", "turn", "waiting_for", "forfeited", "deadline_at", "bank_left",
               "actions", "view"}
EVENT_FIELDS = {"match", "position", "actions", "status", "turn", "waiting_for", "deadline_at", "view", "forfeited"}


def plain(value):
    return json.loads(json.dumps(value))


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@dataclass
class Table:
    match: Match
    online: list[int]  # the positions played through the API
    readers: dict[int, APIClient]  # position -> a client that reads and plays it
    strangers: list[tuple[str, APIClient]]  # callers who must see no seat's cards
    reference: engine.State  # the test's own replay
    service: dict[int, list[tuple[str, APIClient]]]  # position the service plays -> its owner's clients
    programs: dict[int, list] = field(default_factory=dict)  # an HTTP bot's position -> what it was sent
    applied: int = 0
    views: list[dict] = field(default_factory=list)  # after n actions: {position or None: view}
    last_ids: dict = field(default_factory=dict)  # stream -> the last event id received

    @property
    def url(self) -> str:
        return f"/api/matches/{self.match.pk}"

    def catch_up(self) -> None:
        """Apply to the reference the actions stored since, keeping every view at every step."""
        for action in MatchAction.objects.filter(match=self.match, seq__gte=self.applied).order_by("seq") \
                .values_list("action", flat=True):
            self.reference.apply(action)
            self.applied += 1
            self.snapshot()

    def snapshot(self) -> None:
        self.views.append({pos: plain(self.reference.view(pos)) for pos in [*self.online, *self.programs, None]})


def random_table(rng: random.Random, number: int, bot_server) -> Table:
    game = rng.choice(sorted(GAMES))
    rules = engine.game(game)
    size = rng.randint(rules.min_players, min(rules.max_players, 4 if game == "piazza" else 6))
    User = get_user_model()
    kinds = [rng.choice(["person", "remote", "builtin", "builtin", "http"]) for _ in range(size)]
    if all(kind in ("builtin", "http") for kind in kinds):
        kinds[0] = "person"
    # Sometimes the first remote bot belongs to the first person: one account, two seats.
    shared = (kinds.index("remote"), kinds.index("person")) if (
        rng.random() < 0.4 and "person" in kinds and "remote" in kinds) else None
    account = {i: i for i, kind in enumerate(kinds) if kind != "builtin"}  # seat -> whose account
    if shared:
        account[shared[0]] = shared[1]
    # A built-in bot is now and then someone's: an account seated here, or one that is not.
    for i, kind in enumerate(kinds):
        if kind == "builtin" and rng.random() < 0.6:
            account[i] = rng.choice(sorted({a for a in account.values() if isinstance(a, int)}) + [f"b{i}"])
    accounts = {a: User.objects.create_user(f"m{number}-u{a}") for a in sorted(set(account.values()), key=str)}
    users = {i: accounts[a] for i, a in account.items()}
    field, programs = [], {}
    for i, kind in enumerate(kinds):
        name = f"m{number}-s{i}"
        if kind == "builtin":
            bot = rng.choice(["random", "heuristic"])
            field.append(player_create(name=f"{name}-bot", kind="bot", bot_kind="builtin", bot_config={"bot": bot},
                                       owner=users[i]) if i in users
                         else builtin_bot_get_or_create(bot=bot, name=f"{name}-bot"))
        elif kind == "http":
            url, seen = bot_server(random_player())
            programs[i] = seen
            field.append(player_create(name=name, kind="bot", bot_kind="http", owner=users[i],
                                       bot_config={"url": url, "limits": {"startup": 5.0, "decision": 2.0,
                                                                          "bank": 1.0}}))
        else:
            extra = {"bot_kind": "remote"} if kind == "remote" else {}
            field.append(player_create(name=name, kind="person" if kind == "person" else "bot", owner=users[i],
                                       **extra))
    organiser = User.objects.create_user(f"m{number}-olga")
    settings = dict(name=f"Hidden {number}", game=game, table_size=size, format="round_robin", format_config={},
                    options=GAMES[game], seed=rng.randrange(2**31), owner=organiser)
    with pytest.raises(ServiceError, match="duplicate play is for bots"):  # its twin online: never
        tournament_create(slug=f"hidden-{number}-dup", online=True, move_seconds=600, duplicate=True, **settings)
    if programs:  # nor in the room, with a program at every table of the deal
        twin = tournament_create(slug=f"hidden-{number}-dup", duplicate=True, **settings)
        with pytest.raises(ServiceError, match="in duplicate play each entrant plays every seat rotation"):
            entry_add(tournament=twin, player=field[min(programs)])
        twin.delete()
    tournament = tournament_create(slug=f"hidden-{number}", online=True, move_seconds=600, **settings)
    for i, player in enumerate(field):
        if shared and i == max(shared):  # her second seat: refused until the organiser allows it
            with pytest.raises(ServiceError, match="an account holds at most one seat whose cards it reads"):
                entry_add(tournament=tournament, player=player)
            tournament_update(tournament=tournament, several_seats=True)
        entry_add(tournament=tournament, player=player)
    _, progress = tournament_start(tournament=tournament)
    # As the opening task does: the service's seats (built-in bots, programs) are sent to the
    # workers (here: at once, as every move's request sends them after it).
    dispatch.send_progress(online.online_matches_open(match_ids=list(progress.to_open)))
    match = Match.objects.select_related("round__tournament").get(round__tournament=tournament)
    by_player = {seat.player_id: seat.position for seat in match.seats.all()}
    positions = {i: by_player[player.pk] for i, player in enumerate(field)}
    # One client per account: a token tied to the bot for an account that has only a remote
    # bot here, else a token for the whole account (a person, or a person with their bot).
    clients = {}
    for user in accounts.values():
        mine = [i for i in users if users[i] is user]
        tied = field[mine[0]] if len(mine) == 1 and kinds[mine[0]] == "remote" else None
        _, secret = token_create(user=user, name="play", scopes=["read", "play"], bot=tied)
        clients[user.pk] = bearer(secret)
    readers = {positions[i]: clients[users[i].pk] for i in users if kinds[i] in ("person", "remote")}
    service = {positions[i]: [(f"the owner of seat {positions[i]}'s {kind} bot", clients[users[i].pk])]
               for i, kind in enumerate(kinds) if kind in ("builtin", "http") and i in users}
    _, olga = token_create(user=organiser, name="desk", scopes=["read", "organise", "play"])
    staff = User.objects.create_user(f"m{number}-staff", is_staff=True)
    staff_client = APIClient()
    staff_client.force_authenticate(staff)
    strangers = [("the organiser", bearer(olga)), ("staff", staff_client), ("a visitor", APIClient())]
    reference = engine.game(game).new_match(players=size, seed=match.seed, options=tournament.options,
                                            deck=match.deck)
    table = Table(match=match, online=sorted(readers), readers=readers, strangers=strangers, reference=reference,
                  service=service, programs={positions[i]: seen for i, seen in programs.items()})
    table.snapshot()
    table.catch_up()
    return table


def check_seat(table: Table, pos: int) -> None:
    """The seat's owner reads exactly the engine's view of it, in the answer and in its stream."""
    now = table.views[table.applied]
    body = table.readers[pos].get(f"{table.url}/seats/{pos}/").json()
    assert set(body) == SEAT_FIELDS
    assert body["view"] == now[pos], (pos, table.applied)
    assert (body["position"], body["actions"], body["turn"]) == (pos, table.applied,
                                                                 table.reference.current_player())
    key = ("seat", pos)
    headers = {"HTTP_LAST_EVENT_ID": table.last_ids[key]} if key in table.last_ids else {}
    answer = table.readers[pos].get(f"{table.url}/seats/{pos}/events/?follow=false", **headers)
    got = parse_events(b"".join(answer.streaming_content))
    assert got, "a stream always sends the view as it stands"
    for event in got:
        if event["event"] == "over":
            assert table.reference.is_over()
            assert set(event["data"]) == {"match", "status", "actions", "scores", "places"}
            continue
        assert set(event["data"]) == EVENT_FIELDS
        n = int(event["id"])
        assert event["data"]["actions"] == n and event["data"]["position"] == pos
        assert event["data"]["view"] == table.views[n][pos], (pos, n)
    table.last_ids[key] = got[-1]["id"]


def check_others_see_nothing(table: Table, pos: int) -> None:
    """Every other caller — the owners of the other seats, organisers, staff, visitors — is
    refused the seat, its stream included, with nothing of it in the answer."""
    others = [(f"seat {other}'s owner", table.readers[other]) for other in table.online
              if table.readers[other] is not table.readers[pos]]
    for who, client in [*others, *table.strangers]:
        for path in (f"seats/{pos}/", f"seats/{pos}/events/?follow=false"):
            answer = client.get(f"{table.url}/{path}")
            assert answer.status_code in (401, 403), (who, path, answer.status_code)
            # The reason alone: the body is {"error": {"code", "message"}}, with no fields and no data.
            assert not answer.streaming and set(error(answer)) == {"code", "message"}, (who, path)


def check_service_seats(table: Table) -> None:
    """Nobody reads a seat the service plays (a built-in bot's, an HTTP bot's): its owner, the
    owners of the other seats, organisers, staff and visitors are all refused it and its stream;
    each account's list of seats and turn stream show only the seats it plays through the API."""
    for pos in sorted(set(range(table.match.seats.count())) - set(table.online)):
        callers = [*table.service.get(pos, []), *((f"seat {o}'s owner", table.readers[o]) for o in table.online),
                   *table.strangers]
        for who, client in callers:
            for path in (f"seats/{pos}/", f"seats/{pos}/events/?follow=false"):
                answer = client.get(f"{table.url}/{path}")
                assert answer.status_code in (401, 403), (who, path, answer.status_code)
                assert not answer.streaming and set(error(answer)) == {"code", "message"}, (who, path)
    for _, client in [*(c for owners in table.service.values() for c in owners),
                      *((None, table.readers[o]) for o in table.online)]:
        listed = {row["position"] for row in client.get("/api/seats/").json()["results"]
                  if row["match"] == table.match.pk}
        assert listed <= set(table.online), listed
        turns = parse_events(b"".join(client.get("/api/seats/events/?follow=false").streaming_content))
        assert {e["data"]["position"] for e in turns if e["data"]["match"] == table.match.pk} <= set(table.online)


def check_programs(table: Table) -> None:
    """Each HTTP bot was sent its own seat's view, as the engine has it at that point, and nothing
    else: a message's view is one of its seat's views in the match so far."""
    for pos, seen in table.programs.items():
        mine = [json.dumps(views[pos], sort_keys=True) for views in table.views]
        for message in seen:
            if "view" in message:
                assert json.dumps(plain(message["view"]), sort_keys=True) in mine, (pos, message["type"])


def check_spectators(table: Table, rng: random.Random) -> None:
    """Spectators (one of them each time) read the public view, in the answer and the stream."""
    public = table.views[table.applied][None]
    who, client = rng.choice(table.strangers)
    assert client.get(f"{table.url}/table/").json()["view"] == public, who
    key = ("spectator",)
    query = f"&last_event_id={table.last_ids[key]}" if key in table.last_ids else ""
    answer = table.strangers[-1][1].get(f"{table.url}/events/?follow=false{query}")
    for event in parse_events(b"".join(answer.streaming_content)):
        table.last_ids[key] = event["id"]
        if event["event"] == "view":
            assert "position" not in event["data"]
            assert event["data"]["view"] == table.views[int(event["id"])][None]


def test_no_seat_ever_sees_a_card_it_may_not_see_in_any_answer_or_event(bot_server, settings):
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]  # the programs: local servers
    rng = random.Random(20261124)
    steps = 0
    kinds = set()
    for number in range(MATCHES):
        table = random_table(rng, number, bot_server)
        kinds |= {("service", bool(table.service)), ("program", bool(table.programs))}
        check_service_seats(table)
        checked_denials = False
        while True:  # each step: every online seat, the spectators, then the awaited seat moves
            for pos in table.online:
                check_seat(table, pos)
            turn = table.reference.current_player()
            if not checked_denials or turn is None or rng.random() < 0.05:  # first, last, now and then
                for pos in table.online:
                    check_others_see_nothing(table, pos)
                checked_denials = True
            check_spectators(table, rng)
            if turn is None:
                break
            check_programs(table)
            assert turn in table.online, "the service's seats never keep an online match waiting"
            # The turn stream of the awaited seat's owner shows that seat, with its own view only.
            turns = parse_events(b"".join(table.readers[turn].get("/api/seats/events/?follow=false").streaming_content))
            mine = [e for e in turns if e["data"]["match"] == table.match.pk]
            assert [e["data"]["position"] for e in mine] == [turn]
            assert mine[0]["data"]["view"] == table.views[table.applied][turn]
            legal = table.views[table.applied][turn]["legal_actions"]
            if rng.random() < 0.1:  # a refused move says why, and shows nothing
                other = next((p for p in table.online if p != turn and table.readers[p] is not table.readers[turn]),
                             None)
                if other is not None:
                    refused = table.readers[other].post(f"{table.url}/seats/{other}/actions/",
                                                        {"action": legal[0]}, format="json")
                    assert refused.status_code == 409 and "view" not in json.dumps(error(refused))
                illegal = table.readers[turn].post(f"{table.url}/seats/{turn}/actions/",
                                                   {"action": {"type": "peek"}}, format="json")
                assert illegal.status_code == 422 and set(error(illegal)) == {"code", "message", "fields"}
                assert set(fields(illegal)) == {"action"}
            answer = table.readers[turn].post(f"{table.url}/seats/{turn}/actions/", {"action": rng.choice(legal)},
                                              format="json")
            assert answer.status_code == 200, answer.json()
            assert set(answer.json()) == {"seq", "action", "repeated"}
            table.catch_up()
            steps += 1
        assert Match.objects.get(pk=table.match.pk).status == Match.Status.FINISHED
        check_programs(table)
        check_service_seats(table)
    assert steps > MATCHES * 5
    assert {("service", True), ("program", True)} <= kinds  # owned built-in bots and programs were there
