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


def test_trials_run_task_by_task_and_each_task_is_handed_over_once_its_trials_are_in(tmp_path):
    from kubeproof.runner.validate import TaskTally, plans, trial_count

    first, second = select(["repair/batch/*"])[:2]
    ordered = plans([first, second], tmp_path)
    assert [p.task.id for p in ordered] == [first.id] * trial_count(first) + [second.id] * (
        trial_count(second)
    )
    again = [(p.agent, p.repeat) for p in ordered[: trial_count(first)] if p.repeat == 2]
    assert again == [("noop", 2), ("oracle", 2)]  # round two right after the task's round one
    done = []
    tally = TaskTally([first, second], lambda task, records: done.append((task.id, len(records))))
    for p in reversed(ordered):  # trials finish in any order, two tasks interleaved
        tally.trial({"task": p.task.id, "agent": p.agent, "repeat": p.repeat})
        if p is ordered[trial_count(first)]:
            assert done == [(second.id, trial_count(second))]
    assert done == [(second.id, trial_count(second)), (first.id, trial_count(first))]
    tally.trial({"task": "not/a/chosen-task"})  # ignored
