"""Parametric templates, one function per resource type taking (rng, tier) to a Draft."""

from collections.abc import Callable
from random import Random

from kubeproof.generate.draft import Draft
from kubeproof.generate.model import Tier
from kubeproof.generate.templates.bindings import clusterrolebinding_task, rolebinding_task
from kubeproof.generate.templates.config import configmap_task, secret_task
from kubeproof.generate.templates.netpolicy import networkpolicy_task
from kubeproof.generate.templates.quotas import resourcequota_task
from kubeproof.generate.templates.roles import clusterrole_task, role_task
from kubeproof.generate.templates.schedules import cronjob_task, hpa_task, job_task
from kubeproof.generate.templates.scope import namespace_task, serviceaccount_task
from kubeproof.generate.templates.workloads import (
    deployment_task,
    pdb_task,
    pvc_task,
    service_task,
)

Template = Callable[[Random, Tier], Draft]

# KubeBench's eight CREATE types, in its order
KUBEBENCH_TYPES = (
    "clusterrole",
    "clusterrolebinding",
    "configmap",
    "namespace",
    "role",
    "rolebinding",
    "secret",
    "serviceaccount",
)
# what operators write every day beyond those
EVERYDAY_TYPES = ("deployment", "service", "networkpolicy", "poddisruptionbudget",
                  "horizontalpodautoscaler", "job", "cronjob", "resourcequota",
                  "persistentvolumeclaim")  # fmt: skip

TEMPLATES: dict[str, Template] = {
    "clusterrole": clusterrole_task,
    "clusterrolebinding": clusterrolebinding_task,
    "configmap": configmap_task,
    "namespace": namespace_task,
    "role": role_task,
    "rolebinding": rolebinding_task,
    "secret": secret_task,
    "serviceaccount": serviceaccount_task,
    "deployment": deployment_task,
    "service": service_task,
    "persistentvolumeclaim": pvc_task,
    "poddisruptionbudget": pdb_task,
    "horizontalpodautoscaler": hpa_task,
    "cronjob": cronjob_task,
    "job": job_task,
    "networkpolicy": networkpolicy_task,
    "resourcequota": resourcequota_task,
}
