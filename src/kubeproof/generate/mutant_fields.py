"""Mutants that change one checked field to another valid value (a replica too many, a
doubled quantity, another image tag or schedule), so the apiserver still takes the answer
and only the typed checks (S4) can catch it. One table row per (kind, field)."""

import re
from collections.abc import Callable
from typing import Any

_STEP = re.compile(r'([^.\[\]"]+)|\[(\d+)\]|\["([^"]+)"\]')
_QUANTITY = re.compile(r"^(\d+)(\D*)$")


def _bump(value: Any) -> Any:
    return value + 1 if isinstance(value, int) and not isinstance(value, bool) else None


def _double(value: Any) -> Any:
    match = _QUANTITY.match(str(value))
    return f"{int(match[1]) * 2}{match[2]}" if match else None


def _other(*choices: str) -> Callable[[Any], Any]:
    return lambda value: next((c for c in choices if c != value), None)


# (operator, kind, path, change): change returns the new value, None when it does not apply
FIELDS: tuple[tuple[str, str, str, Callable[[Any], Any]], ...] = (
    ("wrong_number", "Deployment", "spec.replicas", _bump),
    ("wrong_quantity", "Deployment",
     "spec.template.spec.containers[0].resources.requests.memory", _double),
    ("wrong_image", "Deployment", "spec.template.spec.containers[0].image",
     _other("nginx:1.25", "nginx:1.24")),
    ("wrong_number", "Service", "spec.ports[0].port", _bump),
    ("wrong_quantity", "PersistentVolumeClaim", "spec.resources.requests.storage", _double),
    ("wrong_number", "PodDisruptionBudget", "spec.minAvailable", _bump),
    ("wrong_number", "PodDisruptionBudget", "spec.maxUnavailable", _other("50%", "10%")),
    ("wrong_number", "HorizontalPodAutoscaler", "spec.maxReplicas", _bump),
    ("wrong_schedule", "CronJob", "spec.schedule", _other("0 3 * * *", "0 4 * * *")),
    ("wrong_image", "CronJob", "spec.jobTemplate.spec.template.spec.containers[0].image",
     _other("busybox:1.35", "busybox:1.34")),
    ("wrong_quantity", "ResourceQuota", 'spec.hard["requests.cpu"]', _double),
    ("wrong_quantity", "LimitRange", "spec.limits[0].default.memory", _double),
    ("wrong_number", "Job", "spec.completions", _bump),
    ("wrong_image", "Job", "spec.template.spec.containers[0].image",
     _other("busybox:1.35", "busybox:1.34")),
    ("wrong_number", "NetworkPolicy", "spec.ingress[0].ports[0].port", _bump),
    ("wrong_value", "NetworkPolicy", "spec.policyTypes", lambda v: ["Egress"]),
)  # fmt: skip


def change(obj: dict, path: str, how: Callable[[Any], Any]) -> bool:
    """Set the field at `path` to `how(old)`; False (nothing changed) when the field is
    missing or `how` does not apply."""
    steps = [name or quoted or int(index) for name, index, quoted in _STEP.findall(path)]
    parent: Any = obj
    for step in steps[:-1]:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return False
    last = steps[-1]
    try:
        new = how(parent[last])
    except (KeyError, IndexError, TypeError):
        return False
    if new is None:
        return False
    parent[last] = new
    return True
