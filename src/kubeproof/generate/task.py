"""One generated task from (resource type, tier, operation, seed): the template's draft, the
evaluation identity, the reference answer and its mutants. The id names all four, so any
task can be made again alone; the random source is private to the task (never global)."""

import random
import re

from kubeproof.generate.draft import RBAC_GROUP, ref
from kubeproof.generate.errors import GenerateError
from kubeproof.generate.model import (
    EvaluationIdentity,
    GeneratedTask,
    Operation,
    Prompts,
    Rule,
    Tier,
)
from kubeproof.generate.mutants import dump, mutants
from kubeproof.generate.templates import TEMPLATES

# v2: a misnamed Namespace's objects move with it (wrong_name failed at S2, not S3)
GENERATOR_VERSION = 2
_ID = re.compile(r"^generate-v(\d+)-([a-z]+)-(easy|intermediate|advanced)-([a-z]+)-(\d+)$")
_WRITE = ["get", "list", "watch", "create", "update", "patch", "delete"]


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


def identity() -> EvaluationIdentity:
    """The evaluation ServiceAccount of the CREATE tasks, one for every task so a worker
    makes it once: may write the kinds the tasks ask for, and holds escalate and bind, so
    any well-formed RBAC applies (KubeBench does not say what its evaluator held;
    docs/generate.md)."""
    rules = [Rule(apiGroups=[g], resources=r, verbs=_WRITE) for g, r in WRITABLE.items()]
    rules.append(
        Rule(
            apiGroups=[RBAC_GROUP], resources=["roles", "clusterroles"], verbs=["escalate", "bind"]
        )
    )
    return EvaluationIdentity(
        profile="escalate-allowed",
        namespace="kubeproof-eval",
        name="evaluator",
        rules=rules,
        escalate=True,
        bind=True,
    )


def task_id(resource_type: str, tier: Tier, operation: Operation, seed: int) -> str:
    return f"generate-v{GENERATOR_VERSION}-{resource_type}-{tier}-{operation}-{seed}"


def parse_id(text: str) -> tuple[str, Tier, Operation, int]:
    """(type, tier, operation, seed) of a task id of this generator version."""
    match = _ID.match(text)
    if not match or int(match[1]) != GENERATOR_VERSION:
        raise GenerateError(f"not a task id of generator v{GENERATOR_VERSION}: {text!r}")
    if match[2] not in TEMPLATES or match[4] not in set(Operation):
        raise GenerateError(f"no generator for {match[2]} {match[4]}")
    return match[2], Tier(match[3]), Operation(match[4]), int(match[5])


def generate(
    resource_type: str, tier: Tier, seed: int, operation=Operation.create
) -> GeneratedTask:
    if operation is not Operation.create:
        raise GenerateError(f"{operation} tasks are not generated yet")
    template = TEMPLATES.get(resource_type)
    if template is None:
        raise GenerateError(f"no template for {resource_type!r}; have {sorted(TEMPLATES)}")
    rng = random.Random(f"generate/v{GENERATOR_VERSION}/{resource_type}/{tier}/{operation}/{seed}")
    draft = template(rng, tier)
    kinds = {o["kind"] for o in draft.objects + draft.fixtures} | set(draft.extra_kinds)
    return GeneratedTask(
        id=task_id(resource_type, tier, operation, seed),
        generator_version=GENERATOR_VERSION,
        seed=seed,
        resource_type=resource_type,
        tier=tier,
        operation=operation,
        prompts=Prompts(full=draft.full, simplified=draft.simplified, terse=draft.terse),
        scenario=draft.scenario,
        fixtures=draft.fixtures,
        identity=identity(),
        answer_kinds=sorted(kinds),
        expected=[ref(o) for o in draft.objects],
        checks=draft.checks,
        reference=dump(draft.objects),
        mutants=mutants(draft.objects),
    )
