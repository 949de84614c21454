"""The network tools of a script that runs for real (runbox.py), answered by netsim.

The sandbox has no network. Its `wget`, `nslookup` and `nc` are small busybox-sh programs
(SHIM, at /bin/wget, /bin/nslookup and /bin/nc; the script gets shell functions naming
them, PRELUDE; an `nc -l` listener stays the real applet, on the sandbox's loopback) that
leave the command line in a request directory under NET_DIR — a host directory of the
container, bound writable into the sandbox — and wait for the answer; a host thread (Bridge)
picks each request up, has the node simulator answer it as `kubectl exec … wget` is answered
(shell.py over netsim: DNS, Services, NetworkPolicy, ingress controllers, the backend's
page), writes stdout, stderr and the exit code back, and marks it done. So a script's
`wget -qO- -T 3 http://svc/ | grep -q ok` sees what the same wget would see from
`kubectl exec`, and its loop, log lines and exit codes stay the script's own.

Everything in the request directory is the container's, so hostile: every name is checked,
every file is opened beneath a directory descriptor without following a symlink, what is
read is bounded, and answers are created exclusively (an answer file already there, or a
link in its place, drops the request)."""

import logging
import os
import re
import stat
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("kubeproof.nodesim")

NET_DIR = "/run/kubeproof-net"  # where the sandbox sees its request directory
TOOLS = ("wget", "nslookup", "nc")  # the applets replaced by the shim
POLL_SECONDS = 0.05
MAX_ARGV = 64 << 10  # bytes of one request's command line
MAX_PENDING = 32  # requests answered per poll (a flood waits for the next)
NAME = re.compile(r"r\.[0-9]{1,10}\.[0-9]{1,10}")
# The shim: busybox applets named through /bin/busybox, so it works whatever the image's
# /bin lists. It gives up after 60 s as a client would (wget's -T is the simulator's to
# honour: netsim answers at once).
SHIM = f"""#!/bin/sh
b=/bin/busybox
n="${{0##*/}}"
if [ "$n" = nc ]; then  # a listener (-l, -lk, -lp PORT ...) is the real applet's
  for a in "$@"; do case "$a" in --*) ;; -*l*) exec $b nc "$@" ;; esac; done
fi
d={NET_DIR}/r.$$.$RANDOM
$b mkdir "$d" 2>/dev/null || {{ echo "$n: network unavailable" >&2; exit 1; }}
for a in "$n" "$@"; do $b printf '%s\\0' "$a"; done > "$d/argv.tmp" && $b mv "$d/argv.tmp" "$d/argv"
i=0
while [ ! -e "$d/done" ]; do
  i=$((i + 1))
  if [ "$i" -gt 1200 ]; then $b rm -rf "$d"; echo "$n: download timed out" >&2; exit 1; fi
  $b usleep 50000
done
if [ -e "$d/real" ]; then $b rm -rf "$d"; exec $b "$n" "$@"; fi
$b cat "$d/err" >&2
c=$($b cat "$d/code")
if [ -e "$d/to" ]; then
  t=$($b cat "$d/to")
  if ! e=$($b dd if="$d/out" of="$t" 2>&1); then echo "wget:${{e#dd:}}" >&2; c=1; fi
else
  $b cat "$d/out"
fi
$b rm -rf "$d"
exit "${{c:-1}}"
"""

# Debian's busybox-static ash runs its applets before searching PATH (a standalone shell):
# a script's `wget` would be the real applet, which reaches nothing. Functions come first,
# so the script is run with these in front of it, on its first line (its line numbers stay).
PRELUDE = 'wget() { /bin/wget "$@"; }; nslookup() { /bin/nslookup "$@"; }; nc() { /bin/nc "$@"; }; '


def with_tools(argv: list[str]) -> list[str]:
    """`sh [OPTIONS] -c SCRIPT …` with the prelude: its wget, nslookup and nc are the shims."""
    at = argv.index("-c", 1) + 1
    return [*argv[:at], PRELUDE + argv[at], *argv[at + 1 :]]


