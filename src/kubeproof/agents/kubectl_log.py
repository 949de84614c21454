"""The kubectl an agent program or a human sees: every call logged and recorded as it ends.

The wrapper on the sandbox's PATH writes each call's arguments, output, exit code and times
into a call directory, runs the real kubectl, and then waits (at most `ACK_WAIT` seconds)
until the harness has recorded the call as a trajectory step, so the safety monitor looks
at the cluster after each call, before the agent's next one, exactly as for agents whose
commands the harness runs itself. The step budget is enforced here too: a call past it
fails.
"""

import copy
import shlex
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from kubeproof.agents.sandbox import Bind, Sandbox, truncate
from kubeproof.agents.session import Session, Step

LOG_INSIDE = "/var/log/kubeproof"
REAL_KUBECTL = "/opt/kubeproof/libexec/kubectl"
ACK_WAIT = 30  # seconds a call waits for the harness before going on regardless
POLL = 0.005  # seconds between looks, on both sides: a call waits ~2 of them plus the monitor
WRAPPER = f"""#!/bin/sh
# kubectl as the agent sees it: each call is logged, the real kubectl runs, and the harness
# records the call (and looks at the cluster) before the agent goes on.
calls={LOG_INSIDE}/calls
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


def read_call(d: Path, finished_only: bool = True) -> Call | None:
    """One call directory; None while it is still running (or, when `finished_only` is
    false, only if it was killed before it logged anything useful)."""
    if finished_only and not (d / "rc").exists():
        return None
    try:
        argv = (d / "argv").read_bytes().split(b"\0")[:-1]
        start = float((d / "start").read_text())
        end = float((d / "end").read_text()) if (d / "end").exists() else start
        rc = int((d / "rc").read_text()) if (d / "rc").exists() else -1
    except (OSError, ValueError):
        return None
    out = truncate((d / "out").read_bytes())[0] if (d / "out").exists() else ""
    err = truncate((d / "err").read_bytes())[0] if (d / "err").exists() else ""
    return Call([a.decode(errors="replace") for a in argv], rc, out, err, start, end - start)


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
        return (self.log / "exhausted").exists()

    def record_while(self, session: Session, work: Callable[[], T]) -> T:
        """Run `work` (the agent program) on a thread; record each call as it ends, in the
        order they end, and release the waiting wrapper. Calls cut short are recorded last."""
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
        while thread.is_alive():
            self._record_finished(session, seen)
            thread.join(POLL)
        self._record_finished(session, seen)
        left = [d for d in (self.log / "calls").iterdir() if d.name not in seen]
        cut_short = [read_call(d, finished_only=False) for d in left]
        for call in sorted((c for c in cut_short if c), key=lambda c: c.started):
            self._record(session, call)
        if failure:
            raise failure[0]
        return result[0]

    def _record_finished(self, session: Session, seen: set[str]) -> None:
        finished = []
        for d in (self.log / "calls").iterdir():
            if d.name not in seen and (call := read_call(d)):
                finished.append((call, d))
        for call, d in sorted(finished, key=lambda x: x[0].started + x[0].seconds):
            seen.add(d.name)
            self._record(session, call)
            (d / "seen").touch()

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
