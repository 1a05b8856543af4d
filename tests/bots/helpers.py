"""Shared pieces of the bot tests: a short Sette e mezzo match, the misbehaving bot, whole
matches played by one bot at every seat, and the sandbox's lures and probe."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

import bots
import engine
from bots.external import bwrap_problem
from bots.runner import MatchOutcome, play_match

GAME = "sette_e_mezzo"
OPTIONS = {"hands": 3}  # short matches: every seat still decides several times
ROOT = Path(__file__).resolve().parents[2]
MISBEHAVE = Path(__file__).with_name("misbehave.py")
# Generous start-up (a loaded 2-core machine starts Python slowly), tight decisions.
FAST = {"startup": 10.0, "decision": 0.5, "bank": 0.5, "memory_mb": 256}


def misbehaving(mode: str, after: int = 0, **limits) -> bots.Bot:
    """A subprocess bot that plays ``after`` legal decisions, then does ``mode``."""
    marker = f"marker-{uuid.uuid4().hex}"
    bot = bots.create(
        "subprocess", game=GAME, seed=1,
        command=[sys.executable, str(MISBEHAVE), mode, str(after), marker],
        limits={**FAST, **limits},
    )
    bot.marker = marker
    return bot


def table_with(bot: bots.Bot, seat: int = 0, players: int = 3) -> list[bots.Bot]:
    table = [bots.create("random", game=GAME, seed=s) for s in range(players)]
    table[seat] = bot
    return table


def play(players: list, seed: int = 7, **kwargs) -> MatchOutcome:
    return play_match(GAME, players, seed=seed, options=OPTIONS, **kwargs)


def running(marker: str) -> list[int]:
    """Pids of live processes whose command line holds ``marker``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(pid))
    return found


def assert_legal_over_whole_matches(bot: bots.Bot, game: str, matches: int, *, players, options) -> None:
    """``bot`` plays every seat of ``matches`` seeded matches (match s: ``players(s)`` players,
    ``options(s)``) to the end, answering only legal actions."""
    rules = engine.game(game)
    for seed in range(matches):
        state = rules.new_match(players(seed), seed=seed, options=options(seed))
        while not state.is_over():
            action = bot.act(state.view(state.current_player()))
            assert action in state.legal_actions()
            state.apply(action)


# --------------------------------------------------------------------------- the sandbox

PROBE = Path(__file__).with_name("sandbox_probe.py")


def require_sandbox() -> None:
    """Skip the test where bubblewrap cannot start a sandbox; under CI=true fail instead: CI
    installs bubblewrap (.ci/run) so that these tests run."""
    problem = bwrap_problem()
    if problem is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true: the sandbox tests are required, but {problem}")
    pytest.skip(f"the bubblewrap sandbox cannot start here: {problem}")


def break_bwrap(monkeypatch, folder: Path) -> None:
    """Put first on PATH a bwrap that fails as one refused namespaces does (in some containers)."""
    folder.mkdir(exist_ok=True)
    fake = folder / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")


@dataclass
class Lure:
    """What a sandboxed bot must not reach, set up by :func:`lure`: the service's secrets in the
    runner's environment, a server listening on loopback, a secret file in the repository, an
    inherited descriptor; and a file of the bot's own, beside it, which it must read."""

    listener: socket.socket
    secret_file: Path
    own_file: Path

    def probe(self) -> list[str]:
        """The command of tests/bots/sandbox_probe.py (copied beside the bot's own file: the
        folder of a program the command names is the bot's), looking for all of it."""
        files = [self.secret_file, self.own_file, "/etc/passwd", "/etc/hostname"]
        script = self.own_file.with_name(PROBE.name)
        return [sys.executable, str(script), str(os.getpid()), str(self.listener.getsockname()[1]),
                *(f"read:{file}" for file in files)]

    def assert_found_nothing(self, report: dict) -> None:
        """The probe's report: none of the lures reached, its own file read, only its scratch
        folder written."""
        files = {str(self.secret_file): "ENOENT", str(self.own_file): "read", "/etc/passwd": "ENOENT",
                 "/etc/hostname": "ENOENT"}
        expected = {
            "environ": ["HOME", "LANG", "PATH", "PWD", "PYTHONUNBUFFERED", "TMPDIR"],  # PWD: bwrap's
            "leaks": [],
            "tcp": {"127.0.0.1": "ECONNREFUSED", "1.1.1.1": "ENETUNREACH"},  # no network at all
            "files": files,
            "fds": [0, 1, 2, 3],  # 3: its own listing of them
        }
        assert {key: report[key] for key in expected} == expected, report
        # Its scratch folder only, as HOME and as /dev/shm: no tmpfs (memory) is writable.
        home, *others = report["written"]
        assert "mazziere-bot-" in home and others == ["/dev/shm"], report
        with pytest.raises(BlockingIOError):
            self.listener.accept()  # nothing came through


@contextmanager
def lure(monkeypatch, bot_folder: Path):
    """Set the lures of :class:`Lure` for a bot whose own files are in ``bot_folder``; removed after."""
    monkeypatch.setenv("SECRET_KEY", "django-insecure-sandbox-lure")
    monkeypatch.setenv("DATABASE_URL", "postgres://mazziere:lure@127.0.0.1:5432/mazziere")
    bot_folder.mkdir(exist_ok=True)
    own = bot_folder / "model.txt"
    own.write_text("weights")
    shutil.copy(PROBE, bot_folder)
    secret = ROOT / f".sandbox-lure-{uuid.uuid4().hex}"
    secret.write_text("SECRET_KEY=in-the-repository")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    inherited = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(inherited, True)  # would pass to a child unless the runner closes it
    try:
        yield Lure(listener, secret, own)
    finally:
        os.close(inherited)
        listener.close()
        secret.unlink()


def probe_report(detail: str) -> dict:
    """The report of tests/bots/sandbox_probe.py, from its forfeit's detail (the stderr tail)."""
    return json.loads(detail.strip().splitlines()[-1])
