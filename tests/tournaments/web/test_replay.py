"""The replay viewer (/matches/<id>/replay/): a finished match step by step, as the server draws
it. Refused, showing nothing of the deal, until the match's outcome is public; then one step per
event of the engine's log, from one seat's point of view (only that seat's cards) or with every
hand open; Italian cards for the Italian games, French ones for the French decks."""

from __future__ import annotations

import html
import json
import random
import re

import pytest

import engine
from tournaments.models import Match
from tournaments.web import cards, replays, tables
from tournaments.web.narration import Teller, seen_by

from ..helpers import bot_players, make_tournament, play_out
from .pages import body, text

pytestmark = [pytest.mark.django_db]

CARD_CODE = re.compile(r"\b(?:10|[2-9AJNKQ])[DCSBH]\b|\bJ[RB]\b")


def finished_match(tournament) -> Match:
    return Match.objects.filter(round__tournament=tournament, status=Match.Status.FINISHED).order_by("pk").first()


def page_data(page: str) -> dict:
    """The replay's data as the page's script reads it, each table with its parts in place."""
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)
    data = json.loads(found[1])
    pool = data["pool"]
    data["tables"] = [{"turn": t["turn"], "facts": pool[t["facts"]], "centre": pool[t["centre"]],
                       "seats": [pool[i] for i in t["seats"]]} for t in data["tables"]]
    return data


def drawn_codes(table: dict) -> set[str]:
    return {code for one in table["centre"] + [p for seat in table["seats"] for p in seat["piles"]]
            for code in one["cards"]}


def steps_said(page: str) -> list[tuple[int, str, str]]:
    """(number, event type, words) of each step of the page's list of events."""
    return [(int(n), kind, html.unescape(said)) for n, kind, said in
            re.findall(r'<li id="step-(\d+)" data-type="([^"]*)"[^>]*><a [^>]*>(.*?)</a></li>', page)]


# --- before the outcome is public -------------------------------------------------------------

def refused_page(answer) -> str:
    assert answer.status_code == 409, answer.status_code
    page = answer.content.decode()
    assert "replay-data" not in page and "data-card" not in page and "playing-card" not in page
    return page


def test_a_match_being_played_has_no_replay_yet_and_the_page_shows_nothing_of_its_deal(client, running):
    match = Match.objects.get(round__tournament=running, status=Match.Status.RUNNING)
    page = refused_page(client.get(f"/matches/{match.pk}/replay/"))
    assert "This match is not over: its replay opens when it is." in text(page)
    assert str(match.seed) not in page
    assert not CARD_CODE.search(text(page))


def test_a_finished_duplicate_table_waits_for_its_round(client, duplicate):
    match = Match.objects.filter(round__tournament=duplicate, status=Match.Status.FINISHED).first()
    assert match is not None and match.record is not None  # finished, its record stored: still not shown
    page = refused_page(client.get(f"/matches/{match.pk}/replay/"))
    assert "the replay opens when the whole round is over" in text(page)
    assert str(match.seed) not in page
    for code in match.record["actions"][0].get("cards", []):
        assert code not in page
    names = {cards.name(code, cards.ITALIAN) for code in cards.deck_codes(cards.ITALIAN)}
    assert not any(name in text(page) for name in names)


def test_an_unknown_match_is_not_found(client, db):
    assert client.get("/matches/999999/replay/").status_code == 404


# --- once it is ----------------------------------------------------------------------------------

def test_the_steps_are_the_engines_log(client, swiss):
    match = finished_match(swiss)
    log = engine.load(match.record).log
    page = body(client.get(f"/matches/{match.pk}/replay/"))
    data = page_data(page)
    assert data["total"] == len(log) and data["first"] == 1 and len(data["steps"]) == len(log)
    said = steps_said(page)
    assert [n for n, _, _ in said] == list(range(1, len(log) + 1))
    assert [kind for _, kind, _ in said] == [event["type"] for event in log]
    assert all(words and not words.startswith("Event:") for _, _, words in said)  # every event in words
    # The first step is shown, in words, before any script runs; the buttons step through it.
    words = text(page)
    assert f"Step 1 of {len(log)}" in words and said[0][2] in words
    assert 'name="step" value="2"' in page and 'aria-keyshortcuts="ArrowRight"' in page


def test_a_step_asked_for_is_drawn_by_the_server(client, swiss):
    match = finished_match(swiss)
    page = body(client.get(f"/matches/{match.pk}/replay/?seat=1&step=7"))
    said = steps_said(page)
    assert re.search(r'<li id="step-(\d+)"[^>]*aria-current="step"', page)[1] == "7"
    assert f"Step 7 of {len(said)}" in text(page) and said[6][2] in text(page)
    last = body(client.get(f"/matches/{match.pk}/replay/?step=last"))
    assert f"Step {len(said)} of {len(said)}" in text(last)


