"""The pure parts of the live judge: SubjectAccessReviews built from matrix cells, the
identity an applied object gets, what the proof wants of each answer and how it counts,
and that cleanup's inventory covers every kind a task may write. No cluster."""

import pytest

from kubeproof.generate.live import access, objects, prove
from kubeproof.generate.live.apply import Applied, Refusal, _order
from kubeproof.generate.live.judge import LiveJudgement, apply_stage
from kubeproof.generate.live.session import _namespaces
from kubeproof.generate.model import Cell, ObjectRef, Stage, Subject, Tier
from kubeproof.generate.offline import StageResult
from kubeproof.generate.task import WRITABLE, generate


def test_reviews_ask_resource_and_non_resource_cells():
    cell = Cell(verb="get", resource="pods", subresource="log", namespace="a", allowed=True)
    spec = access.review("u", ["g"], cell)["spec"]
    assert spec["resourceAttributes"] == {
        "verb": "get", "group": "", "resource": "pods", "subresource": "log", "namespace": "a"
    }  # fmt: skip
    url = access.review("u", [], Cell(verb="get", path="/metrics", allowed=False))["spec"]
    assert url["nonResourceAttributes"] == {"path": "/metrics", "verb": "get"}
    assert "resourceAttributes" not in url


@pytest.mark.parametrize(
    ("subject", "user", "groups"),
    [
        (Subject(kind="ServiceAccount", name="ci", namespace="tools"),
         "system:serviceaccount:tools:ci",
         ["system:serviceaccounts", "system:serviceaccounts:tools", "system:authenticated"]),
        (Subject(kind="User", name="alice"), "alice", ["system:authenticated"]),
        (Subject(kind="Group", name="ops"), access.GROUP_MEMBER, ["ops", "system:authenticated"]),
    ],
)  # fmt: skip
def test_subjects_become_the_user_and_groups_the_authenticator_gives(subject, user, groups):
    assert access.user_and_groups(subject) == (user, groups)


def test_a_namespaced_object_without_a_namespace_lands_in_default():
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    assert objects.ref_of(cm).namespace == "default"
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}
    assert objects.ref_of(ns).namespace is None
    with pytest.raises(ValueError):
        objects.resource("example.com/v1", "Widget")


def test_namespaces_apply_first_and_are_awaited_by_name():
    docs = [
        {"kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "shop"}},
        {"kind": "Namespace", "metadata": {"name": "shop"}},
        {"kind": "Role", "metadata": "junk"},
    ]
    assert [d["kind"] for d in _order(docs)] == ["Namespace", "ResourceQuota", "Role"]
    assert _namespaces(docs) == {"shop"}


def test_the_inventory_lists_every_kind_the_identity_may_write():
    listed = {(r._api_info.resource.group, r._api_info.plural) for r in objects.INVENTORY}
    assert listed == {(g, p) for g, plurals in WRITABLE.items() for p in plurals}


def _judgement(task_id, label, failed_at, error=None):
    stages = [StageResult(stage=Stage.s0_extract, passed=failed_at != Stage.s0_extract,
                          reason="r", seconds=0.5)]  # fmt: skip
    return LiveJudgement(stages=stages, failed_at=failed_at, task_id=task_id, label=label,
                         identity="escalate-allowed", error=error, seconds=1.0)  # fmt: skip


def test_the_proof_wants_pass_s0_and_each_mutants_stage_and_counts_bugs():
    task = generate("role", Tier.advanced, 7)
    work = prove.work(task)
    assert [label for label, _ in work.answers[:2]] == ["reference", "empty"]
    assert len(work.answers) == 2 + len(task.mutants)
    drop = next(m for m in task.mutants if m.operator == "drop_verb")
    assert prove.wanted(task, "mutant:drop_verb") == drop.fails_at == Stage.s4_checks
    judged = [
        _judgement(task.id, "reference", None),
        _judgement(task.id, "empty", Stage.s0_extract),
        _judgement(task.id, "mutant:drop_verb", Stage.s4_checks),
        _judgement(task.id, "mutant:wrong_name", None),  # a mutant that passed: a bug
        _judgement(task.id, "mutant:wildcard_verb", None, error="TimeoutError: x"),
    ]
    proof = prove.summarise({task.id: task}, judged, workers=2, seconds=3.0)
    assert (proof.references_passed, proof.empties_failed_s0) == (1, 1)
    assert (proof.mutants, proof.mutants_caught, proof.errors) == (3, 1, 1)
    assert [b.label for b in proof.bugs] == ["mutant:wrong_name", "mutant:wildcard_verb"]
    assert proof.by_operator["drop_verb"] == [1, 1] and not proof.valid
    assert proof.stage_seconds["S0"] == 0.5 and proof.stage_seconds["total"] == 1.0


def test_strict_pass_needs_s2_s3_s4_and_no_error():
    ok = [StageResult(stage=s, passed=True, reason="") for s in Stage]
    j = LiveJudgement(stages=ok, failed_at=None, task_id="t", label="l", identity="i")
    assert j.strict_pass and j.model_dump()["strict_pass"]
    assert not j.model_copy(update={"stages": ok[:3]}).strict_pass
    assert not j.model_copy(update={"error": "boom"}).strict_pass


def test_a_refused_apply_fails_s2_with_the_apiservers_text():
    ref = ObjectRef(api_version="v1", kind="ConfigMap", name="x", namespace="a")
    refused = Applied(refused=[Refusal(object=ref, code=403, message="forbidden: nope")])
    stage = apply_stage(refused)
    assert not stage.passed and "ConfigMap a/x: forbidden: nope" in stage.reason
    assert apply_stage(Applied(created=[ref])).passed
