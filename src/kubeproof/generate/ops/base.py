"""What the UPDATE, DELETE and COMMAND templates share: the live world a task starts from
(a CREATE draft's objects made fixtures), how an object is named in a request, and the
mutant record."""

import json
import random

from kubeproof.generate import yamltext
from kubeproof.generate.draft import Draft, ref
from kubeproof.generate.model import Mutant, Stage, Tier
from kubeproof.generate.templates import TEMPLATES

SHORT = {"Deployment": "deploy", "ConfigMap": "cm", "Secret": "secret", "Namespace": "ns",
         "ServiceAccount": "sa", "Role": "role", "RoleBinding": "rb",
         "ClusterRole": "clusterrole", "ClusterRoleBinding": "crb", "Service": "svc",
         "PersistentVolumeClaim": "pvc", "PodDisruptionBudget": "pdb",
         "HorizontalPodAutoscaler": "hpa", "CronJob": "cronjob", "Job": "job",
         "NetworkPolicy": "netpol", "ResourceQuota": "quota", "LimitRange": "limits"}  # fmt: skip
COUNTS = {Tier.easy: 1, Tier.intermediate: 2, Tier.advanced: 3}


def copy(value):
    return json.loads(json.dumps(value))


def live(obj: dict) -> dict:
    """An object as a fixture: without `immutable`, which would forbid every change asked."""
    out = copy(obj)
    out.pop("immutable", None)
    return out


def base(resource_type: str, rng: random.Random, tier: Tier) -> Draft:
    """The CREATE draft of the same type and tier, drawn from the task's own rng: its
    reference objects are what is live before the answer."""
    return TEMPLATES[resource_type](rng, tier)


def where(obj: dict) -> str:
    ns = obj["metadata"].get("namespace")
    return f" in namespace {ns}" if ns else ""


def flag(obj: dict) -> str:
    ns = obj["metadata"].get("namespace")
    return f" -n {ns}" if ns else ""


def manifest(obj: dict) -> str:
    return yamltext.dump_all([obj])


def mutant(operator: str, stage: Stage, target: dict, path: str, answer: str, document=0):
    return Mutant(
        operator=operator,
        fails_at=stage,
        target=ref(target),
        document=document,
        path=path,
        answer=answer,
    )
