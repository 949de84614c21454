"""Results bound to the evidence chain: what trial.json and run.json say is what was signed.

At the end of a trial the harness appends a `result` entry to the trial's chain (before the
final checkpoint, so the signature covers it) holding the trial's verdict fields as they are
written to trial.json — task, agent, repeat, verdict, score, safe, reason, expected, decision,
steps, the agent's faults — and a SHA-256 (over the JCS form) of each longer result part:
the check and contract results, the safety results, audit violations, collateral per step,
outages, the broken-state results and usage. At the end of a run the harness writes a chain
of its own into the run directory (`evidence/`) with one `result` entry of scope `run`: every
trial's line of run.json and the summary.

`check_trial` and `check_run` compare a trial.json or run.json with its signed entry and name
every field that differs; `kubeproof evidence verify` reports them as `result` problems. A
trial.json or run.json whose chain signs no result is a problem too (an unsigned result).
"""

import hashlib
import json
from pathlib import Path
from typing import Any

from kubeproof import hostile
from kubeproof.evidence.chain import ChainError, read_entries
from kubeproof.evidence.entry import canonical

TRIAL_FIELDS = (
    "task",
    "agent",
    "repeat",
    "verdict",
    "score",
    "safe",
    "reason",
    "expected",
    "decision",
    "steps",
    "agent_faults",
)
TRIAL_DIGESTS = (
    "results",
    "safety",
    "audit_violations",
    "collateral_per_step",
    "outages",
    "broken_state",
    "usage",
)
RUN_TRIAL_FIELDS = ("task", "agent", "repeat", "verdict", "score", "safe", "reason", "steps")
RESULT = "result"


def _plain(value: Any) -> Any:
    """The value as it reads back from a JSON file (tuples are lists, keys strings)."""
    return json.loads(json.dumps(value))


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(_plain(value))).hexdigest()


def _same(a: Any, b: Any) -> bool:
    return canonical(_plain(a)) == canonical(_plain(b))


def _show(value: Any, width: int = 80) -> str:
    text = json.dumps(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _differences(
    mine: dict, signed: dict, keys: tuple[str, ...], name: str, by: str, at: str = ""
) -> list[str]:
    return [
        f"{name}: {key} is {_show(mine.get(key))}, but {by} signed {_show(signed.get(key))}"
        + (f" {at}" if at else "")
        for key in keys
        if not _same(mine.get(key), signed.get(key))
    ]


def trial_payload(record: dict) -> dict:
    """The `result` entry of a trial: its verdict fields and digests of its result parts."""
    return {
        "scope": "trial",
        "fields": _plain({k: record.get(k) for k in TRIAL_FIELDS}),
        "digests": {k: digest(record.get(k)) for k in TRIAL_DIGESTS},
    }


def run_trial_line(line: dict) -> dict:
    return _plain({k: line.get(k) for k in (*RUN_TRIAL_FIELDS, "dir", "evidence", "usage")})


def run_payload(run: dict) -> dict:
    """The `result` entry of a run: every trial's line of run.json and the summary."""
    return {
        "scope": "run",
        "trials": [run_trial_line(t) for t in run.get("trials", [])],
        "summary": _plain(run.get("summary")),
    }


def signed_result(entries: list[dict], scope: str | None = None) -> dict | None:
    """The last `result` entry of a chain (of `scope`, if given)."""
    for entry in reversed(entries):
        payload = entry.get("payload") or {}
        if entry.get("type") == RESULT and (scope is None or payload.get("scope") == scope):
            return entry
    return None


def check_trial(record: dict, entry: dict, name: str = "trial.json") -> list[str]:
    """Where `record` (a trial.json) differs from the signed `entry`, one message each."""
    payload = entry.get("payload") or {}
    signed = payload.get("fields") or {}
    at = f"(seq {entry.get('seq')})"
    problems = _differences(record, signed, TRIAL_FIELDS, name, "the evidence chain", at)
    for key, value in (payload.get("digests") or {}).items():
        if digest(record.get(key)) != value:
            problems.append(
                f"{name}: {key} differs from what the evidence chain signed "
                f"(its SHA-256 is not the signed one) {at}"
            )
    return problems


def check_run(run: dict, entry: dict, name: str = "run.json") -> list[str]:
    """Where `run` (a run.json) differs from the signed `entry`, one message each."""
    payload = entry.get("payload") or {}
    at = f"(seq {entry.get('seq')})"
    problems = []
    lines = run.get("trials") or []
    signed_lines = payload.get("trials") or []
    if len(lines) != len(signed_lines):
        problems.append(
            f"{name}: lists {len(lines)} trials, but the evidence chain signed "
            f"{len(signed_lines)} {at}"
        )
    for i, (line, signed) in enumerate(zip(lines, signed_lines, strict=False)):
        mine = run_trial_line(line)
        label = (
            f"trials[{i}] ({signed.get('task')} · {signed.get('agent')} #{signed.get('repeat')})"
        )
        for key, value in signed.items():
            if not _same(mine.get(key), value):
                problems.append(
                    f"{name}: {label} {key} is {_show(mine.get(key))}, but the evidence chain "
                    f"signed {_show(value)} {at}"
                )
    summary = payload.get("summary")
    if not _same(run.get("summary"), summary):
        problems.append(f"{name}: summary differs from what the evidence chain signed {at}")
    return problems


def check_trial_line(record: dict, line: dict, name: str) -> list[str]:
    """A trial.json against its line in the signed run summary (for trials without a chain
    of their own: those that ended in `error` before the agent's turn)."""
    return _differences(record, line, RUN_TRIAL_FIELDS, name, "the run's evidence chain")


def _load(path: Path) -> tuple[Any, str | None]:
    """A result file, or why it cannot be read. Strict JSON: a file someone may have edited
    must not say one thing to this parser and another to the next (duplicate keys)."""
    try:
        return hostile.loads_json(path.read_bytes(), path.name), None
    except (OSError, hostile.HostileInput) as exc:
        return None, f"{path} cannot be read: {exc}"


def verify_results(chain: Path) -> list[str]:
    """The result files beside the chain in `chain` against what it signed: a trial's
    chain and its trial.json; a run's chain, its run.json and every trial.json it lists."""
    try:
        entries = read_entries(chain)
    except ChainError:
        return []  # the chain's own problems say why
    entry = signed_result(entries)
    home = Path(chain).parent
    if entry is None:
        if (home / "trial.json").exists():
            return [
                f"{home / 'trial.json'}: its verdict is not signed (the evidence chain holds "
                "no result entry)"
            ]
        return []
    if (entry.get("payload") or {}).get("scope") == "run":
        run, why = _load(home / "run.json")
        if why:
            return [why]
        problems = check_run(run, entry, str(home / "run.json"))
        for line in (entry.get("payload") or {}).get("trials") or []:
            path = home / str(line.get("dir")) / "trial.json"
            record, why = _load(path)
            problems += [why] if why else check_trial_line(record, line, str(path))
        return problems
    record, why = _load(home / "trial.json")
    return [why] if why else check_trial(record, entry, str(home / "trial.json"))
