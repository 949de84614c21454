"""UPDATE, DELETE and COMMAND tasks and the suite generate-10k, proven offline: counts per
operation, type and tier; the same seed gives the same bytes; every reference passes, the
empty answer fails S0 and every mutant fails at the stage it aims at (the offline judge
emulates what needs no apiserver: DELETE's and a command's objects must exist, and the
commands the generator writes); the hostile command parser refuses what it must."""

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from kubeproof.cli import app
from kubeproof.generate import command, emulate, single_shot, store, suites
from kubeproof.generate.checks import evaluate
from kubeproof.generate.live.identity import role_name
from kubeproof.generate.model import Operation, Stage, Tier, Unchanged
from kubeproof.generate.offline import judge
from kubeproof.generate.ops.preserve import unchanged
from kubeproof.generate.task import generate, identity, parse_id
from kubeproof.generate.templates import TEMPLATES

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_IDS = (
    "generate-v3-deployment-intermediate-update-1",
    "generate-v2-configmap-advanced-delete-2",
    "generate-v2-role-advanced-command-3",
)
OPS = (Operation.update, Operation.delete, Operation.command)
CELLS = len(TEMPLATES) * len(Tier) * len(Operation)


@pytest.fixture(scope="module")
def sample():
    """Two tasks of every (type, tier) cell of each new operation: 306 tasks."""
    made = suites.tasks("generate-10k", limit=2 * CELLS)
    return [t for t in made if t.operation is not Operation.create]


def test_generate_10k_has_over_10000_tasks_50_a_cell():
    suite = suites.suite("generate-10k")
    assert suite.size == 10_200 >= 10_000
    cells = Counter((c.operation, c.resource_type, c.tier) for c in suite.cells)
    assert len(cells) == CELLS == 204 and set(cells.values()) == {1}
    assert {c.count for c in suite.cells} == {50}
    per_op = Counter()
    for c in suite.cells:
        per_op[c.operation] += c.count
    assert per_op == {op: 2550 for op in Operation}


def test_its_create_tasks_are_kubebench_810s_and_a_prefix_spans_every_cell(sample):
    first = list(suites.tasks("generate-10k", limit=CELLS))
    assert len({(t.operation, t.resource_type, t.tier) for t in first}) == CELLS
    kubebench = {t.id: t for t in suites.tasks("kubebench-810", limit=24)}
    shared = [t for t in first if t.id in kubebench]
    assert len(shared) == 24
    assert all(store.task_json(t) == store.task_json(kubebench[t.id]) for t in shared)
    assert Counter(t.operation for t in sample) == {op: 102 for op in OPS}


def test_same_seed_same_bytes_and_ids_make_the_tasks_again():
    ops = [t for t in suites.tasks("generate-10k", seed=3, limit=CELLS) if t.operation in OPS]
    again = [t for t in suites.tasks("generate-10k", seed=3, limit=CELLS) if t.operation in OPS]
    other = [t for t in suites.tasks("generate-10k", seed=4, limit=CELLS) if t.operation in OPS]
    assert [store.task_json(t) for t in ops] == [store.task_json(t) for t in again]
    assert sum(a.reference != b.reference for a, b in zip(ops, other, strict=True)) > 140
    for task in ops[::17]:
        kind, tier, op, seed = parse_id(task.id)
        assert store.task_json(generate(kind, tier, seed, op)) == store.task_json(task)


@pytest.mark.parametrize("task_id", GOLDEN_IDS)
def test_golden_tasks_unchanged(task_id):
    """A changed golden file means published tasks changed: bump GENERATOR_VERSION."""
    kind, tier, op, seed = parse_id(task_id)
    want = (GOLDEN / f"{task_id}.json").read_text()
    assert store.task_json(generate(kind, tier, seed, op)) == want


