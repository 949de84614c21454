"""`tasks validate` refuses proofs made by a verifier that crashed: a shortcut whose
verifier tripped "scores 0" for the wrong reason, and must show up as a defect."""

from kubeproof.runner.validate import judge
from kubeproof.tasks.select import select


def _record(task, agent, score, verdict, results):
    return {
        "task": task.id,
        "agent": agent,
        "repeat": 1,
        "score": score,
        "verdict": verdict,
        "reason": "",
        "results": results,
        "safety": [],
    }


def _ok(name, kind="check"):
    return {"name": name, "passed": True, "reason": "ok", "kind": kind}


def test_a_verifier_that_could_not_judge_invalidates_the_proof():
    task = select(["repair/batch/*"])[0]
    assert task.shortcuts
    shortcut = f"script:{task.shortcuts[0]}"
    tripped = {
        "name": "only_allowed_changes",
        "passed": False,
        "reason": "could not judge: KeyError: 'spec' at protection.py:88",
        "kind": "contract",
    }
    records = [
        _record(task, "oracle", 1, "resolved", [_ok("job_complete")]),
        _record(task, "noop", 0, "failed", [{**_ok("job_complete"), "passed": False}]),
        _record(task, shortcut, 0, "failed", [_ok("job_complete"), tripped]),
    ]
    verdict = judge(task, records)
    assert not verdict["valid"]
    failing = [p for p in verdict["proofs"] if not p["ok"]]
    assert [p["proof"] for p in failing] == [f"verifier judged {shortcut} #1"]
    assert "KeyError" in failing[0]["detail"]

    records[2]["results"][1] = {**tripped, "reason": "spec.template changed: a -> b"}
    assert judge(task, records)["valid"]
