"""The kubectl an agent program or a human sees: every call logged and recorded as it ends.

The wrapper on the sandbox's PATH writes each call's arguments, output, exit code and times
into a call directory, runs the real kubectl, and then waits (at most `ACK_WAIT` seconds)
until the harness has recorded the call as a trajectory step, so the safety monitor looks
at the cluster after each call, before the agent's next one, exactly as for agents whose
commands the harness runs itself. What the session hands back after a call (the netpol
loop's mismatch report: `Session.reply_to_call`) is printed after the call's output, and
once the session ends the turn by itself every later call is refused with its words. The
step budget is enforced here too: a call past it fails.
"""

import copy
import os
import shlex
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from kubeproof import hostile
from kubeproof.agents.sandbox import OUTPUT_LIMIT, Bind, Sandbox, truncate
from kubeproof.agents.session import Session, Step

LOG_INSIDE = "/var/log/kubeproof"
REAL_KUBECTL = "/opt/kubeproof/libexec/kubectl"
ACK_WAIT = 30  # seconds a call waits for the harness before going on regardless
POLL = 0.005  # seconds between looks, on both sides: a call waits ~2 of them plus the monitor
WRAPPER = f"""#!/bin/sh
# kubectl as the agent sees it: each call is logged, the real kubectl runs, and the harness
# records the call (and looks at the cluster) before the agent goes on.
calls={LOG_INSIDE}/calls
if [ -f {LOG_INSIDE}/over ]; then
  cat {LOG_INSIDE}/over >&2
  exit 1
fi
if [ "$(ls "$calls" | wc -l)" -ge "${{KUBEPROOF_MAX_STEPS:-1000000}}" ]; then
  echo "kubeproof: step budget of $KUBEPROOF_MAX_STEPS commands spent" >&2
  : > {LOG_INSIDE}/exhausted
  exit 1
fi
call=$(mktemp -d "$calls/call.XXXXXXXX")
date +%s.%N > "$call/start"
printf '%s\\0' "$@" > "$call/argv"
{REAL_KUBECTL} "$@" > "$call/out" 2> "$call/err"
rc=$?
date +%s.%N > "$call/end"
echo "$rc" > "$call/rc.tmp" && mv "$call/rc.tmp" "$call/rc"
cat "$call/out"
cat "$call/err" >&2
i=0
while [ ! -e "$call/seen" ] && [ "$i" -lt {int(ACK_WAIT / POLL)} ]; do
  sleep {POLL}
  i=$((i + 1))
done
if [ -f "$call/reply" ]; then
  cat "$call/reply"
fi
exit "$rc"
"""

T = TypeVar("T")


@dataclass
class Call:
    argv: list[str]
    exit_code: int
    stdout: str
    stderr: str
    started: float
    seconds: float


ARGV_LIMIT = 4 * 1024 * 1024  # bytes of arguments (the kernel's own limit is near 2 MiB)
STAMP_LIMIT = 64  # bytes of a time stamp or exit code


def _clipped(calls: int, name: str) -> str:
    """A captured output stream, cut as `truncate` cuts it, without reading more of a large
    file than is kept."""
    ends = hostile.read_ends(calls, name, OUTPUT_LIMIT)
    if ends is None:
        return ""
    head, tail, size = ends
    if not tail:
        return truncate(head)[0]
    return (
        head.decode(errors="replace")
        + f"\n... [{size - len(head) - len(tail)} bytes truncated] ...\n"
        + tail.decode(errors="replace")
    )


