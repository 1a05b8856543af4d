"""What the service accepts (tournaments/limits.py): every input bounded, the bound named in
the refusal. Pure checks first, then the services that apply them (database: `services`)."""

from __future__ import annotations

import dataclasses
import random
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

import bots
import engine
from bots.external import Limits
from tournaments import games, limits
from tournaments.models import Entry, Player, Tournament
from tournaments.services import ServiceError
from tournaments.services.leagues import league_create
from tournaments.services.players import player_bot, player_create
from tournaments.services.seeds import derive_seed
from tournaments.services.tournaments import (
    entry_add,
    entry_disqualify,
    entry_withdraw,
    tournament_cancel,
    tournament_create,
    tournament_start,
)

from .helpers import bot_players, fields, make_tournament, play_out


def refused(check, *args, **kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as err:
        check(*args, **kwargs)
    return err.value


# =========================================================================== pure limits

# --------------------------------------------------------------------------- engine options


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_every_engine_option_is_bounded_by_the_limits_or_by_the_engine(name):
    bounded = set(games.get(name).option_bounds) | set(games.get(name).engine_bounded)
    assert bounded == set(engine.game(name).options)
    assert not set(games.get(name).option_bounds) & set(games.get(name).engine_bounded)


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_the_games_docs_list_every_option_with_the_range_the_service_accepts(name):
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / f"{name}.md").read_text()
    section = doc.split("## Limits in tournaments", 1)[1].split("\n## ", 1)[0]
    for option, bound in games.get(name).option_bounds.items():
        assert f"| `{option}` | {bound.low} to {bound.high} |" in section
    for option in games.get(name).engine_bounded:
        assert f"`{option}`" in section


def resolved(game, players, **options):
    return engine.game(game).resolve_options(players, options)


BOUNDS = [(game, option, bound) for game, declared in sorted(games.GAMES.items())
          for option, bound in sorted(declared.option_bounds.items())]
# Companion options (at the ceiling, just above it) under which the engine accepts both
# values and the ceiling, not another rule, is what the value above meets (the menus of
# amounts are checked on their own below).
CONTEXT = {
    ("stoppa", "cip"): ({"max_bet": 10_000, "ante": 1000},) * 2,
    ("stoppa", "max_bet"): ({"cip": 100, "ante": 100},) * 2,
    ("stoppa", "ante"): ({"max_bet": 100},) * 2,
    ("sette_e_mezzo", "stake_min"): ({"stake_max": 10_000}, {"stake_max": 10_001}),
    ("sette_e_mezzo", "stake_max"): ({"stake_min": 9_900},) * 2,
    ("spacca_il_mazzo", "games"): ({"turn_limit": 500},) * 2,
    ("spacca_il_mazzo", "turn_limit"): ({"games": 2},) * 2,
}


@pytest.mark.parametrize("game, option, bound", BOUNDS, ids=[f"{g}.{o}" for g, o, _ in BOUNDS])
def test_an_engine_option_at_its_ceiling_is_accepted_and_one_above_is_refused_naming_it(game, option, bound):
    players = engine.game(game).min_players + 1
    at, above = CONTEXT.get((game, option), ({}, {}))
    limits.check_game_options(game, players, resolved(game, players, **at, **{option: bound.high}))
    error = refused(limits.check_game_options, game, players, resolved(game, players, **above, **{option: bound.high + 1}))
    assert error.field == "options"
    assert repr(option) in error.message and f"to {bound.high}" in error.message
    assert str(bound.high + 1) in error.message


def test_the_reported_engine_option_hands_of_a_billion_is_refused():
    error = refused(limits.check_game_options, "sette_e_mezzo", 4, resolved("sette_e_mezzo", 4, hands=1_000_000_000))
    assert "'hands' must be from 1 to 200" in error.message


def test_an_engine_option_the_limits_do_not_know_is_refused(monkeypatch):
    monkeypatch.delitem(games.get("piazza").engine_bounded, "rivolta_scope")
    error = refused(limits.check_game_options, "piazza", 2, resolved("piazza", 2))
    assert "'rivolta_scope' is not accepted in tournaments of piazza" in error.message


def test_a_stoppa_bet_menu_holds_at_most_200_amounts_defaults_included():
    limits.check_game_options("stoppa", 4, resolved("stoppa", 4, cip=5, max_bet=1000))  # 200 amounts
    error = refused(limits.check_game_options, "stoppa", 4, resolved("stoppa", 4, cip=5, max_bet=1005))
    assert "max_bet / cip must be at most 200" in error.message and "1005 / 5 = 201" in error.message
    # max_bet defaults to N·ante: 6 × 40 = 240 one-chip bets
    error = refused(limits.check_game_options, "stoppa", 6, resolved("stoppa", 6, ante=40))
    assert "240 / 1 = 240" in error.message and "set max_bet or raise cip" in error.message


