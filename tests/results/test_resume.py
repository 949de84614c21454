"""`kubeproof runs resume`: a run killed or with errored trials is finished from its own
plan, re-running only the trials that errored or never ran.

The selection is tested on a run directory synthesized as a killed run leaves it (a trial
never written, one cut short mid-write, one that errored); the whole path — SIGKILL of a
real `kubeproof run` mid-way, then `runs resume` — on a real embedded cluster (its
processes die with the harness: cluster/process.py)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubeproof.cli import app
from kubeproof.errors import NotFoundError
from kubeproof.results import RunResult, TrialResult
from kubeproof.results.db import open_store
from kubeproof.runner.resume import prepare
from tests.results import synth

T1, T2, T3 = synth.TASKS


def killed_run(tmp_path: Path) -> Path:
    outcomes = {(t, a, 1): int(a == "oracle") for t in (T1, T2, T3) for a in ("oracle", "noop")}
    out = synth.run(tmp_path / "runs", "killed", outcomes, finished=False)
    trials = out / "trials"
    (trials / synth.slug(T1) / "noop" / "1" / "trial.json").unlink()  # never ran
    cut = trials / synth.slug(T2) / "oracle" / "1" / "trial.json"
    cut.write_text(cut.read_text()[:300])  # killed while writing
    errored = trials / synth.slug(T3) / "noop" / "1" / "trial.json"
    data = json.loads(errored.read_text()) | {"verdict": "error", "reason": "cluster died"}
    errored.write_text(json.dumps(data))
    return out


def test_only_trials_that_errored_or_never_ran_run_again(tmp_path):
    out = killed_run(tmp_path)
    found = prepare(out)
    assert sorted((p.task.id, p.resolved.label) for p in (found.plans[i] for i in found.todo)) == [
        (T1, "noop"),
        (T2, "oracle"),
        (T3, "noop"),
    ]
    assert found.todo[next(i for i in found.todo if found.plans[i].task.id == T3)] == (
        "errored: cluster died"
    )
    assert len(found.kept) == 3
    # the results merge back in the order an uninterrupted run writes them
    new = [
        TrialResult(task=found.plans[i].task.id, dir=str(found.plans[i].dir), verdict="failed")
        for i in reversed(list(found.todo))
    ]
    merged = found.merge(new)
    assert [Path(r.dir) for r in merged] == [p.dir for p in found.plans]
    assert "summary" not in found.meta and found.meta["agents"] == ["noop", "oracle"]


def test_dry_run_says_what_would_run(tmp_path):
    out = killed_run(tmp_path)
    result = CliRunner().invoke(app, ["runs", "resume", str(out), "--dry-run", "-o", "json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["kept"] == 3 and len(shown["todo"]) == 3
    assert {t["why"] for t in shown["todo"]} == {
        "never ran (no readable trial.json)",
        "errored: cluster died",
    }


def test_a_validation_run_is_refused(tmp_path):
    out = tmp_path / "v"
    out.mkdir()
    RunResult.model_validate({"validate": [T1]}).write(out / "run.json")
    result = CliRunner().invoke(app, ["runs", "resume", str(out), "--dry-run"])
    assert result.exit_code == 1 and "task validation" in str(result.exception)


TASK = "repair/storage/thumbnailer-stuck-pending"  # one of the quickest tasks (~6 s a trial)


@pytest.mark.cluster
def test_sigkilled_run_resumes_to_the_uninterrupted_verdicts(binaries_built, tmp_path):
    out = tmp_path / "runs" / "live"
    exe = Path(sys.executable).with_name("kubeproof")
    # noop's trial runs first (plan order: task, then agents as given), then oracle's
    run = subprocess.Popen(
        [str(exe), "run", "-t", TASK, "-a", "noop", "-a", "oracle", "--out", str(out), "-j", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    first = out / "trials" / synth.slug(TASK) / "noop" / "1" / "trial.json"
    db = str(tmp_path / "runs" / "kubeproof.db")
    deadline = time.monotonic() + 300

    def landed() -> int:  # trials in the database: the first lands when it finishes
        try:
            return len(open_store(db, out.parent).trials("live"))
        except NotFoundError:  # the run's row is not there yet
            return 0

    while run.poll() is None and time.monotonic() < deadline and not landed():
        time.sleep(0.5)
    os.killpg(run.pid, signal.SIGKILL)  # the harness and every cluster process it started
    run.wait()
    assert first.exists() and not (out / "run.json").exists()
    kept = TrialResult.read(first)
    listed = CliRunner().invoke(app, ["runs", "show", "live", "--db", db, "-o", "json"])
    assert [t["agent"] for t in json.loads(listed.output)["trials"]][:1] == ["noop"]

    resumed = subprocess.run(
        [str(exe), "runs", "resume", str(out), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr
    final = RunResult.read(out / "run.json")
    assert [(t.agent, t.verdict) for t in final.trials] == [
        ("noop", "failed"),
        ("oracle", "resolved"),
    ]
    assert TrialResult.read(first).started_at == kept.started_at  # kept, not run again
    shown = CliRunner().invoke(app, ["runs", "show", str(out), "--db", db, "-o", "json"])
    assert [(t["agent"], t["verdict"]) for t in json.loads(shown.output)["trials"]] == [
        ("noop", "failed"),
        ("oracle", "resolved"),
    ]


def test_killed_after_its_last_trial_resume_writes_what_the_run_would_have(tmp_path):
    # every trial finished, the run was killed before run.json: nothing runs again, run.json
    # and the database's end time are written as the uninterrupted run writes them
    outcomes = {(t, a, 1): int(a == "oracle") for t in (T1, T2, T3) for a in ("oracle", "noop")}
    out = synth.run(tmp_path / "runs", "late", outcomes, finished=False)
    result = CliRunner().invoke(app, ["runs", "resume", str(out), "-o", "json"])
    assert result.exit_code == 0, result.output
    final = RunResult.read(out / "run.json")
    assert [(t.task, t.agent, t.verdict) for t in final.trials] == [
        (t, a, "resolved" if a == "oracle" else "failed")
        for t in sorted((T1, T2, T3))
        for a in ("noop", "oracle")
    ]
    assert final.summary.total.trials == 6 and final.summary.by_agent["oracle"].resolved == 3
    assert (out / "evidence").is_dir()  # the run's signed summary
    listed = open_store(None, out.parent).runs()
    assert listed[0]["name"] == "late" and listed[0]["ended_at"] and listed[0]["trials"] == 6


def test_resume_refuses_another_signing_key(tmp_path):
    out = killed_run(tmp_path)
    plan = json.loads((out / "plan.json").read_text())
    plan["evidence"] = {"fingerprint": "SHA256:not-yours", "public_key": "", "key_source": "x"}
    (out / "plan.json").write_text(json.dumps(plan))
    result = CliRunner().invoke(app, ["runs", "resume", str(out)])
    assert result.exit_code == 1 and "was signed with key SHA256:not-yours" in str(result.exception)
