"""Starting and stopping component processes.

All components of a cluster share one process group, so one signal reaches them all.
An attached cluster (the Python API) also dies with the harness: each child gets
PR_SET_PDEATHSIG. Linux fires that signal when the *thread* that forked the child exits,
so every spawn happens on one long-lived thread rather than on whichever worker thread
asked for the cluster. A detached cluster (`kubeproof cluster up`) outlives the CLI and
is stopped by `kubeproof cluster down`.
"""

import contextlib
import ctypes
import os
import queue
import signal
import subprocess
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import psutil

_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


def _die_with_parent() -> None:
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


@dataclass(frozen=True)
class ProcessRef:
    """A process identified by pid *and* start time, so a reused pid is not mistaken for it."""

    pid: int
    started: float

    def alive(self) -> bool:
        try:
            proc = psutil.Process(self.pid)
            return (
                abs(proc.create_time() - self.started) < 0.05
                and proc.status() != psutil.STATUS_ZOMBIE
            )
        except psutil.Error:
            return False


class _Spawner:
    def __init__(self) -> None:
        self._requests: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _loop(self) -> None:
        while True:
            future, kwargs = self._requests.get()
            try:
                future.set_result(subprocess.Popen(**kwargs))
            except BaseException as exc:  # handed back to the caller's thread
                future.set_exception(exc)

    def submit(self, **kwargs) -> subprocess.Popen:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="kubeproof-spawner", daemon=True
                )
                self._thread.start()
        future: Future = Future()
        self._requests.put((future, kwargs))
        return future.result()


_spawner = _Spawner()


def spawn(
    argv: list[str],
    log: Path,
    *,
    group: int | None,
    attached: bool,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen, ProcessRef]:
    """Start argv with output appended to `log`, in process group `group` (None: a new one)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    out = log.open("ab")
    kwargs: dict = {
        "args": argv,
        "stdin": subprocess.DEVNULL,
        "stdout": out,
        "stderr": subprocess.STDOUT,
        "env": os.environ | (env or {}),
        "close_fds": True,
        "process_group": 0 if group is None else group,
    }
    if attached:
        kwargs["preexec_fn"] = _die_with_parent
        proc = _spawner.submit(**kwargs)
    else:
        proc = subprocess.Popen(**kwargs)
    out.close()
    return proc, ProcessRef(proc.pid, psutil.Process(proc.pid).create_time())


def group_members(pgid: int) -> list[psutil.Process]:
    if pgid <= 0:  # no group recorded (a start that died before its first process)
        return []
    members = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                members.append(proc)
        except (ProcessLookupError, psutil.Error):
            continue
    return members


def stop_group(pgid: int, refs: list[ProcessRef], timeout: float = 10.0) -> None:
    """SIGTERM the group, then SIGKILL whatever is left after `timeout` seconds.

    A record without a group (pgid 0) has nothing to stop: os.killpg(0, …) would signal the
    caller's own process group (the user's shell, a test run), and some processes report
    pgid 0 (those whose group leader lies outside this PID namespace)."""
    if pgid <= 0:
        return
    live = [r for r in refs if r.alive()]
    if not live and not group_members(pgid):
        return
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(r.alive() for r in refs) and not group_members(pgid):
            return
        time.sleep(0.05)
    _signal_group(pgid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (any(r.alive() for r in refs) or group_members(pgid)):
        time.sleep(0.05)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)
