"""Proving a task valid: its broken state holds, the oracle resolves it, a no-op does
not, every shortcut scores 0 with a contract or safety rule naming the cheat, every
alternative (another valid fix) scores 1, and a second round gives the same verdicts.

Validating the whole library takes over an hour on two cores, so what was proven is
recorded in `tasks/VALIDATED.json`: per task, the content hash it proved valid with, its
counts and times, the commit and how (`full`: `make validate`, which rewrites the record
only when every task is valid; `task`: any other validate run notes each library task that
proved valid, unless --no-record). `--changed` selects the tasks whose files differ from the
record, and `--sample N` adds tasks stratified by area, rotating with a seed (by default the
git commit), so CI covers every changed task and, over many commits, the whole library.
"""

import dataclasses
import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from kubeproof import __version__
from kubeproof.agents.spec import AgentSpec, parse
from kubeproof.errors import KubeproofError
from kubeproof.results.provenance import git_commit, task_digest
from kubeproof.runner.run import plan
from kubeproof.runner.trial import TrialPlan
from kubeproof.tasks import Task
from kubeproof.verify.verifier import UNJUDGEABLE

RECORD = Path("tasks/VALIDATED.json")
ROUND_TWO = ("noop", "oracle")


def _scripted(path: Path, role: str) -> AgentSpec:
    """A shortcut or alternative played as a `script:` agent, in its own directory."""
    return dataclasses.replace(parse(f"script:{path}"), label=f"{role}-{path.stem}")


def agents_for(task: Task) -> list["str | AgentSpec"]:
    return [
        "noop",
        "oracle",
        *(_scripted(s, "shortcut") for s in task.shortcuts),
        *(_scripted(a, "alternative") for a in task.alternatives),
    ]


def trial_count(task: Task) -> int:
    return len(agents_for(task)) + len(ROUND_TWO)


def plans(tasks: list[Task], out: Path) -> list[TrialPlan]:
    """Task by task: round one (noop, oracle, each shortcut and alternative), then round
    two (noop, oracle) — each on a fresh cluster. A task's trials end together, so it can be
    judged and recorded while the others run, and a killed run keeps the tasks it proved."""
    ordered: list[TrialPlan] = []
    for t in tasks:
        again = plan([t], list(ROUND_TWO), 1, out)
        for p in again:
            p.repeat = 2
            p.dir = p.dir.parent / "2"
        ordered += plan([t], agents_for(t), 1, out) + again
    return ordered


class TaskTally:
    """Collects finished trials; once every trial of a task is in, hands the task and its
    records to `complete` (judging and recording it), in the order tasks complete."""

    def __init__(self, tasks: list[Task], complete: Callable[[Task, list[dict]], None]):
        self.tasks = {t.id: t for t in tasks}
        self.left = {t.id: trial_count(t) for t in tasks}
        self.records: dict[str, list[dict]] = {t.id: [] for t in tasks}
        self.complete = complete

    def trial(self, record: dict) -> None:
        task = record["task"]
        if task not in self.left:
            return
        self.records[task].append(record)
        self.left[task] -= 1
        if self.left[task] == 0:
            self.complete(self.tasks[task], self.records[task])


def _proof(name: str, ok: bool, detail: str) -> dict:
    return {"proof": name, "ok": ok, "detail": detail}


def _failed(record: dict, kinds: tuple[str, ...]) -> list[dict]:
    return [
        r
        for r in record.get("results", []) + record.get("safety", [])
        if not r["passed"] and r["kind"] in kinds
    ]


def _caught_by(record: dict) -> list[str]:
    return [r["name"] for r in _failed(record, ("contract", "safety"))]


def _rejected_by(record: dict) -> str:
    """Why a valid fix did not score 1: every failing check, contract and safety result."""
    failed = _failed(record, ("check", "contract", "safety"))
    if not failed:
        return f"{record['verdict']}: {record.get('reason', '')}"
    named = "; ".join(f"{r['kind']} {r['name']}: {r.get('reason', '')}" for r in failed)
    return f"{record['verdict']}, rejected by {named}"


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
    for r in mine:  # a proof by a verifier that crashed proves nothing either way
        tripped = [x for x in r.get("results", []) if x["reason"].startswith(UNJUDGEABLE)]
        if tripped:
            proofs.append(
                _proof(f"verifier judged {r['agent']} #{r['repeat']}", False, tripped[0]["reason"])
            )
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
    for alternative in task.alternatives:
        r = by.get((f"script:{alternative}", 1))
        if r is None:
            continue
        ok = ran(r) and r["score"] == 1
        detail = r["verdict"] if ok else _rejected_by(r)
        proofs.append(_proof(f"alternative {alternative.name} scores 1", ok, detail))
    for agent in ROUND_TWO:
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


# -- the record of what was proven, and choosing what to validate -------------------------


def digest(task: Task) -> str:
    """A hash of everything in the task's directory (paths and contents), so any edit to
    the task, its manifests, oracle, verifier, shortcuts or alternatives changes it."""
    return task_digest(task.root)


