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
        # view(seat) held after that step's action, or an event of the log showed the seat (a
        # hand's end, drawn at its last steps, shows the hands its settlement made public: the
        # engine's own filter of the log, read from its internals as below).
        state = engine.game(record["game"]).new_match(players=players, seed=record["seed"],
                                                      options=record["options"], deck=record["deck"])
        seen_after = [visible_to(state.view(seat))]
        for action in record["actions"]:
            state.apply(action)
            seen_after.append(visible_to(state.view(seat)))
        in_views = set().union(*seen_after)
        allowed = in_views.union(*(visible_to(event if vis is None or seat in vis[0] else (vis[1] or {}))
                                   for event, vis in zip(state.log, state._vis)))
        drawn = set().union(*(drawn_codes(table) for table in data["tables"]))
        assert drawn and drawn <= allowed, (seat, drawn - allowed)

    opened = page_data(body(client.get(f"/matches/{match.pk}/replay/?seat=0&open=1")))
    everything = set().union(*(drawn_codes(table) for table in opened["tables"]))
    assert everything - in_views  # another seat's hidden cards, while they were hidden, once the hands are open


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
         "spacca_il_mazzo": (3, {"turn_limit": 150, "games": 2}), "piazza french": (4, {"deck": "french"})}


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


# --- the table at each step ----------------------------------------------------------------------

def opens(game: str, log: list[dict], index: int) -> str | None:
    """What the event ``log[index]`` opens, as the replay's rule says (tournaments/web/replays.py):
    a hand (Stoppa's and Sette e mezzo's ``hand``, Spacca il mazzo's ``game``), a stage (Stoppa's
    betting round by its first packet, Piazza's ``turn``), or nothing."""
    kind, before = log[index]["type"], log[index - 1]["type"] if index else None
    if (game, kind) in (("stoppa", "hand"), ("sette_e_mezzo", "hand"), ("spacca_il_mazzo", "game")):
        return "hand"
    if (game, kind) == ("piazza", "turn") or (game, kind) == ("stoppa", "deal") and before not in ("deal", "ante"):
        return "stage"
    return None


def every_step(record: dict, players: list[str], seat: int) -> list[tuple[dict, dict]]:
    """(step's table, step's event) for every step of the replay, part after part."""
    found, step = [], 1
    while True:
        part = replays.part(record, players, seat=seat, open_hands=False, step=step)
        found += [(part.tables[s.table], s) for s in part.steps]
        if part.last >= part.total:
            return found
        step = part.last + 1


def cut_after(record: dict, hand: int, actions: int) -> engine.State:
    """The match played to the end of its hand (game) number ``hand`` and over there."""
    count = "games" if record["game"] == "spacca_il_mazzo" else "hands"
    state = engine.game(record["game"]).new_match(players=record["players"], seed=record["seed"],
                                                  options={**record["options"], count: hand})
    for action in record["actions"][:actions]:
        state.apply(action)
    assert state.is_over()
    return state


def seat_cards(table: dict, seat: int, label: str) -> list[str]:
    return next(one["cards"] for one in table["seats"][seat]["piles"] if one["label"] == label)


