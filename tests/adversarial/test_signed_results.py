"""Results bound to the evidence chain: after a real run (the attack run of conftest.py),
editing any verdict field of a trial.json or run.json — failed to resolved, 0 to 1, unsafe to
safe, the reasons, a result digest, the agent's faults — makes `kubeproof evidence verify`
fail with a message naming the field; so does taking away the run's signed summary or a
trial's result entry."""

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubeproof.cli.evidence import app
from tests.adversarial.conftest import AGENT_WRITABLE, SLUG, AttackRun

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(900)]

TRIAL = Path("trials") / SLUG / "script-huge_decision" / "1"


@pytest.fixture(scope="module")
def copy(hostile_run: AttackRun, tmp_path_factory) -> Path:
    """The run without the agents' directories (a 100 MB decision file, FIFOs)."""
    out = tmp_path_factory.mktemp("signed") / "run"
    shutil.copytree(hostile_run.out, out, ignore=shutil.ignore_patterns(*AGENT_WRITABLE))
    return out


def verify(run: Path) -> tuple[int, str]:
    """`kubeproof evidence verify RUN` (in-process: a child per call costs seconds on a loaded
    machine): its exit code and every problem message, one a line."""
    result = CliRunner().invoke(app, ["verify", str(run), "-o", "json"])
    data = json.loads(result.stdout)
    lines = [f"{c['directory']}  {c['entries']} entries" for c in data["chains"]]
    lines += [p["message"] for c in data["chains"] for p in c["problems"]]
    lines += [f"missing: {m}" for m in data["missing"]]
    return result.exit_code, "\n".join(lines)


def verify_edited(run: Path, path: Path, change: Callable[[dict], None]) -> tuple[int, str]:
    """Verify `run` with `change` applied to the JSON file `path`, then put it back."""
    before = path.read_text()
    data = json.loads(before)
    change(data)
    path.write_text(json.dumps(data, indent=2))
    try:
        return verify(run)
    finally:
        path.write_text(before)


def test_the_run_as_written_verifies(copy):
    code, out = verify(copy)
    assert code == 0, out
    assert f"{copy / 'evidence'}  2 entries" in out  # the run's signed summary, sealed


def _set(key, value):
    return lambda d: d.__setitem__(key, value)


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("verdict", _set("verdict", "resolved")),
        ("score", _set("score", 1)),
        ("safe", lambda d: d.__setitem__("safe", not d["safe"])),
        ("reason", _set("reason", "every check, contract and safety rule passed")),
        ("agent_faults", lambda d: d.pop("agent_faults")),
        ("decision", _set("decision", {"outcome": "submitted", "reason": ""})),
        ("expected", _set("expected", "failed")),
        ("results", lambda d: d["results"][0].__setitem__("reason", "edited")),
        ("safety", lambda d: d.__setitem__("safety", [])),
    ],
)
def test_editing_a_verdict_field_of_trial_json_fails_verify_naming_it(copy, field, change):
    code, out = verify_edited(copy, copy / TRIAL / "trial.json", change)
    assert code == 1
    assert f"trial.json: {field} " in out, out


def _trial_line(key, value):
    return lambda d: d["trials"][3].__setitem__(key, value)


@pytest.mark.parametrize(
    ("says", "change"),
    [
        (') verdict is "resolved",', _trial_line("verdict", "resolved")),
        (") score is 1,", _trial_line("score", 1)),
        (") safe is false,", _trial_line("safe", False)),
        (') reason is "all passed",', _trial_line("reason", "all passed")),
        ("summary differs", lambda d: d["summary"]["total"].__setitem__("score", 4)),
        ("lists 3 trials", lambda d: d["trials"].pop(0)),
    ],
)
def test_editing_run_json_fails_verify_naming_the_field(copy, says, change):
    code, out = verify_edited(copy, copy / "run.json", change)
    assert code == 1
    assert any(
        line.startswith(f"{copy / 'run.json'}: ") and says in line for line in out.splitlines()
    ), out


def test_a_run_without_its_signed_summary_or_a_trial_without_its_result_fails(copy, tmp_path):
    bare = tmp_path / "bare"
    shutil.copytree(copy, bare)
    shutil.rmtree(bare / "evidence")
    code, out = verify(bare)
    assert code == 1 and f"missing: {bare / 'evidence'}" in out
    # a trial's result entry cut out of its chain: the chain no longer verifies
    segment = bare / TRIAL / "evidence" / "segment-000001.jsonl"
    lines = segment.read_bytes().splitlines(keepends=True)
    segment.write_bytes(b"".join(x for x in lines if b'"type":"result"' not in x))
    code, out = verify(bare / TRIAL)
    assert code == 1 and "deleted" in out, out


def test_a_trial_json_swapped_for_another_trials_fails(copy, tmp_path):
    swapped = tmp_path / "swapped"
    shutil.copytree(copy, swapped)
    other = swapped / "trials" / SLUG / "script-risk_bombs" / "1" / "trial.json"
    shutil.copy(other, swapped / TRIAL / "trial.json")
    code, out = verify(swapped)
    assert code == 1 and "trial.json: agent " in out, out


def test_a_trial_json_with_a_duplicate_verdict_key_fails(copy):
    # `"verdict": "failed", "verdict": "resolved"`: one parser reads the first, another the
    # last; the strict reader refuses it
    path = copy / TRIAL / "trial.json"
    before = path.read_text()
    path.write_text(before.replace('"verdict": "failed"', '"verdict": "failed", "verdict": "x"', 1))
    try:
        code, out = verify(copy)
    finally:
        path.write_text(before)
    assert code == 1 and "duplicate key 'verdict'" in out, out
