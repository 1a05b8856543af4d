"""Subprocess bots: every way a bot can fail ends in a forfeit, and the match completes."""

from __future__ import annotations

import socket
import sys

import pytest

import bots
from bots.external import BotFailure, bwrap_works

from .helpers import FAST, GAME, ROOT, misbehaving, play, running, table_with


def assert_forfeit_completes(outcome, seat: int, reason: str):
    assert outcome.state.is_over()
    assert list(outcome.forfeits) == [seat]
    forfeit = outcome.forfeits[seat]
    assert forfeit.reason == reason, forfeit
    # a forfeited seat ranks after every seat that did not forfeit
    others = [p for s, p in enumerate(outcome.places) if s != seat]
    assert outcome.places[seat] > max(others)
    return forfeit


@pytest.mark.parametrize(
    "mode, after, reason, detail",
    [
        ("start", 0, "crash", "missing model file"),  # crash at start: stderr tail kept
        ("crash", 2, "crash", "boom"),  # crash mid-match
        ("sleep", 1, "timeout", "no answer within"),
        ("garbage", 1, "malformed", "I fold"),
        ("not_an_action", 0, "malformed", "42"),
        ("illegal", 1, "illegal", "cheat"),
        ("huge", 0, "output_limit", "longer than"),
        ("memory", 1, "memory", "MemoryError"),
        ("reply_to_start", 0, "malformed", "ready"),  # start and finish are never answered
    ],
)
def test_each_failure_ends_in_a_forfeit_with_its_reason(mode, after, reason, detail):
    bot = misbehaving(mode, after)
    outcome = play(table_with(bot, seat=1))
    forfeit = assert_forfeit_completes(outcome, 1, reason)
    assert forfeit.at_decision == after
    assert detail in forfeit.detail
    assert outcome.decisions[1] == after
    assert outcome.fallback_decisions[1] > 0  # the fallback played the seat to the end
    assert running(bot.marker) == []  # nothing outlives the match


def test_a_timeout_is_called_on_time():
    bot = misbehaving("sleep", 1, startup=3.0, decision=0.2, bank=0.1)
    outcome = play(table_with(bot, seat=0))
    assert outcome.forfeits[0].reason == "timeout"
    # the bot sleeps 30 s; it is cut after 0.3 s (plus its first decision's start-up)
    assert outcome.decision_time[0] < 3.0 + 0.3 + 1.0


def test_a_slow_decision_draws_on_the_time_bank_instead_of_forfeiting():
    bot = misbehaving("slow_then_bank", 1, decision=0.1, bank=2.0)
    outcome = play(table_with(bot))
    assert outcome.forfeits == {}
    assert bot.clock.bank < 2.0 - 0.15


def test_a_decision_over_the_time_left_in_the_bank_is_a_timeout():
    bot = misbehaving("slow_then_bank", 1, decision=0.1, bank=0.05)
    outcome = play(table_with(bot))
    assert outcome.forfeits[0].reason == "timeout"
    assert outcome.forfeits[0].at_decision == 1


def test_a_match_with_two_failing_seats_ranks_both_last_sharing_the_place():
    table = table_with(misbehaving("garbage", 0), seat=0, players=4)
    table[2] = misbehaving("crash", 1)
    outcome = play(table)
    assert outcome.state.is_over()
    assert {s: f.reason for s, f in outcome.forfeits.items()} == {0: "malformed", 2: "crash"}
    assert outcome.places[0] == outcome.places[2] == 3
    assert sorted([outcome.places[1], outcome.places[3]]) in ([1, 2], [1, 1])


def test_stderr_is_kept_bounded_and_does_not_block_the_bot():
    bot = misbehaving("chatty_stderr", 0)
    outcome = play(table_with(bot))
    assert outcome.forfeits == {}
    assert 0 < len(bot._err) <= bot.limits.stderr_bytes


def test_a_command_that_does_not_exist_is_a_crash_at_start():
    bot = bots.create("subprocess", game=GAME, command=["/nonexistent/bot"], limits=FAST)
    outcome = play(table_with(bot))
    assert outcome.forfeits[0].reason == "crash"
    assert outcome.forfeits[0].at_decision == 0


def test_the_bot_gets_the_protocol_messages_in_order(tmp_path):
    # A bot that records every message in its scratch folder would be lost with it, so it
    # echoes them on stderr; the tail shows the order.
    script = tmp_path / "echo.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    print(m['type'], sorted(m), file=sys.stderr, flush=True)\n"
        "    if m['type'] == 'act':\n"
        "        print(json.dumps({'action': m['view']['legal_actions'][0]}), flush=True)\n"
    )
    bot = bots.create("subprocess", game=GAME, seed=3, command=[sys.executable, str(script)],
                      limits=FAST)
    outcome = play(table_with(bot))
    assert outcome.forfeits == {}
    lines = bot._err.decode().splitlines()
    assert lines[0].startswith("start ")
    for key in ("game", "seat", "players", "options", "seed", "time_limits", "view"):
        assert repr(key) in lines[0]
    assert all(line.startswith("act ") for line in lines[1:-1])
    assert lines[-1] == "finish ['match', 'scores', 'type', 'view']"
    assert len(lines) == outcome.decisions[0] + 2


def test_bots_are_made_through_the_registry():
    assert {"subprocess", "http"} <= set(bots.available(GAME))
    with pytest.raises(ValueError):
        bots.create("subprocess", game=GAME, command=[])
    with pytest.raises(ValueError):
        bots.create("http", game=GAME, url="file:///etc/passwd")


@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not installed or cannot run here")
def test_in_the_sandbox_there_is_no_network_and_only_the_scratch_is_writable(tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))  # reachable from any unsandboxed bot
    port = listener.getsockname()[1]
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import json, socket, sys, os\n"
        "report = {}\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=1); report['net'] = 'open'\n"
        "except OSError as e:\n"
        "    report['net'] = type(e).__name__\n"
        "open(os.environ['HOME'] + '/f', 'w').write('x'); report['home'] = 'written'\n"
        f"for path in ({str(ROOT / 'probe-write')!r}, '/tmp/scratch-ok'):\n"
        "    try:\n"
        "        open(path, 'w').write('x'); report[path] = 'written'\n"
        "    except OSError as e:\n"
        "        report[path] = 'refused'\n"
        "print(json.dumps(report), file=sys.stderr, flush=True)\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'act':\n"
        "        print(json.dumps({'action': m['view']['legal_actions'][0]}), flush=True)\n"
    )
    bot = bots.create("subprocess", game=GAME, command=[sys.executable, str(probe)],
                      limits=FAST, sandbox="bwrap")
    try:
        outcome = play(table_with(bot))
    finally:
        listener.close()
    assert outcome.forfeits == {}
    report = bot._err.decode()
    assert '"net": "open"' not in report and '"net": ' in report
    assert '"/tmp/scratch-ok": "refused"' in report  # /tmp is empty and read-only
    assert '"home": "written"' in report
    assert f'"{ROOT / "probe-write"}": "refused"' in report
    assert not (ROOT / "probe-write").exists()


def test_bot_failure_carries_reason_and_detail():
    failure = BotFailure("timeout", "no answer within 1 s")
    assert (failure.reason, failure.detail) == ("timeout", "no answer within 1 s")
