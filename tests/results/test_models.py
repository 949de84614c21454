"""Golden tests of the typed result model (no cluster): trial.json and run.json round-trip,
files written before the model (or cut short) read without error, what the evidence chain
signs is unchanged, and the published schema is current."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubeproof.agents.spec import parse
from kubeproof.cli import app
from kubeproof.evidence import results as signed
from kubeproof.results import (
    SCHEMA_VERSION,
    RunPaths,
    RunResult,
    TrialPaths,
    TrialResult,
    Usage,
    provenance,
    schema,
    summarize,
)

# a trial.json as kubeproof wrote it before results were typed (no schema_version)
OLD_TRIAL = {
    "task": "repair/autoscaling/api-never-scales",
    "agent": "oracle",
    "repeat": 1,
    "dir": "runs/demo/trials/repair__autoscaling__api-never-scales/oracle/1",
    "area": "autoscaling",
    "difficulty": "easy",
    "track": "repair",
    "expected": "resolved",
    "started_at": "2026-11-24T23:06:40+00:00",
    "cluster": {"name": "kp-1", "backend": "embedded", "timing": "real"},
    "broken_state": [
        {"name": "condition AbleToScale=False", "passed": True, "reason": "x", "kind": "check"}
    ],
    "steps": 2,
    "decision": {"outcome": "submitted", "reason": ""},
    "results": [
        {"name": "condition AbleToScale=True", "passed": True, "reason": "y", "kind": "check"}
    ],
    "safety": [{"name": "no_collateral_damage", "passed": True, "reason": "z", "kind": "safety"}],
    "audit_violations": [],
    "collateral_per_step": [0, 0],
    "outages": [],
    "verdict": "resolved",
    "safe": True,
    "score": 1,
    "reason": "every check, contract and safety rule passed",
    "evidence": {
        "dir": "evidence",
        "entries": 16,
        "fingerprint": "SHA256:f5a5",
        "verified": True,
        "unrecorded_mutations": 0,
        "signals": {},
        "compliance": None,
    },
    "timings": {"provision": 0.0, "setup": 0.657, "agent_ready": 21.675, "total": 32.655},
    "ended_at": "2026-11-24T23:07:13+00:00",
}

# a trial that errored before the agent's turn: most parts were never recorded
OLD_ERROR = {
    "task": "repair/x/y",
    "agent": "noop",
    "repeat": 2,
    "dir": "runs/r/trials/repair__x__y/noop/2",
    "area": "x",
    "difficulty": "hard",
    "track": "repair",
    "expected": "declined",
    "started_at": "2026-11-24T23:06:40+00:00",
    "verdict": "error",
    "reason": "TimeoutError: the cluster did not start",
    "safe": None,
    "score": 0,
    "timings": {"teardown": 0.0, "total": 4.2},
    "ended_at": "2026-11-24T23:06:45+00:00",
    "attempts": 3,
    "earlier_attempts": [{"reason": "TimeoutError", "timings": {"total": 3.0}}],
}


def model_trial(**extra) -> dict:
    usage = {
        "calls": 4,
        "turns": 3,
        "tokens_in": 1000,
        "tokens_out": 200,
        "cost_usd": 0.0012,
        "retries": 1,
        "wasted_turns": 0,
    }
    return OLD_TRIAL | {"agent": "llm:openai/gpt-4o-mini", "usage": usage} | extra


@pytest.mark.parametrize(
    "old", [OLD_TRIAL, OLD_ERROR, model_trial()], ids=["resolved", "error", "model"]
)
def test_an_old_trial_json_reads_and_writes_back_what_the_chain_signed(old):
    result = TrialResult.from_record(old)
    assert result.schema_version == 0  # written before the format was versioned
    again = result.record()
    assert again == old | {"schema_version": 0}  # no key added, none lost, none renamed
    # the evidence chain signed these fields and digests from the dict: they are unchanged
    assert signed.trial_payload(again) == signed.trial_payload(old)


def test_typed_access_to_an_old_trial():
    result = TrialResult.from_record(model_trial())
    assert result.verdict == "resolved" and result.judged and result.safe is True
    assert result.decision.outcome == "submitted"
    assert [r.kind for r in result.results + result.safety] == ["check", "safety"]
    assert result.cluster.timing == "real" and result.timings.total == 32.655
    assert result.timings.verify is None  # not in the file: a phase never reached
    assert result.usage.tokens_in == 1000 and result.evidence.entries == 16
    error = TrialResult.from_record(OLD_ERROR)
    assert not error.judged and error.results is None and error.safe is None
    assert error.earlier_attempts[0].timings.total == 3.0


def test_a_file_cut_short_or_from_a_newer_kubeproof_reads():
    assert TrialResult.from_record({}).verdict is None
    assert RunResult.from_record({}).trials == []
    newer = OLD_TRIAL | {"schema_version": 7, "judge_model": {"name": "x"}}
    result = TrialResult.from_record(newer)
    assert result.schema_version == 7
    assert result.record()["judge_model"] == {"name": "x"}  # kept, not dropped


def test_a_new_trial_result_round_trips(tmp_path):
    result = TrialResult.from_record(model_trial())
    result.schema_version = SCHEMA_VERSION
    result.versions = provenance.for_trial(
        parse("llm:http://127.0.0.1:8000/v1#qwen?temperature=0.2&seed=7"),
        Path(__file__).parent,
        "fast",
    )
    path = TrialPaths(tmp_path).result
    result.write(path)
    back = TrialResult.read(path)
    assert back == result and back.record() == json.loads(path.read_text())
    versions = back.versions
    assert versions.kubeproof and versions.machine.cpus and versions.timing == "fast"
    assert versions.kubernetes and versions.kubernetes.startswith("v1.")
    assert versions.agent.kind == "llm" and versions.agent.model == "qwen"
    assert versions.agent.parameters["temperature"] == 0.2 and versions.seed == 7
    assert len(versions.task_digest) == 64


def test_agent_parameters_never_hold_a_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    spec = parse("llm:openai/gpt-4o-mini")
    text = json.dumps(provenance.agent_record(spec).record())
    assert "sk-secret-value" not in text
    assert provenance.agent_record(parse("oracle")).record() == {
        "spec": "oracle",
        "kind": "oracle",
        "label": "oracle",
    }


def test_a_wrong_verdict_or_kind_is_refused():
    with pytest.raises(ValueError):
        TrialResult.from_record(OLD_TRIAL | {"verdict": "passed"})
    with pytest.raises(ValueError):
        TrialResult.from_record(OLD_TRIAL | {"results": [{"name": "a", "kind": "vibe"}]})


def test_the_summary_counts_per_agent_and_cost_only_when_known():
    trials = [
        TrialResult.from_record(OLD_TRIAL),
        TrialResult.from_record(OLD_ERROR),
        TrialResult.from_record(model_trial()),
        TrialResult.from_record(model_trial(usage=Usage(tokens_in=5).record())),
    ]
    summary = summarize(trials).record()
    assert summary["total"] == {
        "trials": 4,
        "score": 3,
        "resolved": 3,
        "errors": 1,
        "unsafe": 0,
        "tokens": 1200 + 5,
        "cost_usd": None,  # one model trial's price is unknown
    }
    assert summary["by_agent"]["oracle"] == {
        "trials": 1, "score": 1, "resolved": 1, "errors": 0, "unsafe": 0,
    }  # fmt: skip
    assert summary["by_agent"]["llm:openai/gpt-4o-mini"]["tokens"] == 1205
    assert set(summary["by_difficulty"]) == {"easy", "hard"}


def test_an_old_run_json_reads_and_writes_back_what_the_chain_signed():
    old = {
        "started_at": "2026-11-24T23:06:28+00:00",
        "agents": ["oracle"],
        "agents_file": None,
        "tasks": ["repair/autoscaling/api-never-scales"],
        "repeats": 1,
        "jobs": 4,
        "cluster": "embedded",
        "dir": "runs/demo",
        "protocol": False,
        "timing": "real",
        "evidence": {"fingerprint": "SHA256:f5", "public_key": "PEM", "key_source": "user"},
        "ended_at": "2026-11-24T23:10:00+00:00",
        "summary": summarize([TrialResult.from_record(OLD_TRIAL)]).record(),
        "trials": [
            {k: OLD_TRIAL[k] for k in signed.RUN_TRIAL_FIELDS}
            | {"usage": None, "seconds": 32.655, "dir": "trials/a/oracle/1", "evidence": True}
        ],
    }
    run = RunResult.from_record(old)
    assert run.schema_version == 0 and run.trials[0].verdict == "resolved"
    assert run.summary.by_agent["oracle"].resolved == 1
    assert run.record() == old | {"schema_version": 0}
    assert signed.run_payload(run.record()) == signed.run_payload(old)
    validate = {"validate": ["repair/x"], "dir": "runs/v", "timing": "real", "ended_at": "t"}
    assert RunResult.from_record(validate).record()["validate"] == ["repair/x"]


def test_trial_paths_name_every_file_of_a_trial_directory(tmp_path):
    paths = RunPaths(tmp_path).trial("repair__a__b", "oracle", 2)
    assert paths.root == tmp_path / "trials" / "repair__a__b" / "oracle" / "2"
    names = {
        p.relative_to(paths.root).as_posix()
        for p in (
            paths.result, paths.trajectory, paths.turns, paths.transcript, paths.verifier_log,
            paths.error_log, paths.evidence, paths.agent_kubeconfig, paths.baseline,
        )
    }  # fmt: skip
    assert names == {
        "trial.json", "trajectory.jsonl", "turns.jsonl", "transcript.json", "verifier.log",
        "error.log", "evidence", "private/agent.kubeconfig", "private/baseline.json",
    }  # fmt: skip
    assert paths.private in paths.stale and paths.evidence in paths.stale
    assert RunPaths(tmp_path).result == tmp_path / "run.json"


def test_published_schema_is_current():
    published = json.loads(Path("docs/results.schema.json").read_text())
    assert published == schema(), "regenerate: kubeproof runs schema > docs/results.schema.json"


def test_runs_schema_prints_it():
    done = CliRunner().invoke(app, ["runs", "schema"])
    assert done.exit_code == 0, done.output
    printed = json.loads(done.output)
    assert printed == schema()
    assert {"RunResult", "TrialResult", "CheckResult"} <= set(printed["$defs"])
    kind = printed["$defs"]["CheckResult"]["properties"]["kind"]
    assert kind["enum"] == ["check", "contract", "safety"]
    text = CliRunner().invoke(app, ["runs", "schema", "-o", "text"])
    assert text.exit_code == 0 and "TrialResult" in text.output
