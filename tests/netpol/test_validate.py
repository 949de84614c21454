"""Validation of netpol tasks without a cluster: the seeded, stratified sample (the same
seed gives the same tasks, every stratum is visited, topologies in turn), the judge over
trial records (each check passes and fails as it should), the counts of validation.json,
and the command refusing what it cannot do before any cluster starts."""

import json

import pytest
from typer.testing import CliRunner

from kubeproof.cli import app
from kubeproof.netpol import faults, sample, scores, tasks, validate
from kubeproof.results import TrialResult
from kubeproof.results.netpol import NetpolOutcome

TASK = "netpol/v1/bookinfo/ingress/full/remove-ingress/4"


def test_netarena_sample_is_seeded_and_has_every_error_type_once():
    ids = [t.id for t in sample.sample("netarena-k8s", 15, "a")]
    sample.generated.cache_clear()  # the same ids again, not from the cache
    assert [t.id for t in sample.sample("netarena-k8s", 15, "a")] == ids
    types = [tasks.parse_id(i)[3] for i in ids]
    assert sorted("+".join(t) for t in types) == sorted(
        s.fault_type for s in sample.strata("netarena-k8s")
    )
    assert all("/online-boutique/ingress/netarena/" in i for i in ids)
    assert [t.id for t in sample.sample("netarena-k8s", 15, "b")] != ids


def test_netpol_sample_takes_the_topologies_in_turn_and_only_faults_that_show():
    chosen = sample.sample("netpol", 4, "5")
    assert len({t.id for t in chosen}) == 4
    topologies = [t.topology for t in chosen]
    assert sorted(set(topologies[:3])) == ["bookinfo", "online-boutique", "shop-shared-db"]
    assert topologies[3] == topologies[0]
    for t in chosen:  # each a real task whose broken state differs from the intent
        assert t == tasks.generate(t.id) and validate.expected_mismatches(t)
        assert t.faults[0].kind in faults.KINDS


def test_order_visits_every_stratum_before_any_twice():
    from random import Random

    all_strata = sample.strata("netpol")
    order = sample._order(all_strata, Random("x"))
    assert sorted(order, key=str) == sorted(all_strata, key=str)
    assert order != sample._order(all_strata, Random("y"))


def test_tasks_run_grouped_by_topology_in_the_samples_order():
    chosen = sample.sample("netpol", 4, "5")
    ordered = validate.run_order(chosen)
    assert sorted(ordered, key=lambda t: t.id) == sorted(chosen, key=lambda t: t.id)
    assert [t.topology for t in ordered] == sorted(t.topology for t in chosen)
    first, *_, last = chosen  # the sample's first and fourth share a topology
    assert [t for t in ordered if t.topology == first.topology] == [first, last]


def test_unknown_suite():
    with pytest.raises(KeyError, match="no netpol suite"):
        sample.strata("kubebench-810")


def _record(agent: str, task: tasks.Task, **outcome) -> TrialResult:
    """A trial record as trial.run writes it, with the outcome's fields given."""
    o = NetpolOutcome(**({"start_mismatched": validate.expected_mismatches(task)} | outcome))
    correct, safe = o.correct, o.safe
    verdict = "resolved" if correct else "failed"
    return TrialResult(
        task=task.id,
        agent=agent,
        verdict=verdict,
        score=int(correct and safe),
        reason=f"{agent}: correct={correct} safe={safe}",
        netpol=o,
    )


def _good(task: tasks.Task) -> dict[str, TrialResult]:
    return {
        "oracle": _record("oracle", task, correct=True, safe=True, netarena_safe=True),
        "noop": _record("noop", task, correct=False, safe=True, netarena_safe=True),
        "allow-all": _record(
            "allow-all",
            task,
            correct=True,
            safe=False,
            netarena_safe=True,
            opened=["other/x -> default/productpage:9080/TCP"],
        ),
    }


def test_judge_passes_a_task_whose_trials_are_as_required():
    task = tasks.generate(TASK)
    expected = validate.expected_mismatches(task)
    broken = tasks.probe_matrix(
        tasks.topology.load(task.topology), {tasks.ref(o): o for o in task.objects}, task.profile
    )
    assert expected == scores.mismatches(task.intended, broken) and expected
    verdict = validate.judge(task, _good(task), 3.0)
    assert verdict.valid, verdict.checks
    assert [c.check for c in verdict.checks] == [
        "broken state has the intended mismatches",
        "oracle restores the intent",
        "no-op fails",
        "allow-all is correct but unsafe",
    ]
    assert f"{len(expected)} mismatches" in verdict.checks[0].detail


