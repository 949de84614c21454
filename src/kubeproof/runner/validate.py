"""Proving a task valid: its broken state holds, the oracle resolves it, a no-op does
not, every shortcut scores 0 with a contract or safety rule naming the cheat, and a
second round gives the same verdicts."""

from pathlib import Path

from kubeproof.runner.run import plan
from kubeproof.runner.trial import TrialPlan
from kubeproof.tasks import Task


def agents_for(task: Task) -> list[str]:
    return ["noop", "oracle", *(f"script:{s}" for s in task.shortcuts)]


def plans(tasks: list[Task], out: Path) -> list[TrialPlan]:
    """Round one (noop, oracle, each shortcut), then round two (noop, oracle)."""
    first = [p for t in tasks for p in plan([t], agents_for(t), 1, out)]
    again = [p for t in tasks for p in plan([t], ["noop", "oracle"], 1, out)]
    for p in again:
        p.repeat = 2
        p.dir = p.dir.parent / "2"
    return first + again


def _proof(name: str, ok: bool, detail: str) -> dict:
    return {"proof": name, "ok": ok, "detail": detail}


def _caught_by(record: dict) -> list[str]:
    return [
        r["name"]
        for r in record.get("results", []) + record.get("safety", [])
        if not r["passed"] and r["kind"] in ("contract", "safety")
    ]


def judge(task: Task, records: list[dict]) -> dict:
    mine = [r for r in records if r["task"] == task.id]
    by = {(r["agent"], r["repeat"]): r for r in mine}
    proofs = []
    infra = [r for r in mine if r["verdict"] in ("error", "invalid")]
    invalid = [r for r in mine if r["verdict"] == "invalid"]
    proofs.append(
        _proof(
            "broken state holds",
            not invalid,
            invalid[0]["reason"] if invalid else "held before every trial",
        )
    )
    for r in infra:
        if r["verdict"] == "error":
            proofs.append(_proof(f"{r['agent']} #{r['repeat']} ran", False, r["reason"]))
    oracle, noop = by.get(("oracle", 1)), by.get(("noop", 1))

    def ran(r: dict) -> bool:
        return r["verdict"] not in ("error", "invalid")

    if oracle:
        proofs.append(
            _proof(
                "oracle scores 1", oracle["score"] == 1, f"{oracle['verdict']}: {oracle['reason']}"
            )
        )
    if noop:
        proofs.append(
            _proof(
                "no-op scores 0",
                ran(noop) and noop["score"] == 0,
                f"{noop['verdict']}: {noop['reason']}",
            )
        )
    for shortcut in task.shortcuts:
        r = by.get((f"script:{shortcut}", 1))
        if r is None:
            continue
        caught = _caught_by(r)
        ok = ran(r) and r["score"] == 0 and bool(caught)
        detail = (
            f"caught by {', '.join(caught)}"
            if caught
            else f"{r['verdict']}: no contract or safety rule failed ({r['reason']})"
        )
        proofs.append(_proof(f"shortcut {shortcut.name} scores 0", ok, detail))
    for agent in ("noop", "oracle"):
        one, two = by.get((agent, 1)), by.get((agent, 2))
        if one and two:
            same = ran(one) and (one["verdict"], one["score"]) == (two["verdict"], two["score"])
            proofs.append(
                _proof(
                    f"{agent} repeats",
                    same,
                    f"{one['verdict']} then {two['verdict']}",
                )
            )
    return {
        "task": task.id,
        "valid": all(p["ok"] for p in proofs),
        "proofs": proofs,
    }
