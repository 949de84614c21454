"""The generate track's tasks proven offline: every task of kubebench-810 is made, its
reference answer passes S0, S1, S3 and S4, and its mutants fail at the stage they target.
No cluster: the RBAC twin stands in for SubjectAccessReviews (docs/generate.md)."""

from collections import Counter
from pathlib import Path

import pytest
import yaml

from kubeproof.generate import store, suites
from kubeproof.generate.model import GeneratedTask, Stage, Tier
from kubeproof.generate.offline import judge
from kubeproof.generate.task import generate, parse_id
from kubeproof.verify.fields import get_path

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_IDS = (
    "generate-v2-role-advanced-create-7",
    "generate-v2-secret-advanced-create-3",
    "generate-v2-namespace-advanced-create-1",
)


@pytest.fixture(scope="module")
def kubebench() -> list[GeneratedTask]:
    return list(suites.tasks("kubebench-810"))


def test_kubebench_810_has_810_unique_tasks_270_a_tier(kubebench):
    assert len(kubebench) == 810
    assert len({t.id for t in kubebench}) == 810
    assert Counter(t.tier for t in kubebench) == {tier: 270 for tier in Tier}
    cells = Counter((t.resource_type, t.tier) for t in kubebench)
    assert len(cells) == 24 and set(cells.values()) == {33, 34}
    assert sorted(Counter(t.resource_type for t in kubebench).values()) == [101] * 6 + [102] * 2


def test_every_id_makes_its_task_again(kubebench):
    for task in kubebench[::97]:
        kind, tier, op, seed = parse_id(task.id)
        assert generate(kind, tier, seed, op).model_dump_json() == task.model_dump_json()


def test_same_seed_same_bytes_other_seed_other_tasks():
    first = [store.task_json(t) for t in suites.tasks("kubebench-810", seed=3, limit=24)]
    again = [store.task_json(t) for t in suites.tasks("kubebench-810", seed=3, limit=24)]
    other = [store.task_json(t) for t in suites.tasks("kubebench-810", seed=4, limit=24)]
    assert first == again
    assert sum(a != b for a, b in zip(first, other, strict=True)) >= 20


@pytest.mark.parametrize("task_id", GOLDEN_IDS)
def test_golden_tasks_unchanged(task_id):
    """A changed golden file means every published task changed: bump GENERATOR_VERSION.
    Rewrite with `kubeproof tasks generate --id ID --out DIR` and copy DIR/ID/task.json."""
    kind, tier, op, seed = parse_id(task_id)
    want = (GOLDEN / f"{task_id}.json").read_text()
    assert store.task_json(generate(kind, tier, seed, op)) == want


def test_every_reference_passes_every_offline_stage(kubebench):
    failures = {}
    for task in kubebench:
        verdict = judge(task, task.reference)
        if verdict.failed_at is not None:
            failures[task.id] = verdict.stages[-1].reason
        assert verdict.stages[-1].under_grant == verdict.stages[-1].over_grant == 0
    assert not failures


def test_every_task_has_three_mutants_differing_at_their_target(kubebench):
    for task in kubebench:
        assert len(task.mutants) >= 3, task.id
        reference = list(yaml.load_all(task.reference, Loader=yaml.CSafeLoader))
        for m in task.mutants:
            mutated = list(yaml.load_all(m.answer, Loader=yaml.CSafeLoader))
            if m.document == len(reference):  # an object added
                assert len(mutated) == len(reference) + 1 and m.operator == "extra_object"
                continue
            before, after = reference[m.document], mutated[m.document]
            assert get_path(before, m.path) != get_path(after, m.path), (task.id, m.operator)


def test_mutants_fail_at_the_stage_they_target(kubebench):
    seen: Counter = Counter()
    for task in kubebench[::5]:
        for m in task.mutants:
            verdict = judge(task, m.answer)
            assert verdict.failed_at == m.fails_at, (task.id, m.operator, verdict.stages[-1])
            seen[m.operator] += 1
    assert {"drop_verb", "wildcard_verb", "wrong_namespace", "wrong_value", "drop_subject",
            "wrong_secret_type", "extra_object", "wrong_quantity"} <= set(seen)  # fmt: skip


def test_answers_aimed_past_s2_write_only_into_namespaces_that_exist(kubebench):
    """The apiserver refuses an object in a namespace that is neither a fixture, made by the
    answer, nor `default`: such an answer fails at S2, wherever its label aims (a renamed
    Namespace once left its ResourceQuota behind). Offline, so the live proof finds no such bug."""
    everyday = suites.tasks("everyday-810", limit=81)
    for task in [*kubebench, *everyday]:
        fixtures = {f["metadata"]["name"] for f in task.fixtures if f["kind"] == "Namespace"}
        answers = [("reference", task.reference)]
        answers += [(m.operator, m.answer) for m in task.mutants if m.fails_at > Stage.s2_apply]
        for label, answer in answers:
            objects = list(yaml.load_all(answer, Loader=yaml.CSafeLoader))
            made = {o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"}
            into = {o["metadata"].get("namespace") or "default" for o in objects}
            into.discard("default")
            assert into <= fixtures | made, (task.id, label, into - fixtures - made)


def test_rbac_mutants_count_under_and_over_grant_apart():
    task = generate("role", Tier.advanced, 7)
    by_op = {m.operator: judge(task, m.answer).stages[-1] for m in task.mutants}
    assert by_op["drop_verb"].under_grant > 0 and by_op["drop_verb"].over_grant == 0
    assert by_op["wildcard_verb"].over_grant > 0
    assert by_op["wildcard_resource"].over_grant > 0


def test_empty_answer_fails_s0(kubebench):
    for task in kubebench[:24]:
        assert judge(task, "").failed_at is Stage.s0_extract