def read_record(path: Path = RECORD) -> dict:
    """The record of what was proven ({} if there is none)."""
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise KubeproofError(f"{path}: not valid JSON ({exc})") from exc


def changed(tasks: list[Task], record: dict) -> list[Task]:
    """Tasks whose files differ from the record, or which it does not hold."""
    known = record.get("tasks", {})
    return [t for t in tasks if known.get(t.id, {}).get("hash") != digest(t)]


def _rank(seed: str, key: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}/{key}".encode()).digest()[:8], "big")


def sample(tasks: list[Task], n: int, seed: str) -> list[Task]:
    """Up to n tasks stratified by area: one from each area in turn (areas in an order
    drawn from the seed, each area's tasks rotated by it), then a second from each, and so
    on. The same seed gives the same sample; a new seed rotates through the library."""
    areas: dict[str, list[Task]] = {}
    for t in sorted(tasks, key=lambda t: t.id):
        areas.setdefault(t.spec.kubeproof.area, []).append(t)
    order = sorted(areas, key=lambda a: _rank(seed, a))
    for area in order:
        k = _rank(seed, f"rotate/{area}") % len(areas[area])
        areas[area] = areas[area][k:] + areas[area][:k]
    picked: list[Task] = []
    depth = 0
    while len(picked) < n and any(len(areas[a]) > depth for a in order):
        picked += [areas[a][depth] for a in order if len(areas[a]) > depth]
        depth += 1
    return picked[:n]


def fit(required: list[Task], extra: list[Task], max_trials: int | None) -> list[Task]:
    """The required tasks, then as many extra ones (in order) as fit in max_trials."""
    if max_trials is None:
        return required + extra
    used = sum(trial_count(t) for t in required)
    chosen = list(required)
    for t in extra:
        if used + trial_count(t) <= max_trials:
            chosen.append(t)
            used += trial_count(t)
    return chosen


def _entries(
    tasks: list[Task], records: list[dict], how: str, proven: dict[str, str]
) -> dict[str, dict]:
    """Record entries for the tasks whose files are still those proven (`proven`: each
    task's digest when its run began); a task edited during the run is left out."""
    commit, dirty = git_commit()
    now = datetime.now(UTC).isoformat(timespec="seconds")
    seconds: dict[str, float] = {}
    for r in records:
        seconds[r["task"]] = seconds.get(r["task"], 0.0) + r.get("timings", {}).get("total", 0)
    return {
        t.id: {
            "hash": proven[t.id],
            "validated_at": now,
            "commit": commit,
            "code_differs_from_commit": dirty,
            "how": how,
            "shortcuts": len(t.shortcuts),
            "alternatives": len(t.alternatives),
            "trials": trial_count(t),
            "trial_seconds": round(seconds.get(t.id, 0.0), 1),
        }
        for t in sorted(tasks, key=lambda t: t.id)
        if digest(t) == proven.get(t.id)
    }


def _totals(entries: dict[str, dict]) -> dict:
    return {
        "tasks": len(entries),
        "trials": sum(e["trials"] for e in entries.values()),
        "shortcuts": sum(e["shortcuts"] for e in entries.values()),
        "alternatives": sum(e["alternatives"] for e in entries.values()),
        "trial_seconds": round(sum(e["trial_seconds"] for e in entries.values()), 1),
    }


def note_valid(
    path: Path, tasks: list[Task], verdicts: list[dict], records: list[dict], proven: dict[str, str]
) -> list[str]:
    """Record each library task that just proved valid (its hash, commit and counts), so
    the record always says which content of each task was last proven; tasks outside the
    library (a path elsewhere) are not recorded. Safe against validations finishing at
    the same time. Returns the ids recorded."""
    import fcntl

    library = path.resolve().parent
    valid = {v["task"] for v in verdicts if v["valid"]}
    mine = [t for t in tasks if t.id in valid and t.root.resolve().is_relative_to(library)]
    if not mine:
        return []
    entries = _entries(mine, records, "task", proven)
    if not entries:
        return []
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = read_record(path)
        data.setdefault("tasks", {}).update(entries)
        data["updated_at"] = max(e["validated_at"] for e in entries.values())
        data["totals"] = _totals(data["tasks"])
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        tmp.replace(path)
    return sorted(entries)


def record_of(
    tasks: list[Task],
    verdicts: list[dict],
    records: list[dict],
    jobs: int,
    wall: float,
    proven: dict[str, str],
    timing: str = "real",
) -> dict:
    """What a full validation in which every task proved valid writes to the record."""
    commit, dirty = git_commit()
    now = datetime.now(UTC).isoformat(timespec="seconds")
    if not all(v["valid"] for v in verdicts):
        raise KubeproofError("only a library in which every task proved valid is recorded")
    entries = _entries(tasks, records, "full", proven)
    return {
        "validated_at": now,
        "commit": commit,
        "code_differs_from_commit": dirty,
        "kubeproof": __version__,
        "jobs": jobs,
        "timing": timing,  # the simulated kubelet's profile the trials ran under
        "wall_seconds": round(wall, 1),
        "tasks": entries,
        "totals": _totals(entries),
    }