def test_a_sette_e_mezzo_stake_menu_holds_at_most_200_amounts():
    limits.check_game_options("sette_e_mezzo", 4, resolved("sette_e_mezzo", 4, stake_min=801, stake_max=1000))
    error = refused(limits.check_game_options, "sette_e_mezzo", 4,
                    resolved("sette_e_mezzo", 4, stake_min=800, stake_max=1000))
    assert "stake_max - stake_min + 1 must be at most 200" in error.message and "= 201" in error.message


def play_randomly(game, players, options, seed):
    state = engine.game(game).new_match(players=players, seed=seed, options=options)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("game, players, options", [
    ("stoppa", 6, {"hands": 50, "ante": 1000, "side_ante": 1000, "cip": 100, "max_bet": 10_000, "card_fee": 1000}),
    ("sette_e_mezzo", 10, {"hands": 200, "stake_min": 9_801, "stake_max": 10_000}),
    ("spacca_il_mazzo", 4, {"games": 2, "turn_limit": 5000}),
    ("spacca_il_mazzo", 4, {"games": 20, "turn_limit": 500}),
    ("piazza", 8, {"deck": "french_double", "table_max": 50, "replacement_limit": 20}),
])
def test_a_match_at_the_ceilings_ends_in_moments_with_scores_far_inside_32_bits(game, players, options):
    limits.check_game_options(game, players, resolved(game, players, **options))
    started = time.perf_counter()
    state = play_randomly(game, players, options, seed=1)
    assert time.perf_counter() - started < 10
    assert max(abs(s) for s in state.scores()) < limits.INT32_MAX // 10
    assert len(state.to_json()["actions"]) <= limits.MATCH_TURNS_MAX  # what a replay and a table sit through


def test_a_spacca_il_mazzo_match_runs_at_most_10000_turns_games_times_turn_limit():
    limits.check_game_options("spacca_il_mazzo", 4, resolved("spacca_il_mazzo", 4, games=10, turn_limit=1000))
    error = refused(limits.check_game_options, "spacca_il_mazzo", 4,
                    resolved("spacca_il_mazzo", 4, games=20, turn_limit=5000))  # the red team's 100,000
    assert "games x turn_limit must be at most 10,000" in error.message and "20 x 5000 = 100,000" in error.message
    error = refused(limits.check_game_options, "spacca_il_mazzo", 4, resolved("spacca_il_mazzo", 4, games=11))
    assert "11 x 1000 = 11,000" in error.message  # the default turn_limit counts too


# --------------------------------------------------------------------------- built-in bots


def test_every_built_in_bot_has_an_explicit_list_of_the_options_it_accepts():
    builtin = {b for g in engine.games() for b in bots.available(g)} - {"subprocess", "http"}
    assert builtin == set(limits.BOT_OPTIONS)
    assert {n for n, g in games.GAMES.items() if g.ismcts_iterations is not None} == {
        g for g in engine.games() if "ismcts" in bots.available(g)}


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_the_phases_ismcts_may_delegate_are_the_phases_views_name(name):
    game = engine.game(name)
    seen = set()
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(3):
            state = game.new_match(players=players, seed=seed)
            rng = random.Random(seed)
            while not state.is_over():
                seen.add(state.view(state.current_player()).get("phase"))
                state.apply(rng.choice(state.legal_actions()))
    seen.discard(None)
    assert seen == set(games.get(name).phases)


def test_the_bot_docs_list_every_option_and_limit_the_service_accepts():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "bots.md").read_text()
    section = doc.split("## Through the tournament service", 1)[1]
    for name, options in limits.BOT_OPTIONS.items():
        assert f"`{name}`" in section
        for option in options:
            assert f"| `{option}` |" in section
    for name, bound in limits.EXTERNAL_LIMITS.items():
        assert f"| `{name}` | {bound.low:g} to " in section
    for game, ceiling in ((n, g.ismcts_iterations) for n, g in games.GAMES.items() if g.ismcts_iterations):
        assert f"{engine.game(game).title.split(' (')[0]} {ceiling}" in section


def test_the_reported_ismcts_with_a_trillion_iterations_is_refused():
    error = refused(limits.check_bot_options, "ismcts", {"iterations": 10**12})
    assert error.field == "bot_config"
    assert "bot_config.options.iterations must be an integer from 1 to 1000" in error.message


@pytest.mark.parametrize("option, inside, outside", [
    ("iterations", 1000, 1001), ("iterations", 1, 0), ("time_ms", 1000, 1000.5), ("time_ms", 1, 0.5),
    ("resample", 20, 21), ("resample", 0, -1), ("depth", 1000, 1001), ("exploration", 10, 10.01),
    ("guard", 0, -0.1), ("exploration", 0.7, float("nan")), ("iterations", 40, 40.0), ("resample", 1, True),
    ("time_ms", 100, 10**400), ("exploration", 1, "1"),
])
def test_ismcts_numbers_just_inside_are_accepted_and_just_outside_refused(option, inside, outside):
    assert limits.check_bot_options("ismcts", {option: inside}) == {option: inside}
    error = refused(limits.check_bot_options, "ismcts", {option: outside})
    assert f"options.{option} must be" in error.message and "from" in error.message