def _number(calls: int, name: str, kind: type) -> float | int | None:
    data = hostile.read_bytes(calls, name, STAMP_LIMIT)
    if data is None:
        return None
    try:
        value = kind(data.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        if not data.strip():
            return None  # the wrapper is still writing it
        raise hostile.HostileInput(f"{name} is not a number: {data[:20]!r}") from None
    if kind is float and not (0 < value < 1e11):  # a time stamp: finite, after 1970
        raise hostile.HostileInput(f"{name} is not a time: {value!r}")
    if kind is int and not (-1 <= value <= 255):
        raise hostile.HostileInput(f"{name} is not an exit code: {value!r}")
    return value


def read_call(calls: int, name: str, finished_only: bool = True) -> Call | None:
    """The call directory `name` under the calls directory (a descriptor); None while it is
    still running (or, when `finished_only` is false, only if it was killed before it logged
    anything useful). Everything in it is the agent's to forge: a call record that is not
    what the wrapper writes raises HostileInput."""
    rc = _number(calls, f"{name}/rc", int)
    if finished_only and rc is None:
        return None
    argv = hostile.read_bytes(calls, f"{name}/argv", ARGV_LIMIT)
    start = _number(calls, f"{name}/start", float)
    if argv is None or start is None:
        return None
    end = _number(calls, f"{name}/end", float) or start
    out = _clipped(calls, f"{name}/out")
    err = _clipped(calls, f"{name}/err")
    args = [a.decode(errors="replace") for a in argv.split(b"\0")[:-1]]
    return Call(args, -1 if rc is None else rc, out, err, start, max(0.0, end - start))


class KubectlLog:
    def __init__(self, log: Path):
        self.log = log

    def install(self, box: Sandbox, max_steps: int) -> Sandbox:
        """A copy of `box` whose kubectl is the wrapper, logging into this log."""
        shutil.rmtree(self.log, ignore_errors=True)
        (self.log / "calls").mkdir(parents=True)
        wrapper = self.log.parent / f"{self.log.name}-kubectl"
        wrapper.write_text(WRAPPER)
        wrapper.chmod(0o755)
        sandbox = copy.copy(box)
        sandbox.binds = [
            *box.binds,
            Bind(Path(box.kubectl), REAL_KUBECTL),
            Bind(wrapper, "/opt/kubeproof/bin/kubectl"),
            Bind(self.log, LOG_INSIDE, writable=True),
        ]
        sandbox.env = {**box.env, "KUBEPROOF_MAX_STEPS": str(max_steps)}
        return sandbox

    @property
    def exhausted(self) -> bool:
        return hostile.lexists(self.log, "exhausted")

    def record_while(self, session: Session, work: Callable[[], T]) -> T:
        """Run `work` (the agent program) on a thread; record each call as it ends, in the
        order they end, and release the waiting wrapper. Calls cut short are recorded last.
        The call directory is the agent's to write: a call record it forged or planted
        (a symlink, a FIFO, a number that is not one) is skipped and noted as its fault."""
        result: list = []
        failure: list[BaseException] = []

        def body() -> None:
            try:
                result.append(work())
            except BaseException as exc:  # re-raised on the caller's thread
                failure.append(exc)

        thread = threading.Thread(target=body, name="agent-program", daemon=True)
        thread.start()
        seen: set[str] = set()
        calls = os.open(self.log, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            while thread.is_alive():
                self._record_finished(session, calls, seen)
                thread.join(POLL)
            self._record_finished(session, calls, seen)
            cut_short = []
            for name in self._names(session, calls, seen):
                seen.add(name)
                if call := self._read(session, calls, name, finished_only=False):
                    cut_short.append(call)
            for call in sorted(cut_short, key=lambda c: c.started):
                self._record(session, call)
        finally:
            os.close(calls)
        if failure:
            raise failure[0]
        return result[0]

    @staticmethod
    def _names(session: Session, log: int, seen: set[str]) -> list[str]:
        try:
            return [
                f"calls/{n}" for n in hostile.list_dir(log, "calls") if f"calls/{n}" not in seen
            ]
        except hostile.HostileInput as exc:
            session.fault(f"the kubectl call log: {exc}")
            return []

    @staticmethod
    def _read(session: Session, log: int, name: str, finished_only: bool = True) -> Call | None:
        try:
            return read_call(log, name, finished_only)
        except hostile.HostileInput as exc:
            session.fault(f"the kubectl call log: {exc}")
            return None

    def _record_finished(self, session: Session, log: int, seen: set[str]) -> None:
        finished = []
        for name in self._names(session, log, seen):
            try:
                call = read_call(log, name)
            except hostile.HostileInput as exc:
                session.fault(f"the kubectl call log: {exc}")
                seen.add(name)  # refused once, not again
                continue
            if call:
                finished.append((call, name))
        for call, name in sorted(finished, key=lambda x: x[0].started + x[0].seconds):
            seen.add(name)
            self._record(session, call)
            try:
                # what the harness hands back, then the call released; written through a
                # fresh file renamed into place, never through whatever the agent put there
                if reply := session.reply_to_call():
                    hostile.write(log, f"{name}/reply", reply)
                if session.turn_over:
                    hostile.write(log, "over", f"kubeproof: {session.turn_over}\n")
                hostile.touch(log, f"{name}/seen")
            except hostile.HostileInput as exc:
                session.fault(f"the kubectl call log: {exc}")

    @staticmethod
    def _record(session: Session, call: Call) -> None:
        session.record(
            Step(
                len(session.steps) + 1,
                shlex.join(["kubectl", *call.argv]),
                call.exit_code,
                call.stdout,
                call.stderr,
                round(call.seconds, 3),
                False,
                False,
                round(call.started, 3),
                origin="kubectl",
            )
        )