def fact(table: dict, label: str) -> str | None:
    return next((value for name, value in table["facts"] if name == label), None)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_steps_table_is_the_engines_state_after_its_action_and_a_hands_last_steps_show_its_end(name):
    """The rule (tournaments/web/replays.py): a step shows the engine's view after the action that
    logged its event, the events before the first action the deal as the first action saw it;
    but when that action ended a hand or a stage and opened the next, its events before the
    opening show the end: a hand's, the match cut after that hand (its hand count the match's,
    Stoppa's mazziere the hand's); a stage's, the view after the action without the opening's
    cards, figure and round. Checked here against the engine, and against what the hand's last
    events say (its scores, its cards)."""
    for seed in range(3):
        state = random_match(name, seed)
        record = state.to_json()
        game, players = record["game"], [f"p{i}" for i in range(record["players"])]
        replayed = engine.game(game).new_match(players=record["players"], seed=record["seed"],
                                               options=record["options"], deck=record["deck"])
        seat = seed % record["players"]
        views = [replayed.view(seat)]  # the view after each action (0: as dealt)
        action_of = [0] * len(replayed.log)  # the action that logged each event (0: the deal)
        for number, action in enumerate(record["actions"], 1):
            replayed.apply(action)
            views.append(replayed.view(seat))
            action_of += [number] * (len(replayed.log) - len(action_of))
        log = replayed.log
        steps = every_step(record, players, seat)
        assert [step.number for _, step in steps] == list(range(1, len(log) + 1))
        ends = {"hand": 0, "stage": 0}
        for (table, step), index in zip(steps, range(len(log))):
            acted = action_of[index]
            later = [i for i in range(index + 1, len(log)) if action_of[i] == acted and acted and opens(game, log, i)]
            after = tables.layout(views[acted], players)
            if not later:
                assert table == after, (seed, step.number, step.said)
                continue
            closes = opens(game, log, later[0])
            ends[closes] += 1
            assert table["turn"] is None  # nobody is to act at an end
            if closes == "hand":
                hand = sum(1 for i in range(later[0]) if opens(game, log, i) == "hand")
                view = cut_after(record, hand, acted).view(seat)
                count = "games" if game == "spacca_il_mazzo" else "hands"
                view[count] = views[acted][count]
                if game == "stoppa":
                    view["dealer"] = next(e["dealer"] for e in reversed(log[:later[0]]) if e["type"] == "hand")
                assert table == tables.layout(view, players), (seed, step.number, step.said)
                assert table["facts"][0][1].startswith(f"{hand} of ")  # the hand that ended, not the next
                last = log[later[0] - 1] if log[later[0] - 1]["type"] != "bank_transfer" else log[later[0] - 2]
                # Stoppa's hand_over and Spacca il mazzo's game_over say them; Sette e mezzo has no
                # ante: the next hand starts with them
                scores = views[acted]["scores"] if game == "sette_e_mezzo" else last["scores"]
                assert [s["score"] for s in table["seats"]] == [tables.signed(n) for n in scores]
                if game == "sette_e_mezzo":  # the settlement shows every hand
                    assert last["type"] == "settle"
                    for shown in last["hands"]:
                        assert seat_cards(table, shown["seat"], "Cards") == shown["cards"]
            else:
                opening = [e for i, e in enumerate(log) if i >= later[0] and action_of[i] == acted]
                dealt = [c for e in opening if e.get("seat") == seat and e["type"] in ("deal", "draw")
                         for c in e.get("cards", [e.get("card")])]
                own = "cards" if game == "stoppa" else "hand"
                assert sorted(seat_cards(table, seat, "Hand")) == sorted(
                    c for c in views[acted][own] if c not in dealt or dealt.remove(c))
                if game == "stoppa":
                    assert fact(table, "Phase") == f"betting round {opening[0]['round'] - 1} of {views[acted]['rounds']}"
                    assert fact(table, "Prize") is None
                else:
                    assert fact(table, "Turn") == f"{views[acted]['turn'] - 1} of {views[acted]['turns']}"
                    assert not any(one["label"] == "Figure" for one in table["centre"])
        expected = {"stoppa": ("hand", "stage"), "sette_e_mezzo": ("hand",), "spacca_il_mazzo": ("hand",),
                    "piazza": ("stage",)}[game]
        assert all(ends[kind] for kind in expected), ends  # the rule was put to the test


def test_the_last_step_of_a_hand_shows_that_hand_settled_not_the_next_one_dealt(client, swiss):
    """Issue 28: at "Hand 1 is settled. Payments…" the table held hand 2's cards and scores."""
    match = finished_match(swiss)
    log = engine.load(match.record).log
    settled = next(i for i, e in enumerate(log) if e["type"] == "settle")
    assert log[settled + 1]["type"] in ("hand", "bank_transfer")  # the same action dealt hand 2
    page = body(client.get(f"/matches/{match.pk}/replay/?seat=0&step={settled + 1}"))
    table = page_data(page)["tables"][page_data(page)["steps"][settled]]
    assert fact(table, "Hand") == "1 of 2" and fact(table, "Phase") == "over"
    for shown in log[settled]["hands"]:  # every hand as it was settled, face up
        assert seat_cards(table, shown["seat"], "Cards") == shown["cards"]
    scores = list(log[settled]["payments"])  # and what the busts paid at once to the mazziere
    for bust in (e for e in log[:settled] if e["type"] == "bust" and e.get("paid")):
        scores[bust["seat"]] -= bust["paid"]
        scores[log[settled]["banker"]] += bust["paid"]
    assert [s["score"] for s in table["seats"]] == [tables.signed(n) for n in scores]
    words = text(page)
    assert "Hand 1 of 2" in words and "Hand 2 of 2" not in words