def test_a_bot_option_nobody_accepts_is_refused_naming_those_accepted():
    error = refused(limits.check_bot_options, "ismcts", {"iterations": 5, "threads": 64})
    assert "ismcts has no option 'threads'" in error.message
    accepted = "delegate, depth, exploration, guard, horizon, iterations, mode, resample, rollout, time_ms"
    assert f"it accepts {accepted}" in error.message
    error = refused(limits.check_bot_options, "heuristic", {"depth": 3})
    assert "heuristic has no option 'depth'; it takes no options" in error.message
    assert limits.check_bot_options("expectimax", {"bank_edge": 1}) == {"bank_edge": 1}
    assert "bank_edge must be a number from 0 to 1" in refused(limits.check_bot_options, "expectimax",
                                                              {"bank_edge": 1.5}).message


def test_an_ismcts_cannot_nest_a_search_bot_nor_delegate_unknown_phases():
    assert "rollout must be a built-in bot that does not search: one of expectimax, heuristic, random" in refused(
        limits.check_bot_options, "ismcts", {"rollout": "ismcts"}).message
    assert "rollout" in refused(limits.check_bot_options, "ismcts", {"rollout": "http"}).message
    assert "phase names, each once" in refused(limits.check_bot_options, "ismcts", {"delegate": ["bet", "bet"]}).message
    assert "phase names" in refused(limits.check_bot_options, "ismcts", {"delegate": ["sleep"]}).message
    assert "phase names" in refused(limits.check_bot_options, "ismcts", {"delegate": "bet"}).message
    assert limits.check_bot_options("ismcts", {"delegate": [], "rollout": None}) == {"delegate": [], "rollout": None}
    assert "may not be null" in refused(limits.check_bot_options, "ismcts", {"exploration": None}).message


def test_what_an_option_means_for_each_game_is_checked_per_game():
    problem = limits.bot_options_problem
    assert problem("ismcts", "sette_e_mezzo", {"rollout": "expectimax"}) is None
    assert problem("ismcts", "stoppa", {"rollout": "expectimax"}) == "rollout 'expectimax' does not play stoppa"
    assert problem("ismcts", "stoppa", {"delegate": ["bet"]}) is None
    assert "'stake' is not a phase of stoppa" in problem("ismcts", "stoppa", {"delegate": ["stake"]})
    assert "none: its views have no phase" in problem("ismcts", "spacca_il_mazzo", {"delegate": ["bet"]})
    assert problem("ismcts", "piazza", {"iterations": 30}) is None
    assert problem("ismcts", "piazza", {"iterations": 31}) == \
        "iterations must be at most 30 for piazza (about a second a decision), got 31"
    assert problem("ismcts", "sette_e_mezzo", {"iterations": 1000}) is None


# --------------------------------------------------------------------------- external bots


def test_the_limits_an_external_bot_may_set_are_the_fields_of_limits_and_the_defaults_fit():
    assert set(limits.EXTERNAL_LIMITS) == {f.name for f in dataclasses.fields(Limits)}
    limits.check_external_limits(dataclasses.asdict(Limits()))
    for bound in limits.EXTERNAL_LIMITS.values():
        assert 0 < bound.low < bound.high


@pytest.mark.parametrize("name, inside, outside", [
    ("decision", 10, 10.5), ("decision", 0.01, 0), ("decision", 1, -5), ("startup", 60, 61), ("bank", 120, 121),
    ("memory_mb", 4096, 4097), ("memory_mb", 64, 63), ("memory_mb", 512, 512.0), ("answer_bytes", 1 << 20, (1 << 20) + 1),
    ("output_bytes", 64 << 20, (64 << 20) + 1), ("stderr_bytes", 64 << 10, (64 << 10) + 1), ("bank", 5, True),
    ("decision", 1, float("inf")), ("bank", 10, 10**400),
])
def test_an_external_limit_just_inside_is_accepted_and_just_outside_refused(name, inside, outside):
    assert limits.check_external_limits({name: inside}) == {name: inside}
    error = refused(limits.check_external_limits, {name: outside})
    assert error.field == "bot_config" and f"bot_config.limits.{name} must be" in error.message
    bound = limits.EXTERNAL_LIMITS[name]
    assert f"from {bound.low} to {bound.high}" in error.message


def test_an_unknown_limit_is_refused_naming_the_fields():
    error = refused(limits.check_external_limits, {"cpu": 1})
    assert "has no field 'cpu'" in error.message and "decision" in error.message