def test_references_pass_empties_fail_s0_mutants_fail_where_they_aim(sample):
    wrong, operators = [], Counter()
    for task in sample:
        got = judge(task, task.reference)
        if got.failed_at is not None or got.stages[-1].stage is not Stage.s4_checks:
            wrong.append((task.id, "reference", got.stages[-1].reason))
        if judge(task, "").failed_at is not Stage.s0_extract:
            wrong.append((task.id, "empty"))
        assert len(task.mutants) >= 3, task.id
        assert len({m.operator for m in task.mutants}) == len(task.mutants), task.id
        for m in task.mutants:
            operators[(task.operation, m.operator, m.fails_at)] += 1
            assert m.answer != task.reference, (task.id, m.operator)
            got = judge(task, m.answer)
            if got.failed_at != m.fails_at:
                wrong.append((task.id, m.operator, got.failed_at, got.stages[-1].reason))
    assert not wrong
    aims = {(op, stage) for op, _, stage in operators}
    assert {(Operation.update, Stage.s3_objects), (Operation.update, Stage.s4_checks),
            (Operation.delete, Stage.s2_apply), (Operation.delete, Stage.s3_objects),
            (Operation.command, Stage.s0_extract), (Operation.command, Stage.s2_apply),
            (Operation.command, Stage.s4_checks)} <= aims  # fmt: skip


def test_every_command_is_parsed_safe_and_emulated(sample):
    for task in (t for t in sample if t.operation is Operation.command):
        assert task.answer_format == "command"
        for label, answer, stage in [("reference", task.reference, None)] + [
            (m.operator, m.answer, m.fails_at) for m in task.mutants
        ]:
            parsed = command.parse(answer)
            if stage is Stage.s0_extract:
                assert parsed.failure is not None, (task.id, label)
                continue
            assert parsed.failure is None, (task.id, label, parsed.reason)
            assert emulate.run(parsed.argv, task.fixtures).supported, (task.id, label)


def test_delete_and_update_tasks_say_what_must_go_and_stay(sample):
    for task in sample:
        if task.operation is Operation.delete:
            assert task.absent and task.expected
            gone = {(r.kind, r.name, r.namespace) for r in task.absent}
            assert not gone & {(r.kind, r.name, r.namespace) for r in task.expected}
            fixtures = {(f["kind"], f["metadata"]["name"]) for f in task.fixtures}
            assert {(r.kind, r.name) for r in task.absent} <= fixtures
        if task.operation is Operation.update:
            assert any(isinstance(c, Unchanged) for c in task.checks)
            assert not any("immutable" in f for f in task.fixtures)


def test_answers_aimed_past_s2_write_only_into_namespaces_that_exist(sample):
    for task in (t for t in sample if t.operation is Operation.update):
        fixtures = {f["metadata"]["name"] for f in task.fixtures if f["kind"] == "Namespace"}
        answers = [task.reference] + [m.answer for m in task.mutants if m.fails_at > "S2"]
        for answer in answers:
            objects = list(yaml.load_all(answer, Loader=yaml.CSafeLoader))
            made = {o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"}
            into = {o["metadata"].get("namespace") or "default" for o in objects} - {"default"}
            assert into <= fixtures | made, task.id


def test_an_update_of_the_changed_fields_alone_passes():
    """A server-side apply keeps what the answer leaves out: a partial manifest is enough."""
    task = generate("deployment", Tier.easy, 4, Operation.update)
    full = yaml.safe_load(task.reference)
    partial = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": full["metadata"],
               "spec": {"replicas": full["spec"]["replicas"]}}  # fmt: skip
    if task.prompts.terse.endswith(f"replicas={full['spec']['replicas']}"):
        assert judge(task, yaml.safe_dump(partial)).failed_at is None


def test_unchanged_sees_an_added_label_an_added_item_and_not_canonical_quantities():
    fixture = {"apiVersion": "v1", "kind": "ResourceQuota",
               "metadata": {"name": "q", "namespace": "n", "labels": {"team": "a"}},
               "spec": {"hard": {"requests.cpu": "0.5", "pods": "10"}}}  # fmt: skip
    check = unchanged(fixture, ['spec.hard["pods"]'])[0]
    live = yaml.safe_load(yaml.safe_dump(fixture))
    live["spec"]["hard"]["requests.cpu"] = "500m"  # as the apiserver stores it
    live["spec"]["hard"]["pods"] = "20"
    assert evaluate(check, [live]).passed
    live["metadata"]["labels"]["extra"] = "x"
    assert not evaluate(check, [live]).passed
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "n"},
               "spec": {"ports": [{"name": "main", "port": 80}]}}  # fmt: skip
    check = unchanged(service, [])[0]
    two = yaml.safe_load(yaml.safe_dump(service))
    two["spec"]["ports"].append({"name": "other", "port": 81})
    assert not evaluate(check, [two]).passed


