"""What a trial page shows beyond trial.json: the trajectory step by step, the model's
turns, the verifier log, error.log and the evidence chain's status.

A trial directory holds what an agent produced (commands, outputs, model text): every file
is read through `kubeproof.hostile` (no symlinks, regular files only, size limits, strict
UTF-8 and JSON), and every text is capped to `TEXT_CAP` characters with the cut said, so
one runaway output cannot make a page of hundreds of megabytes.
"""

import json
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubeproof import hostile
from kubeproof.evidence.chain import ChainError, read_entries
from kubeproof.evidence.results import verify_results
from kubeproof.evidence.verify import verify_chain
from kubeproof.results import TrialPaths

TEXT_CAP = 20_000  # characters of one output, model reply or command shown on a page
LOG_KEEP = 256 * 1024  # bytes of a log kept (its head and tail)
JSONL_LIMIT = 64 * 1024 * 1024  # bytes of trajectory.jsonl or turns.jsonl read


# The views below are slotted dataclasses, not pydantic models: a report of 10,000 trials
# builds a dozen per page, from values this module has already checked, and a dataclass is
# built several times faster (docs/results.md, "Size").


@dataclass(slots=True)
class Text:
    """A text shown whole or cut."""

    text: str = ""  # what is shown
    cut: int = 0  # characters left out (0: shown whole)


def capped(value: Any, cap: int = TEXT_CAP) -> Text:
    text = value if isinstance(value, str) else json.dumps(value, indent=1, default=str)
    if len(text) <= cap:
        return Text(text, 0)
    return Text(text[:cap], len(text) - cap)


@dataclass(slots=True)
class StepView:
    """One command of the trajectory and what followed it."""

    index: int  # the step's number, from 1
    command: Text  # the command as the agent wrote it
    stdout: Text  # what it printed
    stderr: Text  # what it printed on stderr
    origin: str = "agent"  # `agent`, `kubectl` (a CLI agent's call) or `cli`
    exit_code: Any = None
    seconds: Any = None  # its wall time
    timed_out: bool = False  # stopped at its time limit
    harness_cut: bool = False  # the harness truncated its output itself
    safety: list[str] = field(default_factory=list)  # what the monitor saw broken after it
    collateral: int | None = None  # outages counted during the step
    risk: dict[str, Any] | None = None  # the evidence chain's risk of it


@dataclass(slots=True)
class TurnView:
    """One model turn (turns.jsonl)."""

    text: Text  # the model's text
    tool_calls: Text  # its tool calls, as JSON
    actions: Text  # what the harness made of them, as JSON
    turn: Any = None
    tokens_in: Any = None
    tokens_out: Any = None
    cost_usd: Any = None
    seconds: Any = None  # the call's wall time
    finish_reason: Any = None  # why the model stopped
    wasted: Any = None  # why the turn produced no usable command


@dataclass(slots=True)
class ChainStatus:
    """The evidence chain, verified when the report was built."""

    present: bool = False  # the trial has a chain
    ok: bool = False  # intact, sealed and matching trial.json
    entries: int = 0  # entries read
    fingerprint: str | None = None  # the key that signed it
    problems: list[str] = field(default_factory=list)  # each problem, where


@dataclass(slots=True)
class Detail:
    steps: list[StepView] = field(default_factory=list)  # the trajectory
    turns: list[TurnView] = field(default_factory=list)  # model turns
    verifier_log: Text | None = None
    error_log: Text | None = None  # when the trial wrote one
    chain: ChainStatus = field(default_factory=ChainStatus)
    problems: list[str] = field(default_factory=list)  # files that did not read, and why


