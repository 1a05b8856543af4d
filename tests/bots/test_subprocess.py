"""Subprocess bots: every way a bot can fail ends in a forfeit, and the match completes."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import bots
from bots.external import BotFailure, bwrap_problem, bwrap_works
from bots.external.subprocess import SANDBOX_PATH, _bot_folders, _bwrap_prefix

from .helpers import (
    FAST,
    GAME,
    MISBEHAVE,
    PROBE,
    ROOT,
    break_bwrap,
    lure,
    misbehaving,
    play,
    probe_report,
    require_sandbox,
    running,
    table_with,
)


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


def test_in_the_sandbox_a_bot_finds_no_secret_no_network_and_no_file_but_its_own(tmp_path, monkeypatch):
    # The service's secrets in the runner's environment, a server on loopback, a secret file in
    # the repository and /etc/passwd: all out of reach; the bot's own folder is read.
    require_sandbox()
    with lure(monkeypatch, tmp_path / "bot") as lures:
        bot = bots.create("subprocess", game=GAME, command=lures.probe(), cwd=str(tmp_path / "bot"),
                          limits=FAST, sandbox="bwrap")
        assert bot.sandboxed
        outcome = play(table_with(bot))
        forfeit = assert_forfeit_completes(outcome, 0, "crash")  # the probe exits once it has looked
        lures.assert_found_nothing(probe_report(forfeit.detail))


def test_the_sandbox_shows_the_system_the_bots_files_and_nothing_else(tmp_path):
    # An interpreter outside /usr (a virtualenv, pyenv's) brings its installation; a program
    # in the repository brings its folder, not the repository; / and the folder of the scratch
    # folders (other bots') are never shown, nor /etc, /proc, /run (a database's socket).
    python = Path(sys.executable)
    folders = _bot_folders([str(python), str(PROBE), "/", "/etc/passwd", "/proc/1/environ", "/run"], "/tmp")
    assert str(PROBE.parent) in folders and str(ROOT) not in folders
    assert str(python.parent.parent) in folders or python.parent.parent.as_posix().startswith("/usr")
    assert not {"/", "/tmp", "/etc", "/proc", "/proc/1", "/run"} & set(folders)
    assert _bot_folders(["python3", "-c", "print()"], "/") == []
    # A link among the bot's files (its author's doing) shows its folder, not the link's target.
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.py").symlink_to(ROOT / "README.md")
    assert _bot_folders(["python3", str(tmp_path / "bot" / "bot.py")], "/") == [str(tmp_path / "bot")]


def test_the_sandbox_hides_the_host_from_every_interpreter():
    # The system as the sandbox shows it: python3 and node start, /etc holds only what the
    # loader and the clock read, the host's folders are not there.
    require_sandbox()
    commands = [["python3", "-c", "import os, time; print(sorted(os.listdir('/')), time.tzname[0])"]]
    if shutil.which("node"):
        commands.append(["node", "-e", "console.log(require('fs').readdirSync('/').sort())"])
    for command in commands:
        scratch = tempfile.mkdtemp(prefix="mazziere-bot-")
        try:
            done = subprocess.run(_bwrap_prefix(shutil.which("bwrap"), scratch, scratch) + command,
                                  capture_output=True, text=True, timeout=30, env={"PATH": SANDBOX_PATH})
        finally:
            shutil.rmtree(scratch)
        assert done.returncode == 0, done.stderr
        for hidden in ("home", "root", "srv", "var", "opt", "work", "run"):
            assert f"'{hidden}'" not in done.stdout, (command, done.stdout)


def test_where_bubblewrap_cannot_start_the_sandbox_says_why(tmp_path, monkeypatch):
    break_bwrap(monkeypatch, tmp_path / "bin")
    assert bwrap_problem().endswith("exited with code 1: bwrap: No permissions to create new namespace")
    assert not bwrap_works()
    with pytest.raises(ValueError, match="sandbox='bwrap' but the bubblewrap sandbox cannot start here: .*No perm"):
        bots.create("subprocess", game=GAME, command=[sys.executable, str(MISBEHAVE), "crash", "1"], sandbox="bwrap")
    # On one's own machine "auto" is the choice to run it unsandboxed there.
    assert not bots.create("subprocess", game=GAME, command=["true"], sandbox="auto").sandboxed
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert bwrap_problem() == "bwrap is not installed (not found on PATH)"


def test_bot_failure_carries_reason_and_detail():
    failure = BotFailure("timeout", "no answer within 1 s")
    assert (failure.reason, failure.detail) == ("timeout", "no answer within 1 s")