@pytest.mark.parametrize(
    ("answer", "failure"),
    [
        ("", command.CommandFailure.empty),
        ("kubectl get cm | grep x", command.CommandFailure.shell_syntax),
        ("kubectl get cm; rm -rf /", command.CommandFailure.shell_syntax),
        ("kubectl get cm && id", command.CommandFailure.shell_syntax),
        ("kubectl get cm > /tmp/x", command.CommandFailure.shell_syntax),
        ("kubectl get cm $(id)", command.CommandFailure.shell_syntax),
        ("kubectl get cm `id`", command.CommandFailure.shell_syntax),
        ("kubectl get cm\nkubectl get secret", command.CommandFailure.shell_syntax),
        ("kubectl get cm 'unclosed", command.CommandFailure.invalid),
        ("sudo kubectl get cm", command.CommandFailure.not_kubectl),
        ("KUBECONFIG=/x kubectl get cm", command.CommandFailure.not_kubectl),
        ("/usr/bin/kubectl get cm", command.CommandFailure.not_kubectl),
        ("kubectl --kubeconfig=/etc/admin.conf get cm", command.CommandFailure.forbidden),
        ("kubectl get cm --server https://evil:6443", command.CommandFailure.forbidden),
        ("kubectl get cm -s https://evil:6443", command.CommandFailure.forbidden),
        ("kubectl get secrets --as system:admin", command.CommandFailure.forbidden),
        ("kubectl get secrets --as-group=system:masters", command.CommandFailure.forbidden),
        ("kubectl get cm --token=abc", command.CommandFailure.forbidden),
        ("kubectl apply -f /etc/passwd", command.CommandFailure.forbidden),
        ("kubectl create cm x --from-file=/etc/shadow", command.CommandFailure.forbidden),
        ("kubectl get cm -o jsonpath-file=/etc/passwd", command.CommandFailure.forbidden),
        ("kubectl get cm -ogo-template-file=/etc/passwd", command.CommandFailure.forbidden),
        ("kubectl exec -it pod -- sh", command.CommandFailure.forbidden),
        ("kubectl proxy", command.CommandFailure.forbidden),
        ("kubectl evilplugin", command.CommandFailure.forbidden),
        ("kubectl get cm " + "x" * command.COMMAND_LIMIT, command.CommandFailure.invalid),
        ("```bash\n$ kubectl get cm -n a\n```", None),
        ("Run this:\n\nkubectl -n a label cm x k=v\n\nDone.", None),
        ("kubectl get cm -o 'jsonpath={.items[*].metadata.name}'", None),
    ],
)
def test_hostile_commands_are_refused(answer, failure):
    assert command.parse(answer).failure is failure


def test_the_command_identity_may_scale_and_has_a_role_of_its_own():
    create, ops = identity(), identity(Operation.command)
    assert any("deployments/scale" in r.resources for r in ops.rules)
    assert not any("deployments/scale" in r.resources for r in create.rules)
    assert role_name(create) == "kubeproof-eval-escalate-allowed"
    assert role_name(ops) != role_name(create)


def test_a_command_task_asks_the_model_for_one_command_and_the_oracle_gives_it():
    task = generate("deployment", Tier.easy, 1, Operation.command)
    system, user = single_shot.messages(task, "terse")
    assert "one kubectl command" in system["content"] and "YAML" not in system["content"]
    assert user["content"] == task.prompts.terse
    create = generate("deployment", Tier.easy, 1)
    assert "YAML" in single_shot.messages(create, "terse")[0]["content"]
    assert command.parse(task.reference).failure is None


def test_tasks_prove_offline_proves_tasks_without_a_cluster():
    ids = [arg for task_id in GOLDEN_IDS for arg in ("--id", task_id)]
    result = CliRunner().invoke(app, ["tasks", "prove", *ids, "--offline", "-o", "json"])
    assert result.exit_code == 0, result.output
    proof = json.loads(result.stdout)
    assert proof["valid"] and proof["tasks"] == 3 and proof["references_passed"] == 3
    assert proof["empties_failed_s0"] == 3 and proof["mutants_caught"] == proof["mutants"] > 9
    assert {"forgot_change", "one_too_many", "shell_pipe"} <= set(proof["by_operator"])