@pytest.mark.parametrize("url, words", [
    ("http://[::1", "does not parse as a URL"),
    ("http://bots.example.org:99999/", "does not parse as a URL"),
    ("http://bots.example.org:port/", "does not parse as a URL"),
    ("http:///play", "must name a host"),
    ("https://ada:secret@bots.example.org/", "credentials in bot_config.headers"),
    ("https://bots.example.org/a b", "spaces or control characters"),
    ("https://bots.example.org/\r\nHost: evil", "spaces or control characters"),
    ("ftp://bots.example.org/", "http:// or https:// URL"),
    ("https://bots.example.org/" + "x" * 1976, "at most 2000 characters, got 2001"),
    (["http://bots.example.org/"], "http:// or https:// URL"),
])
def test_a_bot_url_that_cannot_be_called_is_refused_with_the_reason(url, words):
    error = refused(limits.check_http_url, url)
    assert error.field == "bot_config" and words in error.message


def test_a_bot_url_of_2000_characters_is_accepted_and_the_host_of_a_bad_one_is_empty():
    url = "https://bots.example.org/" + "x" * 1975
    assert len(url) == 2000 and limits.check_http_url(url) == url
    assert limits.url_host("http://[::1") == "" and limits.url_host(None) == ""
    assert limits.url_host("https://Bots.Example.org:8443/x") == "bots.example.org"


def test_http_headers_are_few_short_tokens_with_visible_values():
    ten = {f"X-Key-{i}": "v" for i in range(10)}
    assert limits.check_http_headers(ten) == ten
    assert "at most 10 headers, got 11" in refused(limits.check_http_headers, {**ten, "X-Eleven": "v"}).message
    token = "Bearer " + "a" * 4089
    assert limits.check_http_headers({"Authorization": token}) == {"Authorization": token}
    too_long = refused(limits.check_http_headers, {"Authorization": token + "a"})
    assert "at most 4096 visible ASCII characters" in too_long.message
    assert "no line breaks" in refused(limits.check_http_headers, {"X-A": "a\r\nHost: evil"}).message
    assert "1 to 64 letters" in refused(limits.check_http_headers, {"X A": "v"}).message
    assert "1 to 64 letters" in refused(limits.check_http_headers, {"X-" + "a" * 63: "v"}).message
    assert "set by the service" in refused(limits.check_http_headers, {"Content-Length": "1"}).message
    assert "set by the service" in refused(limits.check_http_headers, {"host": "evil"}).message
    assert "given twice" in refused(limits.check_http_headers, {"X-A": "1", "x-a": "2"}).message
    assert "must be a string" in refused(limits.check_http_headers, {"X-A": 1}).message


def test_an_http_config_holds_url_headers_and_limits_only():
    error = refused(limits.check_http_config, {"url": "https://bots.example.org/", "timeout": -5})
    assert "has no key 'timeout'; its keys: url, headers, limits" in error.message
    config = {"url": "https://bots.example.org/", "headers": {"Authorization": "Bearer x"}, "limits": {"decision": 2}}
    assert limits.check_http_config(config) == config


def test_a_subprocess_command_is_a_short_argv_without_nul():
    assert limits.check_subprocess_config({"command": ["python3"] + ["a" * 1000] * 63})["command"][1] == "a" * 1000
    assert "at most 64 arguments, got 65" in refused(limits.check_subprocess_config,
                                                     {"command": ["python3"] * 65}).message
    assert "command[1] must be at most 1000 characters" in refused(limits.check_subprocess_config,
                                                                   {"command": ["python3", "a" * 1001]}).message
    assert "without NUL" in refused(limits.check_subprocess_config, {"command": ["python3", "a\x00b"]}).message
    assert "non-empty list" in refused(limits.check_subprocess_config, {"command": ["", "x"]}).message
    assert "has no key 'env'" in refused(limits.check_subprocess_config, {"command": ["x"], "env": {}}).message


# --------------------------------------------------------------------------- numbers, times, results


def test_a_seed_is_from_0_to_2_to_the_63_minus_1():
    assert limits.check_seed(0) == 0 and limits.check_seed(2**63 - 1) == 2**63 - 1
    for bad in (-1, 2**63, True, 1.0, "7"):
        assert "seed must be an integer from 0 to 2**63 - 1" in refused(limits.check_seed, bad).message


@pytest.mark.parametrize("value, ok", [
    (timedelta(minutes=1), True), (timedelta(seconds=59), False), (timedelta(days=366), True),
    (timedelta(days=366, seconds=1), False), (timedelta(0), False), (timedelta(days=-1), False),
    (timedelta(days=999_999_999), False), (3600, False),
])
def test_a_round_interval_is_from_a_minute_to_366_days(value, ok):
    if ok:
        assert limits.check_round_interval(value) == value
    else:
        error = refused(limits.check_round_interval, value)
        assert error.field == "round_interval"
        assert "must be a duration from 1 minute to 366 days" in error.message