def visible_to(view: dict) -> set[str]:
    """Every card code a view holds anywhere: what its seat may know."""
    return set(CARD_CODE.findall(json.dumps(view)))


def test_a_seats_point_of_view_shows_only_its_own_cards_until_the_hands_are_opened(client, swiss):
    match = finished_match(swiss)
    record = match.record
    players = record["players"]
    for seat in range(players):
        data = page_data(body(client.get(f"/matches/{match.pk}/replay/?seat={seat}")))
        # Replayed here action by action: each step's table draws nothing but what the engine's
        # view(seat) held after that step's action.
        state = engine.game(record["game"]).new_match(players=players, seed=record["seed"],
                                                      options=record["options"], deck=record["deck"])
        seen_after = [visible_to(state.view(seat))]
        for action in record["actions"]:
            state.apply(action)
            seen_after.append(visible_to(state.view(seat)))
        allowed = set().union(*seen_after)
        drawn = set().union(*(drawn_codes(table) for table in data["tables"]))
        assert drawn and drawn <= allowed, (seat, drawn - allowed)

    opened = page_data(body(client.get(f"/matches/{match.pk}/replay/?seat=0&open=1")))
    everything = set().union(*(drawn_codes(table) for table in opened["tables"]))
    assert everything - allowed  # another seat's hidden cards, once the hands are open


def test_a_seats_point_of_view_names_no_card_that_seat_did_not_see(client, swiss):
    """The words of each step, against the engine's own filter of its log (what view(seat)
    shows of each event, read here from the engine's internals: the contract exposes it only
    for the current hand)."""
    match = finished_match(swiss)
    state = engine.load(match.record)
    names = {code: cards.name(code, cards.ITALIAN) for code in cards.deck_codes(cards.ITALIAN)}
    for seat in range(match.record["players"]):
        said = steps_said(body(client.get(f"/matches/{match.pk}/replay/?seat={seat}")))
        for (number, _, words), event, vis in zip(said, state.log, state._vis):
            seen = event if vis is None or seat in vis[0] else (vis[1] or {})
            named = {code for code, name in names.items() if re.search(rf"(?<![\w]){re.escape(name)}\b", words)}
            assert named <= set(CARD_CODE.findall(json.dumps(seen))), (seat, number, words, seen)


def test_the_replay_uses_italian_suits_for_an_italian_deck(client, swiss):
    page = body(client.get(f"/matches/{finished_match(swiss).pk}/replay/?open=1&step=last"))
    suits = set(re.findall(r'class="playing-card suit-(\w+)', page))
    assert suits and suits <= {"denari", "coppe", "spade", "bastoni"}
    assert " of denari" in page or " of coppe" in page or " of spade" in page or " of bastoni" in page
    assert set(page_data(page)["faces"]) == set(cards.deck_codes(cards.ITALIAN))


@pytest.fixture
def spacca(db):
    tournament = make_tournament(bot_players(3, prefix="spacca"), slug="spacca-rr", game="spacca_il_mazzo",
                                 table_size=3, format="round_robin", format_config={}, options={"turn_limit": 40},
                                 ladder_slug=None)
    play_out(tournament)
    return tournament


def test_the_replay_uses_french_suits_for_a_french_deck(client, spacca):
    page = body(client.get(f"/matches/{finished_match(spacca).pk}/replay/?open=1"))
    suits = set(re.findall(r'class="playing-card suit-(\w+)', page))
    assert suits and suits <= {"hearts", "diamonds", "clubs", "spades", "joker"}
    faces = page_data(page)["faces"]
    assert faces["QH"]["name"] == "queen of hearts" and faces["JB"]["name"] == "black joker"
    assert 'id="suit-hearts"' in page


def test_piazzas_french_deck_is_drawn_french(client, db):
    tournament = make_tournament(bot_players(2, prefix="pz"), slug="piazza-fr", game="piazza", table_size=2,
                                 format="round_robin", format_config={}, options={"deck": "french"}, ladder_slug=None)
    play_out(tournament)
    faces = page_data(body(client.get(f"/matches/{finished_match(tournament).pk}/replay/")))["faces"]
    assert faces["KS"]["suit"] == "spades" and faces["KS"]["name"] == "king of spades"


