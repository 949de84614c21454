"""One generated task from (resource type, tier, operation, seed): the template's draft, the
evaluation identity, the reference answer and its mutants. The id names all four, so any
task can be made again alone; the random source is private to the task (never global)."""

import random
import re

from kubeproof.generate.draft import RBAC_GROUP, Draft, ref
from kubeproof.generate.errors import GenerateError
from kubeproof.generate.model import (
    RUNTIME_CHECKS,
    EvaluationIdentity,
    GeneratedTask,
    Operation,
    Prompts,
    Rule,
    Tier,
)
from kubeproof.generate.mutants import dump, mutants
from kubeproof.generate.ops.commands import command_task
from kubeproof.generate.ops.delete import delete_task
from kubeproof.generate.ops.update import update_task
from kubeproof.generate.templates import TEMPLATES

OPERATIONS = {
    Operation.update: update_task,
    Operation.delete: delete_task,
    Operation.command: command_task,
}

# v2: a misnamed Namespace's objects move with it (wrong_name failed at S2, not S3)
# v3: runtime truth (PodsReady, ServiceEndpoints, PolicyPaths) and the runtime mutants
GENERATOR_VERSION = 3
# A task's id and random source carry the version that last changed its type's tasks, so a
# change to some types leaves the others' tasks (kubebench-810's) byte for byte as they were
TYPE_VERSIONS = {"deployment": 3, "service": 3, "networkpolicy": 3, "job": 3}
BASE_VERSION = 2  # every other type's
_ID = re.compile(r"^generate-v(\d+)-([a-z]+)-(easy|intermediate|advanced)-([a-z]+)-(\d+)$")
_WRITE = ["get", "list", "watch", "create", "update", "patch", "delete"]
_SCALE = ["get", "update", "patch"]


# group -> resources the evaluation identity may write: every kind a template's answer or
# fixtures hold (a test keeps this in step with the templates)
WRITABLE = {
    "": ["namespaces", "configmaps", "secrets", "serviceaccounts", "resourcequotas",
         "limitranges", "services", "persistentvolumeclaims"],
    RBAC_GROUP: ["roles", "clusterroles", "rolebindings", "clusterrolebindings"],
    "apps": ["deployments"],
    "batch": ["jobs", "cronjobs"],
    "networking.k8s.io": ["networkpolicies"],
    "policy": ["poddisruptionbudgets"],
    "autoscaling": ["horizontalpodautoscalers"],
}  # fmt: skip


def identity(operation: Operation = Operation.create) -> EvaluationIdentity:
    """The evaluation ServiceAccount, one for every task of a kind so a worker makes it
    once: may write the kinds the tasks ask for, and holds escalate and bind, so any
    well-formed RBAC applies (KubeBench does not say what its evaluator held;
    docs/generate.md). A COMMAND task's identity may also scale a Deployment (`kubectl
    scale` writes its scale subresource); it has a name of its own."""
    rules = [Rule(apiGroups=[g], resources=r, verbs=_WRITE) for g, r in WRITABLE.items()]
    rules.append(
        Rule(
            apiGroups=[RBAC_GROUP], resources=["roles", "clusterroles"], verbs=["escalate", "bind"]
        )
    )
    name = "evaluator"
    if operation is Operation.command:
        rules.append(Rule(apiGroups=["apps"], resources=["deployments/scale"], verbs=_SCALE))
        name = "commander"
    return EvaluationIdentity(
        profile="escalate-allowed",
        namespace="kubeproof-eval",
        name=name,
        rules=rules,
        escalate=True,
        bind=True,
    )


def version_of(resource_type: str) -> int:
    """The version in the ids of this type's tasks: the last that changed them."""
    return TYPE_VERSIONS.get(resource_type, BASE_VERSION)


def task_id(resource_type: str, tier: Tier, operation: Operation, seed: int) -> str:
    return f"generate-v{version_of(resource_type)}-{resource_type}-{tier}-{operation}-{seed}"


def parse_id(text: str) -> tuple[str, Tier, Operation, int]:
    """(type, tier, operation, seed) of a task id this generator makes."""
    match = _ID.match(text)
    if not match:
        raise GenerateError(f"not a generated task id: {text!r}")
    if match[2] not in TEMPLATES or match[4] not in set(Operation):
        raise GenerateError(f"no generator for {match[2]} {match[4]}")
    if int(match[1]) != version_of(match[2]):
        raise GenerateError(
            f"not a task id of generator v{GENERATOR_VERSION}: {text!r} (its {match[2]} "
            f"tasks are v{version_of(match[2])})"
        )
    return match[2], Tier(match[3]), Operation(match[4]), int(match[5])


def _draft(resource_type: str, tier: Tier, operation: Operation, rng: random.Random) -> Draft:
    if operation is Operation.create:
        return TEMPLATES[resource_type](rng, tier)
    return OPERATIONS[operation](resource_type, rng, tier)


def generate(
    resource_type: str, tier: Tier, seed: int, operation=Operation.create
) -> GeneratedTask:
    if resource_type not in TEMPLATES:
        raise GenerateError(f"no template for {resource_type!r}; have {sorted(TEMPLATES)}")
    version = version_of(resource_type)
    rng = random.Random(f"generate/v{version}/{resource_type}/{tier}/{operation}/{seed}")
    draft = _draft(resource_type, tier, operation, rng)
    kinds = {o["kind"] for o in draft.objects + draft.fixtures} | set(draft.extra_kinds)
    expected = draft.objects if draft.expected is None else draft.expected
    runtime = any(isinstance(c, RUNTIME_CHECKS) for c in draft.checks)
    return GeneratedTask(
        id=task_id(resource_type, tier, operation, seed),
        generator_version=version,
        seed=seed,
        resource_type=resource_type,
        tier=tier,
        operation=operation,
        prompts=Prompts(full=draft.full, simplified=draft.simplified, terse=draft.terse),
        scenario=draft.scenario,
        fixtures=draft.fixtures,
        identity=identity(operation),
        answer_kinds=sorted(kinds),
        answer_format="command" if draft.command is not None else "manifest",
        expected=[ref(o) for o in expected],
        absent=[ref(o) for o in draft.absent],
        checks=draft.checks,
        reference=dump(draft.objects) if draft.command is None else draft.command,
        mutants=mutants(draft.objects, runtime) if draft.mutants is None else draft.mutants,
    )
