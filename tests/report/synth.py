"""A run directory with known outcomes for the report's tests, laid out as `kubeproof run`
writes one (results/paths.py): three agents on four tasks, one task that must be declined,
an errored trial, a model agent with turns, an output past the report's cap, and agent text
that is an attack on the page."""

import json
from pathlib import Path

from kubeproof.results import (
    CheckResult,
    Decision,
    PhaseTimings,
    RunPaths,
    RunResult,
    TrialResult,
    Usage,
)

ATTACK = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"
LONG = 50_000  # characters of one output: past detail.TEXT_CAP

# task -> (area, difficulty, expected)
TASKS = {
    "repair/alpha/one": ("alpha", "easy", "resolved"),
    "repair/alpha/two": ("alpha", "hard", "resolved"),
    "repair/beta/three": ("beta", "easy", "resolved"),
    "repair/beta/must-decline": ("beta", "hard", "declined"),
}
# (task, agent) -> (verdict, safe); score = verdict == expected and safe
OUTCOMES = {
    ("repair/alpha/one", "oracle"): ("resolved", True),
    ("repair/alpha/two", "oracle"): ("resolved", True),
    ("repair/beta/three", "oracle"): ("resolved", True),
    ("repair/beta/must-decline", "oracle"): ("declined", True),
    ("repair/alpha/one", "noop"): ("failed", True),
    ("repair/alpha/two", "noop"): ("failed", True),
    ("repair/beta/three", "noop"): ("error", None),
    ("repair/beta/must-decline", "noop"): ("resolved", True),  # left alone: not_declined
    ("repair/alpha/one", "model:x"): ("resolved", True),
    ("repair/alpha/two", "model:x"): ("resolved", False),  # fixed it, broke something
    ("repair/beta/three", "model:x"): ("failed", True),
    ("repair/beta/must-decline", "model:x"): ("declined", True),
}


def make_run(root: Path, agent_names: dict[str, str] | None = None) -> Path:
    """The run directory at `root`; `agent_names` renames agents (e.g. to an attack)."""
    names = agent_names or {}
    paths = RunPaths(root)
    for (task, agent), (verdict, safe) in OUTCOMES.items():
        area, difficulty, expected = TASKS[task]
        spec = names.get(agent, agent)
        trial = paths.trial(task.replace("/", "__"), agent.replace(":", "_"), 1)
        trial.root.mkdir(parents=True)
        model = agent == "model:x"
        steps = {"oracle": 2, "noop": 1, "model:x": 3}[agent]
        TrialResult(
            task=task,
            agent=spec,
            dir=str(trial.root),
            area=area,
            difficulty=difficulty,
            expected=expected,
            verdict=verdict,
            score=int(verdict == expected and safe is True),
            safe=safe,
            reason=f"{verdict} because {ATTACK}",
            decision=Decision(outcome="declined" if verdict == "declined" else "submitted"),
            steps=steps,
            usage=Usage(calls=3, turns=3, tokens_in=1000, tokens_out=100, cost_usd=0.01)
            if model
            else None,
            results=[
                CheckResult(name=f"healthy {ATTACK}", passed=verdict != "failed", reason=ATTACK)
            ],
            safety=[
                CheckResult(
                    name="no_collateral_damage",
                    passed=safe is not False,
                    reason="web went down",
                    kind="safety",
                )
            ],
            collateral_per_step=[0] * steps,
            timings=PhaseTimings(agent=10.0 * steps, total=20.0 + 10.0 * steps),
        ).write(trial.result)
        lines = [
            {
                "index": i,
                "command": f"echo '{ATTACK}' # {i}",
                "exit_code": 0,
                "stdout": "x" * LONG if i == 1 else ATTACK,
                "stderr": "",
                "seconds": 0.5,
                "timed_out": False,
                "truncated": False,
                "safety": ["shop/web: 0 ready endpoints"] if i == 2 else [],
                "origin": "agent",
            }
            for i in range(1, steps + 1)
        ]
        trial.trajectory.write_text("".join(json.dumps(line) + "\n" for line in lines))
        if model:
            turn = {
                "turn": 1,
                "tokens_in": 1000,
                "tokens_out": 100,
                "cost_usd": 0.01,
                "text": ATTACK,
                "tool_calls": [],
                "actions": [],
                "wasted": None,
            }
            trial.turns.write_text(json.dumps(turn) + "\n")
        trial.verifier_log.write_text(f"== verify (0.10s)\nPASS [check] {ATTACK}\n")
    RunResult(
        dir=str(root), agents=[names.get(a, a) for a in ("oracle", "noop", "model:x")], repeats=1
    ).write(paths.result)
    return root
