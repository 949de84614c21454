"""A container's shell script running for real in its sandbox (runbox.py): its stdout and
stderr become log lines as they are written, stamped when they arrive (as the CRI's log
writer stamps them); its exit status and an OOM kill become the container's terminated
state; `kubectl exec`, exec probes and exec hooks run in the same sandbox."""

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from kubeproof.agents.capture import Capture
from kubeproof.agents.limits import CommandGroup, usage
from kubeproof.nodesim.cpurate import CpuRate
from kubeproof.nodesim.netbridge import NET_DIR
from kubeproof.nodesim.runbox import Box, Mount, Run

LOG_BYTES = 10 << 20  # the kubelet's containerLogMaxSize: older lines go past it
LINE_BYTES = 16 << 10  # the CRI splits longer lines (pkg/kubelet/kuberuntime/logs)
MAX_LINE = 256 << 10  # … and we keep this much of one line
EXEC_OUTPUT = 1 << 20  # what one exec returns of each stream
PROBE_OUTPUT = 10 << 10  # maxReadLength, pkg/probe/exec/exec.go:32
EXEC_LIMIT = 300.0  # a `kubectl exec` is cut after this (containment, not a kubelet timing)
WATCH_SECONDS = 2.0  # how often the writable layer's size is checked
DRAIN_SECONDS = 10.0  # how long a finished container's group may take to empty


@dataclass
class ExecResult:
    stdout: str
    stderr: str
    code: int
    timed_out: bool = False


