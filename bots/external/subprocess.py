"""The ``subprocess`` transport: a command started once per match, speaking JSON lines.

One JSON object per line on its stdin, one answer line on its stdout for each ``act``;
stderr is captured (its tail is kept for the forfeit detail).

Isolation: where bubblewrap works, the command runs with no network, a read-only view of the
file system, an empty /tmp and a private writable scratch folder (HOME and TMPDIR); without
it, only the rlimits, a fresh process group, the scratch folder and a minimal environment
apply (docs/bots.md says exactly what that does and does not protect).
"""

from __future__ import annotations

import functools
import os
import resource
import selectors
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..base import BotFailure
from .protocol import ExternalBot, encode

__all__ = ["SubprocessBot", "bwrap_works"]


@functools.cache
def bwrap_works() -> bool:
    """True when bubblewrap is installed and can make namespaces here (containers may not)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return False
    with tempfile.TemporaryDirectory() as scratch:
        try:
            done = subprocess.run(
                _bwrap_prefix(exe, scratch, "/") + ["true"],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=10,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
    return done.returncode == 0


def _bwrap_prefix(exe: str, scratch: str, cwd: str, visible: Sequence[str] = ()) -> list[str]:
    # The whole system read-only (so any interpreter and the bot's own files are there), an
    # empty /tmp (other bots' scratch folders live in the host's) holding only the bot's
    # scratch folder, writable, and its own files if they are there; fresh /dev and /proc;
    # every namespace unshared: no network at all, no view of the host's processes.
    args = [
        exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--tmpfs", "/run", "--tmpfs", "/tmp", "--bind", scratch, scratch,
    ]
    for path in visible:
        args += ["--ro-bind-try", path, path]
    args += ["--remount-ro", "/tmp"]  # a tmpfs is RAM outside RLIMIT_AS: no writing there
    return args + ["--unshare-all", "--die-with-parent", "--new-session", "--chdir", cwd]


def _under_tmp(command: Sequence[str], cwd: str) -> list[str]:
    """The folders of the command's files (and the working folder) that the sandbox's empty
    /tmp would hide: a bot kept in /tmp still finds its own files."""
    tmp = os.path.realpath(tempfile.gettempdir())
    found = []
    for arg in [cwd, *command]:
        path = os.path.realpath(arg) if os.path.exists(arg) else None
        if path is None or not (path + "/").startswith(("/tmp/", tmp + "/")):
            continue
        folder = path if os.path.isdir(path) else os.path.dirname(path)
        if folder not in ("/tmp", tmp) and folder not in found:
            found.append(folder)
    return found


def _set_rlimits(memory_bytes: int) -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 2**20, 64 * 2**20))


_MEMORY_SIGNS = (
    "memoryerror", "out of memory", "cannot allocate memory", "bad_alloc",
    "outofmemoryerror", "memory allocation of", "failed to reserve", "allocation failed",
)


class SubprocessBot(ExternalBot):
    """A command started once per match, speaking JSON lines on stdin/stdout.

    ``command``: argv list, or a string split like a shell would. ``cwd``: its working
    folder (default: the caller's). ``sandbox``: ``"auto"`` (bubblewrap where it works),
    ``"bwrap"`` (required) or ``"none"``. ``env``: extra environment variables; the bot
    otherwise gets only PATH, HOME/TMPDIR (its scratch folder) and LANG.
    """

    def __init__(
        self,
        game: str,
        seed: int | str | None = None,
        *,
        command: str | Sequence[str],
        limits: Any = None,
        cwd: str | None = None,
        sandbox: str = "auto",
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(game, seed, limits=limits)
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.command:
            raise ValueError("subprocess bot needs a command")
        if sandbox not in ("auto", "bwrap", "none"):
            raise ValueError(f"sandbox must be 'auto', 'bwrap' or 'none', got {sandbox!r}")
        if sandbox == "bwrap" and not bwrap_works():
            raise ValueError("sandbox='bwrap' but bubblewrap is not installed or cannot run here")
        self.sandboxed = sandbox == "bwrap" or (sandbox == "auto" and bwrap_works())
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self.extra_env = dict(env or {})
        self.proc: subprocess.Popen | None = None
        self.pid: int | None = None
        self.scratch: str | None = None
        self._out = b""  # stdout read but not yet consumed as an answer
        self._out_total = 0
        self._err = b""  # the tail of stderr
        self._err_open = True
        self._killed = False

    # -- process life

    def _spawn(self) -> None:
        self.scratch = tempfile.mkdtemp(prefix="mazziere-bot-")
        inside = self.scratch  # the same path inside the sandbox
        env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": inside,
            "TMPDIR": inside,
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }
        argv = self.command
        if self.sandboxed:
            exe = shutil.which("bwrap") or "bwrap"
            visible = _under_tmp(self.command, self.cwd)
            argv = _bwrap_prefix(exe, self.scratch, self.cwd, visible) + argv
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=env,
                start_new_session=True,  # its own process group: killed whole
                preexec_fn=functools.partial(_set_rlimits, self.limits.memory_mb * 2**20),
                bufsize=0,
            )
        except OSError as exc:
            raise BotFailure("crash", f"cannot start {shlex.join(self.command)}: {exc}") from None
        self.pid = self.proc.pid  # also its process group id
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            os.set_blocking(pipe.fileno(), False)

    def close(self) -> None:
        proc = self.proc
        if proc is not None:
            if proc.stdin and not proc.stdin.closed:
                try:
                    proc.stdin.close()  # EOF: a polite bot exits by itself
                except OSError:
                    pass
            try:
                proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
            self._kill()
            self._drain_stderr()  # what it said on the way out belongs to the tail
            for pipe in (proc.stdout, proc.stderr):
                if pipe and not pipe.closed:
                    pipe.close()
            self.proc = None
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None

    def _kill(self) -> None:
        proc = self.proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the whole group: children too
            self._killed = proc.returncode is None or self._killed
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    # -- transport

    def _start(self, message: dict) -> None:
        self._spawn()
        self._exchange(encode(message), None, self.limits.startup, answer=False)

    def _ask(self, message: dict, timeout: float) -> bytes:
        if self.proc is None:
            raise BotFailure("crash", "the bot is not running")
        self._drain_stderr()
        # Lines the bot wrote before this question are still answers, in order: a bot that
        # answers "start" or writes two lines per "act" fails the same way every time.
        return self._exchange(encode(message), time.monotonic() + timeout, timeout)

    def _tell(self, message: dict) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            self._exchange(encode(message), None, 1.0, answer=False)
        except BotFailure:
            pass  # after the match, nothing the bot does matters

    def _tail(self) -> str:
        text = self._err.decode("utf-8", "replace").strip()
        return f"\nstderr (last {len(self._err)} bytes):\n{text}" if text else ""

    def _exchange(
        self, data: bytes, deadline: float | None, timeout: float, answer: bool = True
    ) -> bytes:
        """Write ``data``; if ``answer``, read stdout until one line or the deadline."""
        proc = self.proc
        assert proc is not None and proc.stdin and proc.stdout and proc.stderr
        if deadline is None:
            deadline = time.monotonic() + timeout
        pending = memoryview(data)
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdin, selectors.EVENT_WRITE, "in")
            sel.register(proc.stdout, selectors.EVENT_READ, "out")
            if self._err_open:
                sel.register(proc.stderr, selectors.EVENT_READ, "err")
            while True:
                if not answer and not pending:
                    return b""
                if answer:
                    line = self._take_line()
                    if line:
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    self._kill()
                    self._drain_stderr()
                    raise BotFailure("timeout", self.clock.describe() + self._tail())
                for key, _ in sel.select(left):
                    if key.data == "in":
                        try:
                            written = os.write(proc.stdin.fileno(), pending[:65536])
                        except BlockingIOError:
                            continue
                        except (BrokenPipeError, OSError):
                            sel.unregister(proc.stdin)
                            pending = memoryview(b"")
                            if not answer:
                                raise self._death() from None
                            continue
                        pending = pending[written:]
                        if not pending:
                            sel.unregister(proc.stdin)
                    elif key.data == "err":
                        if not self._read_stderr():
                            sel.unregister(proc.stderr)
                    elif not self._read_stdout():
                        raise self._death()

    def _read_stdout(self) -> bool:
        """Buffer what stdout has, within the output limits; False at end of file."""
        try:
            chunk = os.read(self.proc.stdout.fileno(), 65536)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        self._out_total += len(chunk)
        if self._out_total > self.limits.output_bytes:
            self._kill()
            raise BotFailure(
                "output_limit",
                f"wrote more than {self.limits.output_bytes} bytes on stdout in the match",
            )
        self._out += chunk
        if b"\n" not in self._out and len(self._out) > self.limits.answer_bytes:
            self._kill()
            raise BotFailure(
                "output_limit",
                f"an answer line longer than {self.limits.answer_bytes} bytes: "
                f"{self._out[:200].decode('utf-8', 'replace')!r}...",
            )
        return True

    def _take_line(self) -> bytes:
        """The next non-blank buffered line, stripped; b"" if no whole line is buffered."""
        while b"\n" in self._out:
            line, self._out = self._out.split(b"\n", 1)
            if len(line) > self.limits.answer_bytes:
                raise BotFailure(
                    "output_limit", f"an answer line longer than {self.limits.answer_bytes} bytes"
                )
            if line.strip():
                return line.strip()
        return b""

    def _read_stderr(self) -> bool:
        try:
            chunk = os.read(self.proc.stderr.fileno(), 65536)
        except BlockingIOError:
            return True
        if not chunk:
            self._err_open = False
            return False
        self._err = (self._err + chunk)[-self.limits.stderr_bytes:]
        return True

    def _drain_stderr(self) -> None:
        # Bounded: a bot that writes stderr without pause must not keep the runner here.
        for _ in range(64):
            if not self._err_open or self.proc is None:
                return
            try:
                chunk = os.read(self.proc.stderr.fileno(), 65536)
            except (BlockingIOError, OSError, ValueError):
                return
            if not chunk:
                self._err_open = False
                return
            self._err = (self._err + chunk)[-self.limits.stderr_bytes:]

    def _death(self) -> BotFailure:
        """The failure for a bot whose stdout closed: how it died, with its stderr tail."""
        proc = self.proc
        try:
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self._kill()
        # A process that exits may leave stderr to read; give it a moment to arrive.
        end = time.monotonic() + 0.5
        while self._err_open and time.monotonic() < end:
            self._drain_stderr()
            if self._err_open:
                time.sleep(0.01)
        code = proc.returncode
        tail = self._err.decode("utf-8", "replace").lower()
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            how = f"killed by {name}"
            # SIGKILL that we did not send is the kernel's out-of-memory killer.
            memory = any(s in tail for s in _MEMORY_SIGNS) or (
                -code == signal.SIGKILL and not self._killed
            )
        else:
            how = "closed its output" if code is None else f"exited with code {code}"
            memory = any(s in tail for s in _MEMORY_SIGNS)
        if memory:
            how += f" (memory limit {self.limits.memory_mb} MiB)"
        return BotFailure("memory" if memory else "crash", how + self._tail())
