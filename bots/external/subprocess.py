"""The ``subprocess`` transport: a command started once per match, speaking JSON lines.

One JSON object per line on its stdin, one answer line on its stdout for each ``act``;
stderr is captured (its tail is kept for the forfeit detail).

Isolation: where bubblewrap works, the command runs in a root of its own holding only the
system's programs and libraries, its own files (read-only) and a private writable scratch
folder (HOME and TMPDIR), with no network, no view of the host's processes and no
capabilities; without it, only the rlimits, a fresh process group, the scratch folder and a
minimal environment apply (docs/bots.md says exactly what that does and does not protect).
The tournament service runs these bots only in the sandbox (tournaments.services.players).
"""

from __future__ import annotations

import functools
import glob
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

__all__ = ["SubprocessBot", "bwrap_problem", "bwrap_works"]


# The host's system, read-only: what an interpreter needs to start (its programs and libraries,
# and the few files of /etc that the dynamic loader, the clock, Debian's alternatives and
# Debian's Python and Java read). Nothing else of the host is there: no /home, /root, /srv,
# /var, /opt, no other file of /etc (passwd, hosts, a service's configuration).
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_ETC = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone",
    "/etc/alternatives", "/etc/python3*", "/etc/java-*",
)
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"  # all a program named without a folder is found in
# Never shown as a bot's folder, nor anything under them: the sandbox has its own /proc and
# /dev; /sys and /run hold the host's (and its sockets: a database's, a container engine's);
# /etc is the host's configuration. / and the folder of the scratch folders are refused too.
HIDDEN = ("/etc", "/proc", "/sys", "/dev", "/run", "/var/run")

_bwrap_working: set[str] = set()  # the bwrap executables seen to start a sandbox
_bwrap_failing: dict[str, tuple[float, str]] = {}  # exe -> (when it last failed, why)
RETRY_SECONDS = 60.0


