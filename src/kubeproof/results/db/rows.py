"""Typed results as table rows: what each column of schema.py takes from them."""

from kubeproof.results.run import RunResult
from kubeproof.results.trial import TrialResult


def run_row(name: str, directory: str, run: RunResult) -> dict:
    record = run.record()
    record.pop("trials", None)  # the trials have rows of their own
    versions = run.versions
    return {
        "name": name,
        "dir": directory,
        "kind": "validate" if run.validate_ is not None else "run",
        "started_at": run.started_at,
        "ended_at": run.ended_at or None,
        "repeats": run.repeats,
        "timing": run.timing or (versions.timing if versions else None),
        "cluster": run.cluster,
        "kubeproof_version": versions.kubeproof if versions else None,
        "git_commit": versions.git_commit if versions else None,
        "kubernetes": versions.kubernetes if versions else None,
        "fingerprint": run.evidence.fingerprint if run.evidence else None,
        "record": record,
    }


def label(rel: str, trial: TrialResult) -> str:
    """The agent's label: its directory name (`trials/<task>/<label>/<repeat>`), which tells
    apart two agents of one spec; else the recorded label, else the spec."""
    parts = rel.split("/")
    if len(parts) == 4 and parts[0] == "trials":
        return parts[2]
    agent = trial.versions.agent if trial.versions else None
    return (agent.label if agent else "") or trial.agent


def trial_row(run_id: int, rel: str, trial: TrialResult) -> dict:
    usage = trial.usage
    versions = trial.versions
    return {
        "run_id": run_id,
        "dir": rel,
        "task": trial.task,
        "agent": trial.agent,
        "agent_label": label(rel, trial),
        "repeat": trial.repeat,
        "track": trial.track,
        "area": trial.area,
        "difficulty": trial.difficulty,
        "expected": trial.expected,
        "verdict": trial.verdict,
        "score": trial.score,
        "safe": trial.safe,
        "reason": trial.reason,
        "decision": trial.decision.outcome if trial.decision else None,
        "steps": trial.steps,
        "seconds": trial.timings.total,
        "agent_seconds": trial.timings.agent,
        "started_at": trial.started_at or None,
        "ended_at": trial.ended_at,
        "attempts": trial.attempts,
        "calls": usage.calls if usage else None,
        "tokens_in": usage.tokens_in if usage else None,
        "tokens_out": usage.tokens_out if usage else None,
        "cost_usd": usage.cost_usd if usage else None,
        "task_digest": versions.task_digest if versions else None,
        "record": trial.record(),
    }


def check_rows(trial_id: int, trial: TrialResult) -> list[dict]:
    rows = []
    for phase in ("broken_state", "results", "safety"):
        for position, check in enumerate(getattr(trial, phase) or []):
            rows.append(
                {
                    "trial_id": trial_id,
                    "phase": phase,
                    "position": position,
                    "kind": check.kind,
                    "name": check.name,
                    "passed": check.passed,
                    "reason": check.reason,
                }
            )
    return rows


def tag_rows(trial_id: int, trial: TrialResult) -> list[dict]:
    return [{"trial_id": trial_id, "tag": tag} for tag in sorted(set(trial.tags or []))]
