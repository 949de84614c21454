"""UPDATE, DELETE and COMMAND judged live on the shared embedded cluster: references pass
S0-S4 (a command run for real by stock kubectl as the evaluation identity), the first mutant
aimed at each stage fails there, a question's command that changes something fails S3, and
cleanup leaves nothing behind (deleted and changed fixtures made again, then removed)."""

import pytest

from kubeproof.generate.live.session import JudgeSession
from kubeproof.generate.model import Operation, Stage, Tier
from kubeproof.generate.task import generate
from tests.generate.test_live import _mutants as _first_per_stage

# an UPDATE, a DELETE by label, a question on a cluster-scoped kind and a command's change:
# every stage a mutant of the new operations aims at, in ~12 answers that reach the cluster
SAMPLE = (
    ("deployment", Tier.intermediate, Operation.update, 1),
    ("configmap", Tier.advanced, Operation.delete, 2),
    ("clusterrole", Tier.intermediate, Operation.command, 0),
    ("deployment", Tier.advanced, Operation.command, 2),
)
QUESTION = SAMPLE[2]


@pytest.fixture(scope="module")
def session(cluster):
    with JudgeSession(cluster) as s:
        yield s


def test_references_pass_mutants_fail_where_they_aim_nothing_left_behind(session):
    tasks = [generate(kind, tier, seed, op) for kind, tier, op, seed in SAMPLE]
    for identity in {t.identity.model_dump_json(): t.identity for t in tasks}.values():
        session.evaluator(identity)
    before = session.inventory()
    wrong, stages = [], set()
    for task in tasks:
        got = session.judge(task, task.reference, "reference")
        if not got.strict_pass:
            wrong.append((task.id, "reference", got.failed_at, got.error, got.stages[-1].reason))
        for m in _first_per_stage(task):
            got = session.judge(task, m.answer, f"mutant:{m.operator}")
            stages.add((task.operation, m.fails_at))
            if got.failed_at != m.fails_at or got.error:
                wrong.append((task.id, m.operator, got.failed_at, got.error, got.stages[-1].reason))
    assert not wrong
    assert {(Operation.update, Stage.s3_objects), (Operation.update, Stage.s4_checks),
            (Operation.delete, Stage.s2_apply), (Operation.delete, Stage.s3_objects),
            (Operation.command, Stage.s0_extract), (Operation.command, Stage.s2_apply),
            (Operation.command, Stage.s4_checks)} <= stages  # fmt: skip
    assert session.tainted is None
    session.finish()
    own = {t.identity.namespace for t in tasks}
    assert {o for o in session.inventory() if o[1] not in own} == {
        o for o in before if o[1] not in own
    }


def test_a_question_answered_by_a_change_fails_s3_and_hostile_text_never_runs(session):
    kind, tier, op, seed = QUESTION
    task = generate(kind, tier, seed, op)
    name = next(f for f in task.fixtures if f["kind"] == "ClusterRole")["metadata"]["name"]
    changed = session.judge(task, f"kubectl label clusterrole {name} owner=x", "a change")
    hostile = session.judge(task, task.reference + " --as=system:admin", "impersonation")
    session.finish()
    assert changed.failed_at is Stage.s3_objects and "ClusterRole" in changed.stages[-1].reason
    assert hostile.failed_at is Stage.s0_extract and hostile.applied is None