def test_a_long_match_is_cut_in_parts_and_each_step_is_still_reached(client, db):
    tournament = make_tournament(bot_players(3, prefix="long"), slug="spacca-long", game="spacca_il_mazzo",
                                 table_size=3, format="round_robin", format_config={}, options={"turn_limit": 400},
                                 ladder_slug=None)
    play_out(tournament)
    match = finished_match(tournament)
    log = engine.load(match.record).log
    assert len(log) > replays.PART_STEPS  # long enough to be cut
    last = body(client.get(f"/matches/{match.pk}/replay/?step=last"))
    data = page_data(last)
    parts = -(-len(log) // replays.PART_STEPS)
    assert data["first"] == (parts - 1) * replays.PART_STEPS + 1 and data["total"] == len(log)
    assert len(data["steps"]) == len(log) - data["first"] + 1
    assert [kind for _, kind, _ in steps_said(last)] == [event["type"] for event in log[data["first"] - 1:]]
    assert "Earlier steps" in text(last)
    first = page_data(body(client.get(f"/matches/{match.pk}/replay/")))
    assert len(first["steps"]) == replays.PART_STEPS and len(first["tables"]) <= replays.PART_STEPS


def test_a_reported_result_has_no_replay(client, swiss):
    match = finished_match(swiss)
    Match.objects.filter(pk=match.pk).update(record=None)
    answer = client.get(f"/matches/{match.pk}/replay/")
    assert answer.status_code == 404
    assert "there is no replay" in text(answer.content.decode())


def test_the_match_page_links_to_the_replay(client, swiss):
    match = finished_match(swiss)
    assert f'href="/matches/{match.pk}/replay/"' in body(client.get(f"/matches/{match.pk}/"))


# --- every game, straight from the engine ----------------------------------------------------------

GAMES = {"sette_e_mezzo": (4, {"hands": 3}), "stoppa": (4, {"hands": 2}), "piazza": (3, {}),
         "spacca_il_mazzo": (3, {"turn_limit": 150}), "piazza french": (4, {"deck": "french"})}


def random_match(name: str, seed: int) -> engine.State:
    game, players_options = name.split()[0], GAMES[name]
    players, options = players_options
    state = engine.game(game).new_match(players=players, seed=seed, options=options)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_event_is_said_in_words_and_no_seat_hears_a_card_it_did_not_see(name):
    """The words of each event, for each seat, against the engine's own filter of its log (what
    view(seat) shows of each event: read here from the engine's internals, since the contract
    shows it only for the current hand)."""
    for seed in range(4):
        state = random_match(name, seed)
        game = state.game.name
        deck = cards.deck_of(game, state.options)
        teller = Teller(game, deck)
        # (the jokers are left out: "the red joker" is also the name of a rule, and a joker is
        # public as soon as it is seen)
        names = {code: cards.name(code, deck) for code in cards.deck_codes(deck)
                 if deck == cards.ITALIAN or code not in ("JR", "JB")}
        for event, vis in zip(state.log, state._vis):
            assert not teller.event(event).startswith("Event:"), event
            for seat in range(state.players):
                engine_seen = event if vis is None or seat in vis[0] else (vis[1] or {"type": event["type"]})
                ours = seen_by(game, event, seat)
                allowed = set(CARD_CODE.findall(json.dumps(engine_seen)))
                assert set(CARD_CODE.findall(json.dumps(ours))) <= allowed, (seat, event, engine_seen)
                words = teller.event(ours)
                named = {code for code, said in names.items() if re.search(rf"(?<!\w){re.escape(said)}\b", words)}
                assert named <= allowed, (seat, words, engine_seen)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_games_table_draws_only_what_the_seat_sees_and_every_legal_action_has_words(name):
    state = random_match(name, 1)
    record = state.to_json()
    game = record["game"]
    teller = Teller(game, cards.deck_of(game, record["options"]))
    replayed = engine.game(game).new_match(players=record["players"], seed=record["seed"],
                                           options=record["options"], deck=record["deck"])
    players = [f"p{i}" for i in range(record["players"])]
    for action in record["actions"]:
        for seat in range(replayed.players):
            view = replayed.view(seat)
            layout = tables.layout(view, players)
            assert drawn_codes(layout) <= visible_to(view)
            assert layout["seats"][seat]["you"] and layout["facts"]
        for legal in replayed.legal_actions():
            assert teller.action(legal) and "_" not in teller.action(legal)
        replayed.apply(action)
    opened = tables.open_hands([replayed.view(s) for s in range(replayed.players)], replayed.view(None), players)
    assert not any(seat["you"] for seat in opened["seats"])