# (argv) -> (stdout, stderr, exit code): the node simulator's answer, as shell.py gives it;
# the exit code REAL: the applet itself is to run (an nc to where the sandbox really
# reaches: its loopback, or the apiserver and DNS in a pod network, podnet.py)
Answer = Callable[[list[str]], tuple[str, str, int]]
REAL = -1


def _open_dir(name: str, dir_fd: int | None = None) -> int:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    return os.open(name, flags, dir_fd=dir_fd)


def read_request(dir_fd: int) -> list[str] | None:
    """The command line of a request directory, None if it is not (yet) a valid one."""
    try:
        fd = os.open(
            "argv", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd
        )
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, MAX_ARGV + 1)
    finally:
        os.close(fd)
    if len(raw) > MAX_ARGV or not raw.endswith(b"\0"):
        return None
    words = [w.decode(errors="replace") for w in raw[:-1].split(b"\0")]
    return words if words and words[0] in TOOLS else None


def write_answer(dir_fd: int, out: str, err: str, code: int, to: str | None = None) -> bool:
    """The answer files, each created anew (never through a link); `done` last. `to`: the
    file the shim writes `out` into (wget -O FILE) instead of its stdout — written inside
    the sandbox, as the container's user, never by the host."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    files = [("out", out), ("err", err), ("code", f"{code}\n")]
    files += [("to", to)] if to is not None else []
    files = [("real", "")] if code == REAL else files
    for name, text in [*files, ("done", "")]:
        try:
            fd = os.open(name, flags, 0o644, dir_fd=dir_fd)
        except OSError:
            return False
        try:
            os.write(fd, text.encode(errors="surrogateescape"))
        finally:
            os.close(fd)
    return True


def output_file(argv: list[str]) -> str | None:
    """The file a wget writes the body into when its command names one (`-O FILE`,
    `-OFILE`, `--output-document=FILE`; busybox networking/wget.c), else None (stdout:
    `-O -`, or none named — busybox would then name it after the URL, not modelled)."""
    if not argv or argv[0] != "wget":
        return None
    found = None
    words = argv[1:]
    for i, word in enumerate(words):
        if word.startswith("--output-document="):
            found = word.split("=", 1)[1]
        elif word.startswith("-") and not word.startswith("--") and "O" in word[1:]:
            # -O FILE, -OFILE, -qO- ...: O's value is the rest of the word, else the next
            rest = word[word.index("O", 1) + 1 :]
            found = rest or (words[i + 1] if i + 1 < len(words) else None)
    if found in (None, "", "-") or "\0" in found or "\n" in found or len(found) > 4096:
        return None
    return found


def _answered(dir_fd: int) -> bool:
    """Whether an answer (or something in its place) is there already: a request is
    answered once, whatever the container does to its directory."""
    for name in ("out", "err", "code", "to", "real", "done"):
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            return True
        except FileNotFoundError:
            continue
    return False


class Bridge:
    """Serves one container's requests while `running()` holds, from a daemon thread."""

    def __init__(self, directory: Path, answer: Answer, running: Callable[[], bool]) -> None:
        self.directory = directory
        self.answer = answer
        self.running = running
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        stop = threading.Event()
        while self.running():
            try:
                self.poll()
            except Exception:  # one bad request must not end the container's network
                log.exception("network bridge of %s", self.directory)
            stop.wait(POLL_SECONDS)

    def poll(self) -> int:
        """Answer the requests waiting now; returns how many."""
        try:
            top = _open_dir(str(self.directory))
        except OSError:
            return 0
        answered = 0
        try:
            names = sorted(n for n in os.listdir(top) if NAME.fullmatch(n))
            for name in names[:MAX_PENDING]:
                answered += self._serve(top, name)
        finally:
            os.close(top)
        return answered

    def _serve(self, top: int, name: str) -> int:
        try:
            fd = _open_dir(name, top)
        except OSError:
            return 0
        try:
            if _answered(fd):
                return 0
            argv = read_request(fd)
            if argv is None:
                return 0
            out, err, code = self.answer(argv)
            write_answer(fd, out, err, code, output_file(argv) if code == 0 else None)
            return 1
        finally:
            os.close(fd)