def test_a_start_at_most_ten_years_ahead():
    now = timezone.now()
    assert limits.check_starts_at(now + limits.STARTS_AT_AHEAD_MAX, now)
    error = refused(limits.check_starts_at, now + limits.STARTS_AT_AHEAD_MAX + timedelta(seconds=1), now)
    assert error.field == "starts_at" and "at most 10 years ahead" in error.message
    assert "with its time zone" in refused(limits.check_starts_at, now.replace(tzinfo=None), now).message


def test_result_scores_fit_the_32_bit_column():
    assert limits.check_scores([limits.INT32_MAX, limits.INT32_MIN, 0], 3)
    error = refused(limits.check_scores, [3_000_000_000, -1_000_000_000, -1_000_000_000, -1_000_000_000], 4)
    assert error.field == "scores"
    assert "from -2147483648 to 2147483647 (a 32-bit integer column): seat 0 has 3000000000" in error.message
    assert "seat 1 has -2147483649" in refused(limits.check_scores, [0, limits.INT32_MIN - 1], 2).message


def test_places_that_contradict_the_scores_name_the_seats_at_fault():
    stoppa = engine.game("stoppa")
    error = refused(limits.check_reported, stoppa, [-50, 0, 0, 50], [1, 2, 2, 4])
    assert error.field == "places"
    assert "places must follow the scores: seat 3 scored 50, more than seat 0 (-50), but is placed behind it" \
        in error.message
    assert "[4, 2, 2, 1]" in error.message
    error = refused(limits.check_reported, stoppa, [10, 0, 0, -10], [1, 2, 3, 4])
    assert "seat 1 and seat 2 scored the same (0) but are placed 2 and 3" in error.message
    error = refused(limits.check_reported, stoppa, [10, 5, -5, -10], [1, 1, 3, 4])
    assert "seat 0 scored 10, more than seat 1 (5), but shares its place 1" in error.message
    limits.check_reported(stoppa, [10, 5, -5, -10], [1, 2, 3, 4])


def test_a_zero_sum_games_reported_scores_add_up_to_zero_and_the_others_need_not():
    error = refused(limits.check_reported, engine.game("sette_e_mezzo"), [10, 0, 0], [1, 2, 2])
    assert error.field == "scores" and "add up to 0" in error.message and "add up to 10" in error.message
    limits.check_reported(engine.game("spacca_il_mazzo"), [40, 15, 0], [1, 2, 3])


def test_a_format_is_bounded_and_its_points_are_plain_numbers():
    limits.check_format_config({"rounds": 100, "cycles": 10, "points": [3, 1.5, 0], "bye_points": 1})
    assert "rounds must be at most 100" in refused(limits.check_format_config, {"rounds": 101}).message
    assert "cycles must be at most 10" in refused(limits.check_format_config, {"cycles": 11}).message
    for bad in ({"points": ["1e10000000", 0]}, {"bye_points": "1/3"}, {"points": [10**6 + 1, 0]},
                {"bye_points": float("inf")}):
        error = refused(limits.check_format_config, bad)
        assert error.field == "format_config" and "numbers from -1000000 to 1000000" in error.message


# =========================================================================== through the services

SETTINGS = {"name": "x", "slug": "x", "game": "sette_e_mezzo", "table_size": 4, "format": "swiss",
            "format_config": {"rounds": 3}}


@pytest.fixture
def organiser():
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("organiser"))
    return client


@pytest.mark.django_db
@pytest.mark.services
def test_an_http_bot_with_a_url_that_does_not_parse_gets_a_400_not_a_500(organiser):
    body = {"name": "broken", "kind": "bot", "bot_kind": "http", "bot_config": {"url": "http://[::1"}}
    answer = organiser.post("/api/players/", body, format="json")
    assert answer.status_code == 400
    assert "does not parse as a URL" in fields(answer)["bot_config"][0]
    assert not Player.objects.exists()


@pytest.mark.django_db
@pytest.mark.services
def test_a_tournament_with_a_round_interval_of_a_billion_days_gets_a_400_not_a_500(organiser):
    body = {"name": "Forever", "slug": "forever", "game": "stoppa", "table_size": 4, "format": "swiss",
            "format_config": {"rounds": 2}, "round_interval": "999999999 00:00:00"}
    answer = organiser.post("/api/tournaments/", body, format="json")
    assert answer.status_code == 400
    assert "from 1 minute to 366 days" in fields(answer)["round_interval"][0]


@pytest.mark.django_db
@pytest.mark.services
@pytest.mark.parametrize("interval, ok", [
    (timedelta(days=999_999_999), False), (timedelta(days=-1), False), (timedelta(0), False),
    (timedelta(seconds=59), False), (timedelta(days=367), False), (timedelta(minutes=1), True),
    (timedelta(days=366), True),
])
def test_a_tournaments_round_interval_is_positive_and_bounded(interval, ok):
    if ok:
        assert tournament_create(**SETTINGS, round_interval=interval).round_interval == interval
    else:
        assert refused(tournament_create, **SETTINGS, round_interval=interval).field == "round_interval"
        assert not Tournament.objects.exists()


