"""Parametric templates, one function per resource type taking (rng, tier) to a Draft."""

from collections.abc import Callable
from random import Random

from kubeproof.generate.draft import Draft
from kubeproof.generate.model import Tier
from kubeproof.generate.templates.bindings import clusterrolebinding_task, rolebinding_task
from kubeproof.generate.templates.config import configmap_task, secret_task
from kubeproof.generate.templates.roles import clusterrole_task, role_task
from kubeproof.generate.templates.scope import namespace_task, serviceaccount_task

Template = Callable[[Random, Tier], Draft]

# KubeBench's eight CREATE types, in its order
TEMPLATES: dict[str, Template] = {
    "clusterrole": clusterrole_task,
    "clusterrolebinding": clusterrolebinding_task,
    "configmap": configmap_task,
    "namespace": namespace_task,
    "role": role_task,
    "rolebinding": rolebinding_task,
    "secret": secret_task,
    "serviceaccount": serviceaccount_task,
}