def _lines(root: Path | int, name: str, problems: list[str]) -> list[dict]:
    try:
        data = hostile.read_bytes(root, name, JSONL_LIMIT)
    except (hostile.HostileInput, OSError) as exc:
        problems.append(f"{name}: {exc}")
        return []
    found = []
    for number, line in enumerate((data or b"").splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = hostile.loads_json(line, f"{name}:{number}")
        except hostile.HostileInput as exc:
            problems.append(str(exc))
            continue
        if isinstance(value, dict):
            found.append(value)
        else:
            problems.append(f"{name}:{number}: not a JSON object")
    return found


def _log(root: Path | int, name: str, problems: list[str]) -> Text | None:
    try:
        ends = hostile.read_ends(root, name, LOG_KEEP)
    except (hostile.HostileInput, OSError) as exc:
        problems.append(f"{name}: {exc}")
        return None
    if ends is None:
        return None
    head, tail, size = ends
    text = (head + (b"\n...\n" + tail if tail else b"")).decode("utf-8", "replace")
    return Text(text=text, cut=max(0, size - len(head) - len(tail)))


def _risks(chain: Path) -> dict[int, dict]:
    """The risk the evidence chain recorded for each step (command entries)."""
    try:
        entries = read_entries(chain)
    except (ChainError, OSError):
        return {}
    risks: dict[int, dict] = {}
    for entry in entries:
        payload = entry.get("payload") or {}
        step, risk = payload.get("step"), payload.get("risk")
        if entry.get("type") == "command" and isinstance(step, int) and isinstance(risk, dict):
            risks[step] = risk
    return risks


def chain_status(chain: Path, fingerprint: str | None) -> ChainStatus:
    """verify_chain (integrity, order, signatures) and verify_results (trial.json is what the
    chain signed), as `kubeproof evidence verify` runs them."""
    report = verify_chain(chain, expect_fingerprint=fingerprint or None)
    problems = [f"{p.kind}: {p.message} {p.where}".strip() for p in report.problems]
    problems += [f"result: {m}" for m in verify_results(chain)]
    return ChainStatus(
        present=True,
        ok=not problems,
        entries=report.entries,
        fingerprint=report.fingerprint,
        problems=problems,
    )


def _step(raw: dict, collateral: list[int], risks: dict[int, dict]) -> StepView:
    found = raw.get("index")
    index: int = found if isinstance(found, int) and not isinstance(found, bool) else 0
    seen = raw.get("safety")
    safety: list = seen if isinstance(seen, list) else []
    return StepView(
        index=index,
        origin=str(raw.get("origin", "agent")),
        command=capped(raw.get("command", "")),
        exit_code=raw.get("exit_code"),
        seconds=raw.get("seconds"),
        timed_out=raw.get("timed_out") is True,
        harness_cut=raw.get("truncated") is True,
        stdout=capped(raw.get("stdout", "")),
        stderr=capped(raw.get("stderr", "")),
        safety=[str(s)[:TEXT_CAP] for s in safety],
        collateral=collateral[index - 1] if 0 < index <= len(collateral) else None,
        risk=risks.get(index),
    )


def _turn(raw: dict) -> TurnView:
    return TurnView(
        turn=raw.get("turn"),
        tokens_in=raw.get("tokens_in"),
        tokens_out=raw.get("tokens_out"),
        cost_usd=raw.get("cost_usd"),
        seconds=raw.get("seconds"),
        finish_reason=raw.get("finish_reason"),
        text=capped(raw.get("text") or ""),
        tool_calls=capped(raw.get("tool_calls") or []),
        actions=capped(raw.get("actions") or []),
        wasted=raw.get("wasted"),
    )


# the files of a trial directory by name (results/paths.py), resolved once, not at every page
_NAMES = TrialPaths(Path())
EVIDENCE, TRAJECTORY, TURNS = _NAMES.evidence.name, _NAMES.trajectory.name, _NAMES.turns.name
VERIFIER_LOG, ERROR_LOG = _NAMES.verifier_log.name, _NAMES.error_log.name
_NAMES_READ = (EVIDENCE, TRAJECTORY, TURNS, VERIFIER_LOG, ERROR_LOG)


def load_detail(
    trial_dir: Path,
    collateral: list[int],
    fingerprint: str | None,
    within: tuple[int, str] | None = None,
) -> Detail:
    """What the page of the trial in `trial_dir` shows beyond trial.json; `within`: (the
    descriptor of its run's directory, the trial's directory relative to it), to open it
    from there rather than walking its whole path."""
    problems: list[str] = []
    chain = ChainStatus()
    risks: dict[int, dict] = {}
    with ExitStack() as opened:
        # the trial's directory opened once and listed once: each of its files is then one
        # openat (O_NOFOLLOW), not a walk of the whole path per file, and a file it does
        # not hold (most trials have no turns, error.log or chain) is not looked up at all
        try:
            found = hostile.directory(*within) if within else hostile.directory(Path(trial_dir))
            root: Path | int = opened.enter_context(found)
            present = set(hostile.list_dir(root))
        except (OSError, hostile.HostileInput):  # gone, not a directory, or too many
            root, present = Path(trial_dir), set(_NAMES_READ)  # each read below says why
            if not hostile.lexists(root, EVIDENCE):
                present.discard(EVIDENCE)
        if EVIDENCE in present:
            evidence = TrialPaths(Path(trial_dir)).evidence
            if evidence.is_dir() and not evidence.is_symlink():
                chain = chain_status(evidence, fingerprint)
                risks = _risks(evidence)
            else:
                chain = ChainStatus(present=True, problems=["evidence is not a directory"])
        steps = _lines(root, TRAJECTORY, problems) if TRAJECTORY in present else []
        turns = _lines(root, TURNS, problems) if TURNS in present else []
        verifier_log = _log(root, VERIFIER_LOG, problems) if VERIFIER_LOG in present else None
        error_log = _log(root, ERROR_LOG, problems) if ERROR_LOG in present else None
    return Detail(
        steps=[_step(s, collateral, risks) for s in steps],
        turns=[_turn(t) for t in turns],
        verifier_log=verifier_log,
        error_log=error_log,
        chain=chain,
        problems=problems,
    )