@pytest.mark.django_db
@pytest.mark.services
@pytest.mark.parametrize("changes, field, words", [
    ({"options": {"hands": 1_000_000_000}}, "options", "'hands' must be from 1 to 200 in a tournament"),
    ({"game": "stoppa", "options": {"max_bet": 10**9}}, "options", "'max_bet' must be from 1 to 10000"),
    ({"game": "stoppa", "table_size": 6, "options": {"ante": 50}}, "options", "max_bet / cip must be at most 200"),
    ({"game": "spacca_il_mazzo", "options": {"games": 21}}, "options", "'games' must be from 1 to 20"),
    ({"game": "piazza", "table_size": 2, "options": {"table_max": 51}}, "options", "'table_max' must be from 1 to 50"),
    ({"format_config": {"rounds": 101}}, "format_config", "rounds must be at most 100"),
    ({"format": "round_robin", "format_config": {"cycles": 11}}, "format_config", "cycles must be at most 10"),
    ({"format_config": {"rounds": 3, "points": ["1e10000000", 2, 1, 0]}}, "format_config", "numbers from"),
    ({"points_by_place": [3, 2, 1, float("nan")]}, "points_by_place", "finite numbers from -1000000 to 1000000"),
    ({"points_by_place": [10**6 + 1, 2, 1, 0]}, "points_by_place", "finite numbers"),
    ({"points_by_place": [10**400, 2, 1, 0]}, "points_by_place", "finite numbers"),
    ({"format_config": {"rounds": 3, "bye_points": 10**400}}, "format_config", "numbers from"),
    ({"tiebreaks": ["wins", "buchholz", "wins"]}, "tiebreaks", "wins more than once"),
    ({"tiebreaks": ["wins"] * 17}, "tiebreaks", "at most 16 names"),
    ({"seed": 2**63}, "seed", "from 0 to 2**63 - 1"),
    ({"seed": -1}, "seed", "from 0 to 2**63 - 1"),
    ({"starts_at": "tomorrow"}, "starts_at", "a date and time"),
    ({"table_size": True}, "table_size", "at a table"),
])
def test_a_tournament_beyond_a_bound_is_refused_naming_the_field_and_the_bound(changes, field, words):
    started = time.perf_counter()
    error = refused(tournament_create, **{**SETTINGS, **changes})
    assert time.perf_counter() - started < 2  # refused before any unbounded work
    assert (error.field, error.code) == (field, "invalid")
    assert words in error.message
    assert not Tournament.objects.exists()


@pytest.mark.django_db
@pytest.mark.services
def test_a_tournament_at_the_bounds_is_accepted():
    tournament = tournament_create(**{
        **SETTINGS, "options": {"hands": 200, "stake_min": 9_801, "stake_max": 10_000}, "seed": 2**63 - 1,
        # A Swiss's points are the tournament's points_by_place (given again, they must agree).
        "format_config": {"rounds": 100, "points": [10**6, 0.5, -0.5, -(10**6)]},
        "points_by_place": [10**6, 0.5, -0.5, -(10**6)], "tiebreaks": ["match_points", "wins"],
        "starts_at": timezone.now() + timedelta(days=3600),
    })
    assert (tournament.seed, tournament.seed_chosen) == (2**63 - 1, True)
    tournament_create(**{**SETTINGS, "slug": "zero", "seed": 0})


@pytest.mark.django_db
@pytest.mark.services
def test_a_tournaments_drawn_seed_is_secret_not_derived_from_its_slug_and_hour(monkeypatch):
    now = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: now)
    drawn = []
    import secrets

    real = secrets.randbits
    monkeypatch.setattr(secrets, "randbits", lambda k: drawn.append(k) or real(k))
    tournament = tournament_create(**SETTINGS)
    assert drawn == [63]
    assert tournament.seed != derive_seed("x", now.isoformat())
    assert 0 <= tournament.seed < 2**63 and not tournament.seed_chosen


@pytest.mark.django_db
@pytest.mark.services
def test_a_seed_rank_is_from_1_to_2_to_the_31_minus_1():
    players = bot_players(4)
    tournament = make_tournament([])
    for bad in (0, -1, 2**31, True, "1"):
        error = refused(entry_add, tournament=tournament, player=players[0], seed_rank=bad)
        assert error.field == "seed_rank" and "from 1 to 2147483647" in error.message
    assert entry_add(tournament=tournament, player=players[0], seed_rank=2**31 - 1).seed_rank == 2**31 - 1
    # the next default would overflow its column: the first free seed instead
    assert entry_add(tournament=tournament, player=players[1]).seed_rank == 1
    assert entry_add(tournament=tournament, player=players[2]).seed_rank == 2


