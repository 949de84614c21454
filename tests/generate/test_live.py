"""The live stages on one shared embedded cluster: references of every type pass S0-S4,
mutants fail at the stage they target, an empty answer fails S0, the apiserver's refusal
reaches S2, a restricted identity cannot escalate, an answer that changes an object the
judge did not make taints the session, and cleanup leaves no object behind."""

import pytest

from kubeproof.generate.live.identity import role_name
from kubeproof.generate.live.session import JudgeSession
from kubeproof.generate.model import RUNTIME_CHECKS, Rule, Stage, Tier
from kubeproof.generate.task import generate
from kubeproof.generate.templates import TEMPLATES

TIERS = list(Tier)


def _sample():
    """One task of every type (tiers in turn), and three more advanced RBAC ones."""
    tasks = [generate(kind, TIERS[i % 3], 11) for i, kind in enumerate(sorted(TEMPLATES))]
    more = ("role", "rolebinding", "clusterrolebinding")
    return tasks + [generate(kind, Tier.advanced, 12) for kind in more]


def _mutants(task):
    """The first mutant aimed at each stage."""
    firsts = {}
    for m in task.mutants:
        firsts.setdefault(m.fails_at, m)
    return list(firsts.values())


@pytest.fixture(scope="module")
def session(cluster):
    # no nodes on the shared cluster: runtime truth off (tested in test_live_runtime.py)
    with JudgeSession(cluster, runtime_truth=False) as s:
        yield s


def test_references_pass_mutants_fail_where_they_aim_nothing_left_behind(session):
    tasks = _sample()
    assert len(tasks) >= 20 and {t.resource_type for t in tasks} == set(TEMPLATES)
    for identity in {t.identity.model_dump_json(): t.identity for t in tasks}.values():
        session.evaluator(identity)
    before = session.inventory()
    wrong = []
    for task in tasks:
        ref = session.judge(task, task.reference, "reference")
        if any(isinstance(c, RUNTIME_CHECKS) for c in task.checks):
            assert "runtime checks not run" in ref.stages[-1].reason, task.id
        if not ref.strict_pass:
            wrong.append((task.id, "reference", ref.failed_at, ref.error, ref.stages[-1].reason))
        assert ref.applied and {r.name for r in ref.applied.created} >= {
            e.name for e in task.expected
        }
        for m in _mutants(task):
            got = session.judge(task, m.answer, f"mutant:{m.operator}")
            if got.failed_at != m.fails_at or got.error:
                wrong.append((task.id, m.operator, got.failed_at, got.error, got.stages[-1].reason))
    assert session.judge(tasks[0], "", "empty").failed_at is Stage.s0_extract
    assert not wrong
    assert session.tainted is None
    session.finish()
    # the identity's namespace gets its default ServiceAccount and CA ConfigMap from the
    # controllers some moments after it is made: the judge's own, left out
    own = {t.identity.namespace for t in tasks}
    assert {o for o in session.inventory() if o[1] not in own} == {
        o for o in before if o[1] not in own
    }


def test_rbac_mutants_count_under_and_over_grant_live(session):
    task = generate("role", Tier.advanced, 7)
    by = {m.operator: m for m in task.mutants}
    dropped = session.judge(task, by["drop_verb"].answer, "drop_verb").stages[-1]
    wild = session.judge(task, by["wildcard_verb"].answer, "wildcard_verb").stages[-1]
    session.finish()
    assert dropped.stage is Stage.s4_checks and dropped.under_grant > 0 == dropped.over_grant
    assert wild.over_grant > 0 and "SubjectAccessReview" in wild.reason


def test_the_apiservers_refusal_fails_s2(session):
    task = generate("configmap", Tier.easy, 3)
    # S1 checks types, not values: a label value with a space is the apiserver's to refuse
    bad = task.reference.replace("  namespace:", "  labels: {tier: not valid!}\n  namespace:", 1)
    got = session.judge(task, bad, "invalid key")
    session.finish()
    assert got.failed_at is Stage.s2_apply
    assert got.applied and got.applied.refused[0].code == 422
    assert "not valid!" in got.applied.refused[0].message


def test_a_restricted_identity_may_not_grant_what_it_lacks(session):
    task = generate("role", Tier.easy, 5)
    rules = [
        Rule(
            apiGroups=["rbac.authorization.k8s.io"],
            resources=["roles"],
            verbs=["get", "create", "patch"],
        )
    ]
    identity = task.identity.model_copy(
        update={
            "profile": "restricted",
            "name": "restricted",
            "rules": rules,
            "escalate": False,
            "bind": False,
        }
    )
    restricted = task.model_copy(update={"identity": identity})
    got = session.judge(restricted, task.reference, "reference as restricted")
    session.finish()
    assert got.failed_at is Stage.s2_apply and got.identity.startswith("restricted")
    assert got.applied and got.applied.refused[0].code == 403
    assert "permissions not currently held" in got.applied.refused[0].message


def test_an_answer_changing_what_the_judge_did_not_make_taints(cluster):
    """Last in the module: its session, closing, revokes the identity the others share."""
    task = generate("configmap", Tier.easy, 3)
    cluster.kubectl("create", "configmap", "precious", "-n", "default", "--from-literal=a=b")
    hostile = (
        task.reference
        + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: precious\n"
        + "  namespace: default\n  finalizers: [example.com/never]\ndata:\n  a: changed\n"
    )
    try:
        with JudgeSession(cluster) as s:
            got = s.judge(task, hostile, "hostile")
        assert got.failed_at is Stage.s3_objects  # scope creep
        assert got.tainted and "ConfigMap default/precious" in got.tainted
        # a session on a cluster it did not start takes back the rights it granted
        name = role_name(task.identity)
        binding = cluster.kubectl("get", "clusterrolebinding", name, check=False)
        assert binding.returncode != 0 and "NotFound" in binding.stderr
    finally:
        unset = '{"metadata":{"finalizers":null}}'
        cluster.kubectl("patch", "configmap", "precious", "-n", "default", "-p", unset, check=False)
        cluster.kubectl("delete", "configmap", "precious", "-n", "default", check=False)