class Live:
    """The script of one container run: started at once, watched by threads."""

    def __init__(
        self,
        box: Box,
        run: Run,
        logs: list[tuple[float, str]],
        on_exit: Callable[[], None] | None = None,
    ) -> None:
        self.box = box
        self.mounts = [m for m in run.mounts if m.writable]
        if run.net_dir is not None:  # its network requests count as what it writes
            self.mounts.append(Mount(run.net_dir, NET_DIR))
        self.logs = logs
        self.on_exit = on_exit
        self.exit_code: int | None = None
        self.finished_at: float | None = None
        self.oom = False
        self.over_quota = False
        self._logged = 0
        self._lock = threading.Lock()
        # one pipe for both streams: lines keep the order they were written in (a runtime's
        # two pipes nearly always show it too; `kubectl logs` does not tell them apart)
        self.proc, self.group, info = box.popen(
            run, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        self.pid1 = _child_pid(info)
        # metrics-server's scrapes of its CPU counter, where its group counts CPU (cpurate.py)
        counted = self.group is not None and self.group.cpu_seconds() is not None
        self.cpu: CpuRate | None = CpuRate(time.time()) if counted else None
        readers = [threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True)]
        for reader in readers:
            reader.start()
        threading.Thread(target=self._wait, args=(readers,), daemon=True).start()

    @property
    def alive(self) -> bool:
        return self.exit_code is None

    @property
    def reason(self) -> str:
        """containerd's exit reasons (internal/cri/server/helpers.go: completeExitReason,
        errorExitReason, oomExitReason): an OOM kill in the container's group wins, as
        containerd's TaskOOM handler sets the reason whichever process was killed
        (internal/cri/server/events.go: `status.Reason = oomExitReason`)."""
        if self.oom:
            return "OOMKilled"
        return "Completed" if self.exit_code == 0 else "Error"

    def _read(self, stream) -> None:
        """Lines as they come, read at most LINE_BYTES at a time: a longer line arrives in
        pieces (the CRI writes them as partial entries, which `kubectl logs` shows joined)
        and is kept to MAX_LINE, so no output, however long its lines, grows the node
        simulator without bound."""
        pending = b""
        for piece in iter(lambda: stream.readline(LINE_BYTES), b""):
            if len(pending) < MAX_LINE:
                pending += piece[: MAX_LINE - len(pending)]
            if piece.endswith(b"\n"):
                self._add(pending.rstrip(b"\n"))
                pending = b""
        if pending:  # the last line, without its newline
            self._add(pending)
        stream.close()

    def _add(self, raw: bytes) -> None:
        with self._lock:
            self.logs.append((time.time(), raw.decode(errors="replace")))
            self._logged += len(raw) + 1
            if self._logged > LOG_BYTES:  # rotated away, as the kubelet rotates
                dropped = len(self.logs) // 2
                self._logged -= sum(len(t) + 1 for _, t in self.logs[:dropped])
                del self.logs[:dropped]

    def _wait(self, readers: list[threading.Thread]) -> None:
        while True:
            try:
                code = self.proc.wait(timeout=WATCH_SECONDS)
                break
            except subprocess.TimeoutExpired:
                if self._disk_bytes() > self.box.quota:
                    self.over_quota = True
                    self.kill()
                now = time.time()
                if self.cpu is not None and self.group is not None and self.cpu.due(now):
                    self.cpu.scrape(now, self.group.cpu_seconds())
        for reader in readers:  # every line written comes before the exit
            reader.join(timeout=2.0)
        if self.group is not None:
            self.oom = self.group.oom_killed()
            drain(self.group)
        self.finished_at = time.time()
        # bwrap exits with its PID 1's status, 128 + N for a signal (as runc reports it)
        self.exit_code = 128 - code if code < 0 else code
        if self.on_exit is not None:
            self.on_exit()

    def _disk_bytes(self) -> int:
        """What it has written to the host's disk: its layer and the emptyDirs it writes."""
        total = self.box.layer_bytes()
        for mount in self.mounts:
            total += usage(mount.host, self.box.quota)
        return total

    def terminate(self) -> None:
        """SIGTERM to the sandbox's PID 1 (which ignores it unless its script traps it)."""
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):  # bwrap: its pid namespace goes too
            os.killpg(self.proc.pid, signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        if self.pid1 and self.alive:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid1, sig)

    def wait(self, timeout: float) -> bool:
        """Whether it has exited within `timeout` seconds."""
        end = time.monotonic() + timeout
        while self.alive and time.monotonic() < end:
            time.sleep(0.02)
        return not self.alive

    def exec(
        self, run: Run, timeout: float | None, limit: int = EXEC_OUTPUT, stdin: bytes | None = None
    ) -> ExecResult:
        """`run` in the same sandbox (its layer, its control group), fed `stdin` (None: an
        empty one), cut after `timeout`."""
        group: CommandGroup | None = self.group if self.alive else None
        proc, own, info = self.box.popen(
            run,
            group=group,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        _child_pid(info)  # read, not closed unread: bwrap would die of SIGPIPE writing it
        capture = Capture(proc, stdin, limit)  # read as it comes: never more than `limit`
        timed_out = not capture.wait(timeout or EXEC_LIMIT)
        if timed_out:
            os.killpg(proc.pid, signal.SIGKILL)
        code = proc.wait()
        if own is not None and own is not group:
            drain(own)
        stdout, stderr, _cut = capture.finish()
        return ExecResult(stdout, stderr, 128 - code if code < 0 else code, timed_out)


def drain(group: CommandGroup, seconds: float = DRAIN_SECONDS) -> None:
    """Remove a control group once what is left in it is gone: PID 1 has exited, but the
    rest of its pid namespace (a fork bomb's thousand shells) may still be dying, and a
    group with tasks cannot be removed — so they are killed and waited for first."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        left = []
        for d in group.dirs:
            with contextlib.suppress(OSError):
                left += (d / "cgroup.procs").read_text().split()
        if not left:
            break
        for pid in left:
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        time.sleep(0.05)
    group.remove()


def _child_pid(info: int) -> int | None:
    """The sandboxed PID 1's host pid, from bwrap's --info-fd JSON."""
    data = b""
    try:
        while not data.rstrip().endswith(b"}") and len(data) < 65536:
            chunk = os.read(info, 4096)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(info)
    try:
        return int(json.loads(data)["child-pid"])
    except (ValueError, KeyError, TypeError):
        return None