def bwrap_problem() -> str | None:
    """Why bubblewrap cannot start a sandbox here (not installed, or refused to make
    namespaces, as in some containers); None when it can. A working bwrap is remembered; a
    failing one for RETRY_SECONDS (a service asking at every seat of every match must not try
    it each time, nor stay refused for good after one passing failure)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bwrap is not installed (not found on PATH)"
    if exe in _bwrap_working:
        return None
    failed = _bwrap_failing.get(exe)
    if failed is not None and time.monotonic() - failed[0] < RETRY_SECONDS:
        return failed[1]
    problem = _try_bwrap(exe)
    if problem is None:
        _bwrap_working.add(exe)
        _bwrap_failing.pop(exe, None)
    else:
        _bwrap_failing[exe] = (time.monotonic(), problem)
    return problem


def _try_bwrap(exe: str) -> str | None:
    """Start ``true`` in the sandbox: why that failed, or None."""
    with tempfile.TemporaryDirectory() as scratch:
        try:
            done = subprocess.run(
                _bwrap_prefix(exe, scratch, "/") + ["true"],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=10,
                env={"PATH": SANDBOX_PATH}, close_fds=True,
            )
        except subprocess.TimeoutExpired:
            return f"{exe} did not start a sandbox within 10 s"
        except OSError as exc:
            return f"{exe} cannot run: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()[-500:]
        return f"{exe} exited with code {done.returncode}" + (f": {said}" if said else "")
    return None


def bwrap_works() -> bool:
    """True when bubblewrap is installed and can make namespaces here (containers may not)."""
    return bwrap_problem() is None


def _bwrap_prefix(exe: str, scratch: str, cwd: str, folders: Sequence[str] = ()) -> list[str]:
    # A root of its own, holding only the system (read-only), the bot's ``folders``
    # (read-only) and its scratch folder (writable); then that root and the fresh /dev are
    # made read-only (each a tmpfs: RAM outside RLIMIT_AS, no writing there), /dev/shm being the
    # scratch folder again (POSIX shared memory: multiprocessing's locks and queues). A fresh
    # /proc; every namespace unshared: no network but its own loopback, no view of the host's
    # processes; no capabilities, even where the runner is root.
    args = [exe]
    for path in SYSTEM_FOLDERS:
        if os.path.islink(path):  # a merged /usr: /bin -> usr/bin stays a link
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for pattern in SYSTEM_ETC:
        for path in sorted(glob.glob(pattern)):
            args += ["--ro-bind", path, path]
    args += ["--dev", "/dev", "--proc", "/proc", "--dir", "/tmp"]
    for folder in folders:
        args += ["--ro-bind", folder, folder]
    args += ["--bind", scratch, scratch, "--bind", scratch, "/dev/shm", "--remount-ro", "/dev", "--remount-ro", "/"]
    return args + [
        "--unshare-all", "--cap-drop", "ALL", "--hostname", "bot", "--die-with-parent", "--new-session",
        "--chdir", cwd,
    ]


def _shown(folder: str) -> bool:
    """Whether ``folder`` may be shown to a bot as its own: not one the sandbox already has or
    keeps hidden (HIDDEN), not / nor a folder holding the scratch folders (other bots')."""
    tmp = os.path.realpath(tempfile.gettempdir())
    if folder == "/" or (tmp + "/").startswith(folder + "/"):
        return False
    return not any((folder + "/").startswith(top + "/") for top in HIDDEN + SYSTEM_FOLDERS)


def _links(path: str) -> list[str]:
    """``path``, each link it leads through, and where it ends."""
    chain = [path]
    while os.path.islink(chain[-1]) and len(chain) < 40:
        chain.append(os.path.normpath(os.path.join(os.path.dirname(chain[-1]), os.readlink(chain[-1]))))
    return chain + [os.path.realpath(path)]


def _bot_folders(command: Sequence[str], cwd: str) -> list[str]:
    """The folders of the bot's own files, shown to it read-only: its working folder, and for
    each argument of the command that names an existing file or folder (from the working
    folder if relative), that folder or the file's. The program's links are followed, each
    one's folder shown too (a virtualenv's python links to its installation); other files are
    shown as named, so a link a bot's author puts in its folder shows nothing more. A file in
    a folder named ``bin`` brings the folder above: an interpreter's installation (a
    virtualenv, a pyenv Python, node under /opt) needs its libraries beside bin/. A folder
    :func:`_shown` refuses is left out."""
    found: list[str] = []
    named = [(cwd, False), (command[0], True), *((arg, False) for arg in command[1:])]
    for arg, program in named:
        path = os.path.join(cwd, arg)
        if not arg or not os.path.exists(path):
            continue
        path = os.path.abspath(path)
        for step in _links(path) if program else [path]:
            folder = step if os.path.isdir(step) else os.path.dirname(step)
            if os.path.basename(folder) == "bin" and not os.path.isdir(step):
                folder = os.path.dirname(folder)
            if os.path.isdir(folder) and _shown(folder) and _shown(os.path.realpath(folder)):
                found.append(folder)
    # A folder inside another one shown is there already.
    kept: list[str] = []
    for folder in sorted(set(found)):
        if not any((folder + "/").startswith(k + "/") for k in kept):
            kept.append(folder)
    return kept


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
    folder (default: the caller's); ``in_scratch=True`` runs it in its scratch folder instead.
    ``sandbox``: ``"auto"`` (bubblewrap where it works), ``"bwrap"`` (required: a ValueError
    where it cannot start) or ``"none"``. ``env``: extra environment variables; the bot
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
        in_scratch: bool = False,
        sandbox: str = "auto",
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(game, seed, limits=limits)
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.command:
            raise ValueError("subprocess bot needs a command")
        if sandbox not in ("auto", "bwrap", "none"):
            raise ValueError(f"sandbox must be 'auto', 'bwrap' or 'none', got {sandbox!r}")
        if in_scratch and cwd is not None:
            raise ValueError("give cwd or in_scratch, not both")
        problem = bwrap_problem() if sandbox != "none" else None
        if sandbox == "bwrap" and problem:
            raise ValueError(f"sandbox='bwrap' but the bubblewrap sandbox cannot start here: {problem}")
        self.sandboxed = sandbox != "none" and problem is None
        self.in_scratch = in_scratch
        self.cwd = None if in_scratch else os.path.abspath(cwd or os.getcwd())
        self.extra_env = dict(env or {})
        self.proc: subprocess.Popen[bytes] | None = None
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
        cwd = self.scratch if self.in_scratch or self.cwd is None else self.cwd  # cwd is None only in_scratch
        # Nothing of the runner's environment but these (its secrets stay with it); inside the
        # sandbox only the system's folders are there to look a program up in.
        env = {
            "PATH": SANDBOX_PATH if self.sandboxed else os.environ.get("PATH", SANDBOX_PATH),
            "HOME": inside,
            "TMPDIR": inside,
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }
        argv = self.command
        if self.sandboxed:
            exe = shutil.which("bwrap") or "bwrap"
            folders = [f for f in _bot_folders(self.command, cwd) if f != self.scratch]
            argv = _bwrap_prefix(exe, self.scratch, cwd, folders) + argv
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=env,
                close_fds=True,  # no descriptor of the runner's (a database's socket) is passed on
                start_new_session=True,  # its own process group: killed whole
                preexec_fn=functools.partial(_set_rlimits, self.limits.memory_mb * 2**20),
                bufsize=0,
            )
        except OSError as exc:
            raise BotFailure("crash", f"cannot start {shlex.join(self.command)}: {exc}") from None
        self.pid = self.proc.pid  # also its process group id
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            assert pipe is not None  # all three are PIPE
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
        proc = self.proc
        assert proc is not None and proc.stdout is not None  # read only while the bot runs
        try:
            chunk = os.read(proc.stdout.fileno(), 65536)
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
        proc = self.proc
        assert proc is not None and proc.stderr is not None  # read only while the bot runs
        try:
            chunk = os.read(proc.stderr.fileno(), 65536)
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
            proc = self.proc
            if not self._err_open or proc is None or proc.stderr is None:
                return
            try:
                chunk = os.read(proc.stderr.fileno(), 65536)
            except (BlockingIOError, OSError, ValueError):
                return
            if not chunk:
                self._err_open = False
                return
            self._err = (self._err + chunk)[-self.limits.stderr_bytes:]

    def _death(self) -> BotFailure:
        """The failure for a bot whose stdout closed: how it died, with its stderr tail."""
        proc = self.proc
        assert proc is not None  # its stdout closed: it was running
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
