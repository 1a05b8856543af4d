"""A subprocess bot that looks for what a sandbox must hide, says what it found, and exits.

    python sandbox_probe.py PARENT_PID PORT read:FILE...

Before reading anything it writes one JSON line on stderr, then exits with code 3 (a crash:
the report is the forfeit's stderr tail):

- ``environ``: the names in its own environment;
- ``leaks``: where SECRET_KEY= or DATABASE_URL= was found: ``os.environ``, or the environ of
  any process it can read in /proc (its parent PARENT_PID's and /proc/1's included);
- ``tcp``: for 127.0.0.1:PORT and a public address, ``"connected"`` or the error's name;
- ``files``: for each FILE, ``"read"`` or the error's name (named ``read:FILE``, as a file
  named in the command is the bot's own and shown to it);
- ``fds``: the descriptors it holds (stdin, stdout, stderr and the one listing them: 0 to 3);
- ``written``: which of its HOME, /, /tmp, /dev and /dev/shm it could write a file in.
"""

import errno
import json
import os
import socket
import sys

SECRETS = (b"SECRET_KEY=", b"DATABASE_URL=")
parent, port, files = sys.argv[1], int(sys.argv[2]), [arg.removeprefix("read:") for arg in sys.argv[3:]]


def failure(exc: OSError) -> str:
    if isinstance(exc, socket.timeout):
        return "timeout"
    return errno.errorcode.get(exc.errno, type(exc).__name__)


leaks = [f"os.environ:{name}" for name in ("SECRET_KEY", "DATABASE_URL") if name in os.environ]
pids = {p for p in os.listdir("/proc") if p.isdigit()} | {parent, "1"}
for pid in sorted(pids):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read()
    except OSError:
        continue
    leaks += [f"/proc/{pid}/environ:{s.decode()[:-1]}" for s in SECRETS if s in environ]

tcp = {}
for host in ("127.0.0.1", "1.1.1.1"):
    try:
        socket.create_connection((host, port if host == "127.0.0.1" else 53), timeout=2).close()
        tcp[host] = "connected"
    except OSError as exc:
        tcp[host] = failure(exc)

read = {}
for path in files:
    try:
        with open(path) as f:
            f.read()
        read[path] = "read"
    except OSError as exc:
        read[path] = failure(exc)

written = []
for folder in (os.environ.get("HOME", "/nonexistent"), "/", "/tmp", "/dev", "/dev/shm"):
    try:
        with open(os.path.join(folder, "probe-write"), "w") as f:
            f.write("x")
        written.append(folder)
    except OSError:
        pass

fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
report = {"environ": sorted(os.environ), "leaks": leaks, "tcp": tcp, "files": read, "fds": fds,
          "written": written}
print(json.dumps(report), file=sys.stderr, flush=True)
sys.exit(3)
