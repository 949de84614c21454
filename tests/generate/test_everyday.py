"""The everyday types (Deployment, Service, PVC, PDB, HPA, CronJob) proven offline, as
test_suite.py proves kubebench-810: references pass, mutants fail where they aim."""

from collections import Counter

import pytest
import yaml

from kubeproof.generate import schema, suites
from kubeproof.generate.model import GeneratedTask, Tier
from kubeproof.generate.mutants import LIVE_ONLY, RUNTIME_OPERATORS
from kubeproof.generate.offline import judge
from kubeproof.generate.task import identity
from kubeproof.verify.fields import get_path

RUNTIME_OPERATORS_NAMES = [name for name, _, _ in RUNTIME_OPERATORS]


@pytest.fixture(scope="module")
def everyday() -> list[GeneratedTask]:
    return list(suites.tasks("everyday-810", seed=1))


def test_everyday_810_has_30_tasks_a_cell(everyday):
    assert len({t.id for t in everyday}) == 810
    cells = Counter((t.resource_type, t.tier) for t in everyday)
    assert len(cells) == 27 and set(cells.values()) == {30}
    assert {t.tier for t in everyday} == set(Tier)


def test_every_reference_passes_and_every_mutant_fails_where_it_aims(everyday):
    operators: Counter = Counter()
    for task in everyday:
        assert judge(task, task.reference).failed_at is None, task.id
        assert len(task.mutants) >= 4, task.id
        reference = list(yaml.load_all(task.reference, Loader=yaml.CSafeLoader))
        for m in task.mutants:
            operators[m.operator] += 1
            if m.document < len(reference):
                mutated = list(yaml.load_all(m.answer, Loader=yaml.CSafeLoader))
                before, after = reference[m.document], mutated[m.document]
                assert get_path(before, m.path) != get_path(after, m.path), (task.id, m.operator)
    for task in everyday[::2]:  # half the tasks, every cell: the judge is the slow part
        for m in task.mutants:
            # a live-only mistake passes every static check: only runtime truth sees it
            want = None if m.operator in LIVE_ONLY else m.fails_at
            assert judge(task, m.answer).failed_at == want, (task.id, m.operator)
    assert {"wrong_number", "wrong_quantity", "wrong_image", "wrong_schedule"} <= set(operators)
    assert set(RUNTIME_OPERATORS_NAMES) <= set(operators)


def test_the_evaluation_identity_may_write_every_kind_a_task_holds(everyday):
    kubebench = list(suites.tasks("kubebench-810", limit=24))
    rules = identity().rules
    for task in everyday[:18] + kubebench:
        for doc in task.fixtures + list(yaml.load_all(task.reference, Loader=yaml.CSafeLoader)):
            info = schema.resource_class(doc["apiVersion"], doc["kind"])._api_info
            group, plural = info.resource.group, info.plural
            assert any(group in r.apiGroups and plural in r.resources and "patch" in r.verbs
                       for r in rules), (task.id, doc["kind"])  # fmt: skip