@pytest.mark.django_db
@pytest.mark.services
def test_a_tournament_holds_at_most_max_entries(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ENTRIES", 3)
    players = bot_players(4)
    tournament = make_tournament(players[:3])
    error = refused(entry_add, tournament=tournament, player=players[3])
    assert "at most 3 entrants" in error.message
    assert Entry.objects.count() == 3


@pytest.mark.django_db
@pytest.mark.services
def test_a_periodic_tournaments_rounds_must_all_fall_due_within_a_century(monkeypatch):
    monkeypatch.setattr(limits, "SCHEDULE_SPAN_MAX", timedelta(days=3))
    players = bot_players(5)
    tournament = make_tournament(players[:4], game="piazza", table_size=2, options={}, format="round_robin",
                                 format_config={}, round_interval=timedelta(days=1))  # 3 rounds: 2 days
    error = refused(entry_add, tournament=tournament, player=players[4])  # 5 rounds: 4 days
    assert "5 rounds a 1 day, 0:00:00 apart" in error.message and "within 100 years" in error.message


# --------------------------------------------------------------------------- bots through the service


def bot(config, name="bot", kind="builtin"):
    return player_create(name=name, kind="bot", bot_kind=kind, bot_config=config)


@pytest.mark.django_db
@pytest.mark.services
@pytest.mark.parametrize("config, words", [
    ({"bot": "ismcts", "options": {"iterations": 10**12}}, "iterations must be an integer from 1 to 1000"),
    ({"bot": "random", "options": {"iterations": 5}}, "random has no option 'iterations'; it takes no options"),
    ({"bot": "ismcts", "options": {"threads": 8}}, "ismcts has no option 'threads'; it accepts delegate"),
    ({"bot": "ismcts", "options": {"rollout": "ismcts"}}, "does not search"),
    ({"bot": "ismcts", "options": []}, "bot_config.options must be an object"),
    ({"bot": "heuristic", "level": 3}, "has no key 'level'; its keys: bot, options"),
    ({"bot": "ismcts", "options": {"delegate": ["bet"], "rollout": "expectimax"}},
     "ismcts cannot play any game with these options (piazza: rollout 'expectimax' does not play piazza; "
     "sette_e_mezzo: delegate: 'bet' is not a phase of sette_e_mezzo"),
])
def test_a_built_in_bot_with_options_it_does_not_accept_is_refused_at_registration(config, words):
    error = refused(bot, config)
    assert error.field == "bot_config" and words in error.message
    assert not Player.objects.exists()


@pytest.mark.django_db
@pytest.mark.services
def test_a_built_in_bot_is_made_at_registration_so_what_it_refuses_is_refused_then(monkeypatch):
    # Let the limits accept an option the bot itself does not take: the bot refuses it.
    monkeypatch.setitem(limits.BOT_OPTIONS, "heuristic", {"level": limits.Setting("int", 1, 9)})
    error = refused(bot, {"bot": "heuristic", "options": {"level": 3}})
    assert "heuristic cannot play any game with these options" in error.message and "level" in error.message


@pytest.mark.django_db
@pytest.mark.services
def test_a_bot_whose_options_fit_one_game_registers_and_is_refused_at_entry_elsewhere():
    player = bot({"bot": "ismcts", "options": {"iterations": 500, "rollout": "heuristic"}}, name="deep")
    sette = make_tournament([player], slug="sette", ladder_slug=None)
    assert sette.entries.count() == 1
    piazza = make_tournament([], slug="piazza", game="piazza", table_size=2, options={}, ladder_slug=None)
    error = refused(entry_add, tournament=piazza, player=player)
    assert error.field == "player"
    assert "deep cannot play piazza: iterations must be at most 30 for piazza" in error.message
    # and a stored row beyond the limits (written before them) forfeits rather than runs
    Player.objects.filter(pk=player.pk).update(bot_config={"bot": "ismcts", "options": {"iterations": 10**12}})
    player.refresh_from_db()
    assert "iterations must be an integer from 1 to 1000" in refused(player_bot, player, game="sette_e_mezzo",
                                                                        seed=1).message


@pytest.mark.django_db
@pytest.mark.services
def test_unknown_bot_options_no_longer_wait_for_play_time_to_forfeit():
    error = refused(bot, {"bot": "heuristic", "options": {"aggression": 11}})
    assert "heuristic has no option 'aggression'" in error.message


@pytest.mark.django_db
@pytest.mark.services
def test_an_http_bots_timeout_of_minus_five_is_refused_and_its_limits_are_bounded():
    error = refused(bot, {"url": "https://bots.example.org/", "timeout": -5}, kind="http")
    assert "has no key 'timeout'; its keys: url, headers, limits" in error.message
    error = refused(bot, {"url": "https://bots.example.org/", "limits": {"decision": -5}}, kind="http")
    assert "bot_config.limits.decision must be a number of seconds from 0.01 to 10.0, got -5" in error.message


@pytest.mark.django_db
@pytest.mark.services
def test_an_http_bot_gets_its_headers_and_limits_when_it_plays():
    config = {"url": "https://bots.example.org/play", "headers": {"Authorization": "Bearer s3cret"},
              "limits": {"decision": 2.5, "bank": 30}}
    player = bot(config, kind="http")
    assert player.bot_config == config
    made = player_bot(player, game="stoppa", seed=1)
    assert made.headers["Authorization"] == "Bearer s3cret"
    assert (made.limits.decision, made.limits.bank, made.public_only) == (2.5, 30, True)


@pytest.mark.django_db
@pytest.mark.services
def test_a_subprocess_bot_is_a_bounded_argv():
    assert bot({"command": ["python3", "bot.py"], "limits": {"memory_mb": 1024}}, kind="subprocess")
    error = refused(bot, {"command": ["python3"] * 65}, name="long", kind="subprocess")
    assert "at most 64 arguments" in error.message


# --------------------------------------------------------------------------- leagues


def league(**changes):
    settings = {"name": "Lega", "slug": "lega", "game": "sette_e_mezzo", "table_size": 3, "division_size": 5,
                "round_interval": timedelta(days=1), "promote": 1, "relegate": 1, "options": {"hands": 1},
                **changes}
    return league_create(**settings)


@pytest.mark.django_db
@pytest.mark.services
@pytest.mark.parametrize("changes, field, words", [
    ({"round_interval": timedelta(days=999_999_999)}, "round_interval", "from 1 minute to 366 days"),
    ({"round_interval": timedelta(seconds=30)}, "round_interval", "from 1 minute to 366 days"),
    ({"round_interval": None}, "round_interval", "from 1 minute to 366 days"),
    ({"division_size": 1025}, "division_size", "from 3 to 1024"),
    ({"division_size": 2}, "division_size", "a table's worth"),
    ({"promote": True}, "promote", "an integer from 0 to 32767"),
    ({"relegate": -1}, "relegate", "an integer from 0 to 32767"),
    ({"options": {"hands": 201}}, "options", "'hands' must be from 1 to 200"),
    ({"format_config": {"cycles": 11}}, "format_config", "cycles must be at most 10"),
    ({"name": "L" * 81}, "name", "at most 80 characters"),
    ({"slug": "l" * 61}, "slug", "at most 60 characters"),
    ({"division_size": 1000, "round_interval": timedelta(days=366)}, "round_interval", "within 100 years"),
])
def test_a_league_beyond_a_bound_is_refused_with_the_tournaments_checks(changes, field, words):
    error = refused(league, **changes)
    assert error.field == field and words in error.message


@pytest.mark.django_db
@pytest.mark.services
def test_a_league_at_the_bounds_is_accepted():
    assert league(name="L" * 80, slug="l" * 60, round_interval=timedelta(days=366), division_size=100).pk
    assert league(slug="minute", round_interval=timedelta(minutes=1), division_size=1024).pk


# --------------------------------------------------------------------------- events that are over


@pytest.mark.django_db
@pytest.mark.services
def test_a_cancelled_tournament_is_not_cancelled_twice_nor_a_finished_one_at_all():
    tournament = make_tournament(bot_players(4), options={"hands": 1}, format_config={"rounds": 1})
    play_out(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    error = refused(tournament_cancel, tournament=tournament)
    assert (error.code, error.message) == ("conflict", "a finished tournament cannot be cancelled")
    other = make_tournament([], slug="other", ladder_slug=None)
    tournament_cancel(tournament=other)
    error = refused(tournament_cancel, tournament=other)
    assert (error.code, error.message) == ("conflict", "the tournament is already cancelled")


@pytest.mark.django_db
@pytest.mark.services
@pytest.mark.parametrize("end", ["finished", "cancelled"])
def test_entries_of_a_tournament_that_is_over_no_longer_change(end):
    players = bot_players(4)
    tournament = make_tournament(players, options={"hands": 1}, format_config={"rounds": 1})
    if end == "finished":
        play_out(tournament)
    else:
        tournament_start(tournament=tournament)
        tournament_cancel(tournament=tournament)
    entry = tournament.entries.get(player=players[0])
    for change in (lambda: entry_withdraw(entry=entry), lambda: entry_disqualify(entry=entry, reason="late")):
        error = refused(change)
        assert error.code == "conflict" and f"the tournament is {end}" in error.message
    entry.refresh_from_db()
    assert entry.withdrawn_at is None and entry.disqualified == ""


@pytest.mark.django_db
@pytest.mark.services
def test_a_disqualification_reason_is_at_most_200_characters():
    players = bot_players(4)
    tournament = make_tournament(players)
    entry = tournament.entries.get(player=players[0])
    assert "at most 200 characters" in refused(entry_disqualify, entry=entry, reason="x" * 201).message
    entry, _ = entry_disqualify(entry=entry, reason="x" * 200)
    assert entry.disqualified == "x" * 200