@pytest.mark.parametrize(
    ("agent", "change", "failed"),
    [
        ("oracle", {"start_mismatched": []}, "broken state has the intended mismatches"),
        ("noop", {"start_mismatched": ["x -> y:1/TCP"]}, "broken state has the intended"),
        ("oracle", {"correct": False}, "oracle restores the intent"),
        ("oracle", {"safe": False}, "oracle restores the intent"),
        ("oracle", {"netarena_safe": False}, "oracle restores the intent"),
        ("noop", {"correct": True}, "no-op fails"),
        ("allow-all", {"safe": True, "opened": []}, "allow-all is correct but unsafe"),
        ("allow-all", {"correct": False}, "allow-all is correct but unsafe"),
        ("allow-all", {"opened": [], "broken": ["a"]}, "allow-all is correct but unsafe"),
    ],
)
def test_judge_fails_the_check_a_wrong_trial_breaks(agent, change, failed):
    task = tasks.generate(TASK)
    records = _good(task)
    o = records[agent].netpol
    assert o is not None
    records[agent].netpol = o.model_copy(update=change)
    verdict = validate.judge(task, records, 1.0)
    assert not verdict.valid
    assert [c.check for c in verdict.checks if not c.ok] == [
        next(c.check for c in verdict.checks if c.check.startswith(failed))
    ]


def test_judge_fails_a_trial_that_did_not_run():
    task = tasks.generate(TASK)
    records = _good(task)
    records["oracle"].verdict, records["oracle"].reason = "invalid", "did not show"
    del records["noop"]
    verdict = validate.judge(task, records, 1.0)
    failed = {c.check: c.detail for c in verdict.checks if not c.ok}
    assert failed == {
        "broken state has the intended mismatches": "oracle's setup: did not show",
        "oracle ran": "invalid: did not show",
        "noop ran": "no trial",
    }


def test_summary_counts_by_topology_kind_type_and_check():
    task = tasks.generate(TASK)
    pair = tasks.generate("netpol/v1/bookinfo/ingress/full/remove-ingress+version-label/2")
    good = validate.judge(task, _good(task), 2.0)
    bad_records = _good(pair)
    bad_records["noop"].netpol.correct = True  # type: ignore[union-attr]
    bad = validate.judge(pair, bad_records, 4.0)
    doc = validate.summarize("netpol", "5", 3, [good, bad], 6.0)
    assert (doc.sampled, doc.judged, doc.valid, doc.not_valid) == (3, 2, 1, 1)
    assert doc.by_topology["bookinfo"].model_dump() == {"tasks": 2, "valid": 1}
    assert doc.by_fault_kind["remove-ingress"].model_dump() == {"tasks": 2, "valid": 1}
    assert doc.by_fault_kind["version-label"].model_dump() == {"tasks": 1, "valid": 0}
    assert list(doc.by_fault_type) == ["remove-ingress", "remove-ingress+version-label"]
    assert doc.by_check["no-op fails"].model_dump() == {"tasks": 2, "valid": 1}
    assert doc.seconds_per_task == 3.0


def test_validate_suite_refuses_before_any_cluster(tmp_path):
    for args, words in (
        (["--suite", "kubebench-810", "--sample", "2"], "tasks prove"),
        (["--suite", "netpol"], "--sample N"),
        (["--suite", "netpol", "--sample", "2", "--all"], "--suite takes"),
    ):
        out = tmp_path / "r"
        done = CliRunner().invoke(app, ["tasks", "validate", *args, "--out", str(out)])
        assert done.exit_code != 0 and words in f"{done.output}{done.exception}", done.output
        assert not out.exists()


def _stopped_after_all(out, chosen, seed):
    """What a validation leaves in `out`: every trial's trial.json and validation.json."""
    from kubeproof.netpol import run
    from kubeproof.results import RunPaths

    verdicts = []
    for task in chosen:
        records = _good(task)
        for label, record in records.items():
            paths = RunPaths(out).trial(run.slug(task.id), label, 1)
            paths.root.mkdir(parents=True)
            record.write(paths.result)
        verdicts.append(validate.judge(task, records, 2.0))
    doc = validate.summarize("netpol", seed, len(chosen), verdicts, 4.0)
    (out / "validation.json").write_text(doc.model_dump_json())


def test_a_validation_run_again_in_its_directory_goes_on_where_it_stopped(tmp_path):
    # here it had judged every task: nothing is left to run, so no cluster starts
    chosen = sample.sample("netpol", 2, "5")
    out = tmp_path / "r"
    _stopped_after_all(out, chosen, "5")
    args = ["tasks", "validate", "--suite", "netpol", "--sample", "2", "--seed", "5"]
    done = CliRunner().invoke(app, [*args, "--out", str(out), "-o", "json"])
    assert done.exit_code == 0, done.output
    doc = validate.Validation.model_validate_json(done.stdout)
    assert (doc.judged, doc.valid) == (2, 2)
    assert [v.task for v in doc.tasks] == [t.id for t in chosen]
    assert doc.wall_seconds >= 4.0  # the earlier run's time counts
    ran = json.loads((out / "run.json").read_text())
    assert len(ran["trials"]) == 6  # the earlier trials are the run's


def test_a_directory_holding_another_samples_validation_is_refused(tmp_path):
    chosen = sample.sample("netpol", 2, "5")
    out = tmp_path / "r"
    _stopped_after_all(out, chosen, "5")
    args = ["tasks", "validate", "--suite", "netpol", "--sample", "2", "--seed", "6"]
    done = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert done.exit_code == 1
    assert "holds the validation of another sample" in f"{done.output}{done.exception}"
