"""Trial benchmark, per starter task, measured in real trials on embedded clusters:

- setup to agent-ready: applying the task, waiting for its broken state, the agent's
  access and the baseline (cluster start excluded: the runner starts it ahead). Target 3 s.
- verifier: one evaluation of the task's verify(v), beside the very same API requests
  made as `kubectl` subprocesses (how shell-script verifiers work). Targets 1 s and 5x.
- harness overhead per agent step: a step of `true` through the session (sandbox,
  trajectory, safety monitor) minus `sh -c true` run directly. Target 50 ms.
- overhead per kubectl call of a CLI agent: calls through the logging wrapper, each
  recorded and looked at by the safety monitor before the program goes on, minus the same
  calls of the real kubectl in the same sandbox. Target 50 ms.

    python benchmarks/trial.py [--tasks tasks/repair] [--steps 10] [--json out.json]
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.table import Table

from kubeproof.agents.kubectl_log import KubectlLog
from kubeproof.cluster.base import kubectl_binary
from kubeproof.runner.provision import EmbeddedSource
from kubeproof.runner.trial import Trial, TrialPlan
from kubeproof.tasks import discover, load
from kubeproof.verify.verifier import load_function, once
from report import publish


def recorded_requests(client) -> list:
    """Wrap the lightkube client's HTTP transport to note each request it sends."""
    http = client._client._client
    sent: list = []
    original = http.send

    def send(request, **kwargs):
        sent.append((request.method, request.url.raw_path.decode(), request.content))
        return original(request, **kwargs)

    http.send = send
    return sent


def as_kubectl(kubeconfig: Path, requests: list) -> float:
    """The same requests, each as one kubectl subprocess; returns the seconds taken. A 404 is
    an answer too (verifiers ask for objects that must be absent): exit codes are not checked."""
    started = time.perf_counter()
    for method, path, body in requests:
        base = [kubectl_binary(), f"--kubeconfig={kubeconfig}"]
        if method == "GET":
            subprocess.run([*base, "get", "--raw", path], capture_output=True, check=False)
        else:
            subprocess.run(
                [*base, "create", "--raw", path, "-f", "-"],
                input=body,
                capture_output=True,
                check=False,
            )
    return time.perf_counter() - started


class Measure:
    """An agent that measures from inside a trial, then submits."""

    name = "benchmark"

    def __init__(self, trial_ref: list, steps: int):
        self.trial_ref, self.steps, self.figures = trial_ref, steps, {}

    def act(self, session) -> None:
        trial: Trial = self.trial_ref[0]
        times = []
        for _ in range(self.steps):
            t = time.perf_counter()
            session.run("true")
            times.append(time.perf_counter() - t)
        bare = []
        for _ in range(self.steps):
            t = time.perf_counter()
            subprocess.run(["sh", "-c", "true"], check=True)
            bare.append(time.perf_counter() - t)
        monitor = []
        for _ in range(self.steps):
            t = time.perf_counter()
            trial.monitor.after_step()
            monitor.append(time.perf_counter() - t)
        step, direct = statistics.median(times), statistics.median(bare)
        cli_call = self._cli_call_overhead(session)

        client = trial.cluster.client()
        verify = load_function(trial.task.verifier, "verify")
        once(verify, client, trial.baseline)  # warm the connection, like the runner's
        sent = recorded_requests(client)
        runs = []
        for _ in range(5):
            sent.clear()
            t = time.perf_counter()
            once(verify, client, trial.baseline)
            runs.append(time.perf_counter() - t)
        verifier = statistics.median(runs)
        kubectl = as_kubectl(trial.cluster.admin_kubeconfig, list(sent))
        self.figures = {
            "step_s": round(step, 4),
            "direct_s": round(direct, 4),
            "overhead_s": round(step - direct, 4),
            "monitor_s": round(statistics.median(monitor), 4),
            "cli_call_overhead_s": round(cli_call, 4),
            "verifier_s": round(verifier, 4),
            "verifier_requests": len(sent),
            "kubectl_s": round(kubectl, 4),
            "verifier_speedup": round(kubectl / verifier, 1),
        }
        session.run("submit")

    def _cli_call_overhead(self, session) -> float:
        program = "; ".join(["kubectl version --client >/dev/null"] * self.steps)
        log = KubectlLog(session.sandbox.scratch.parent / "benchmark-cli-log")
        wrapped = log.install(session.sandbox, max_steps=10_000)
        t = time.perf_counter()
        log.record_while(session, lambda: wrapped.run(program))
        through_wrapper = time.perf_counter() - t
        t = time.perf_counter()
        session.sandbox.run(program)
        real = time.perf_counter() - t
        return (through_wrapper - real) / self.steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="tasks/repair")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--json")
    args = parser.parse_args()
    tasks = [load(root) for root in discover([Path(args.tasks)])]
    source = EmbeddedSource()
    out = Path(tempfile.mkdtemp(prefix="kubeproof-bench-"))
    rows = []
    futures = [source.prepare(t) for t in tasks[:1]]
    try:
        for i, task in enumerate(tasks):
            current = futures[i]
            if i + 1 < len(tasks):
                futures.append(source.prepare(tasks[i + 1]))
            ref: list = []
            agent = Measure(ref, args.steps)
            trial = Trial(TrialPlan(task, "noop", 1, out / str(i)), source, current, agent=agent)
            ref.append(trial)
            record = trial.run().record()
            if record["verdict"] in ("error", "invalid"):
                print(f"{task.id}: {record['verdict']}: {record['reason']}", file=sys.stderr)
                return 1
            t = record["timings"]
            ready = t["setup"] + t["broken_state"] + t["access"] + t["baseline"]
            rows.append({"task": task.id, "agent_ready_s": round(ready, 3)} | agent.figures)
    finally:
        source.close()

    def worst(key):
        return max(r[key] for r in rows)

    result = {
        "tasks": rows,
        "agent_ready_s_max": worst("agent_ready_s"),
        "verifier_s_max": worst("verifier_s"),
        "verifier_speedup_min": min(r["verifier_speedup"] for r in rows),
        "overhead_s_max": worst("overhead_s"),
        "cli_call_overhead_s_max": worst("cli_call_overhead_s"),
        "targets": {
            "agent_ready_s": 3.0,
            "verifier_s": 1.0,
            "verifier_speedup": 5.0,
            "overhead_s": 0.05,
            "cli_call_overhead_s": 0.05,
        },
    }
    table = Table(
        "task",
        "ready s",
        "verify s",
        "kubectl s",
        "ratio",
        "requests",
        "step ms",
        "overhead ms",
        "monitor ms",
        "cli call ms",
        title="trials (targets: 3 s, 1 s and 5x, 50 ms, 50 ms)",
    )
    for r in rows:
        table.add_row(
            r["task"],
            f"{r['agent_ready_s']:.2f}",
            f"{r['verifier_s']:.3f}",
            f"{r['kubectl_s']:.2f}",
            f"{r['verifier_speedup']:.0f}x",
            str(r["verifier_requests"]),
            f"{r['step_s'] * 1000:.0f}",
            f"{r['overhead_s'] * 1000:.0f}",
            f"{r['monitor_s'] * 1000:.0f}",
            f"{r['cli_call_overhead_s'] * 1000:.0f}",
        )
    publish(table, result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
