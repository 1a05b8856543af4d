"""The example bots of docs/bots.md: the documented code is the code that is run, and it
plays whole matches without forfeit, in Python and in node, over stdio and over HTTP."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time

import pytest

import bots

from .helpers import GAME, ROOT, play, require_sandbox, table_with

DOC = ROOT / "docs" / "bots.md"
EXAMPLES = ["examples/bots/random_bot.py", "examples/bots/random_bot.js"]


def documented(path: str) -> str:
    match = re.search(
        rf"<!-- file: {re.escape(path)} -->\n```\w+\n(.*?)```", DOC.read_text(), re.S
    )
    assert match, f"docs/bots.md shows no {path}"
    return match.group(1)


@pytest.mark.parametrize("path", EXAMPLES)
def test_the_docs_show_the_example_bots_as_they_are(path):
    assert documented(path) == (ROOT / path).read_text()


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "examples/bots/random_bot.py"],
        pytest.param(["node", "examples/bots/random_bot.js"], marks=pytest.mark.skipif(
            shutil.which("node") is None, reason="node is not installed")),
    ],
)
def test_an_example_bot_plays_whole_matches_without_forfeit(command, sandbox):
    # Unsandboxed from the repository, as the docs run it; and in the sandbox as the service
    # runs a bot: in its scratch folder, its file named by absolute path.
    if sandbox == "bwrap":
        require_sandbox()
        where = {"in_scratch": True}
        command = [command[0], str(ROOT / command[1])]
    else:
        where = {"cwd": str(ROOT)}
    for seat, seed in ((0, 1), (2, 2)):
        bot = bots.create("subprocess", game=GAME, seed=seed, command=command, sandbox=sandbox, **where)
        outcome = play(table_with(bot, seat=seat), seed=seed)
        assert outcome.forfeits == {}
        assert outcome.decisions[seat] > 0
        assert b"seat %d at sette_e_mezzo" % seat in bot._err  # its stderr is kept


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_python_example_plays_over_http():
    port = free_port()
    server = subprocess.Popen([sys.executable, "examples/bots/random_bot.py", "--http",
                               str(port)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the example server did not come up"
                time.sleep(0.05)
        bot = bots.create("http", game=GAME, seed=3, url=f"http://127.0.0.1:{port}/")
        outcome = play(table_with(bot, seat=1))
        assert outcome.forfeits == {}
        assert outcome.decisions[1] > 0
    finally:
        server.kill()
        server.wait()
