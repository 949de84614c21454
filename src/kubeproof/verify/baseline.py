"""The baseline: the protected objects as they were before the agent started, captured with
admin credentials and kept in the trial directory, which the sandbox cannot see."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from lightkube import Client
from lightkube.core.resource_registry import resource_registry

DEFAULT_KINDS = (
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "Pod"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("networking.k8s.io/v1", "NetworkPolicy"),
    ("policy/v1", "PodDisruptionBudget"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("v1", "ServiceAccount"),
)


def key(kind: str, namespace: str | None, name: str) -> str:
    return f"{kind}/{namespace or ''}/{name}"


@dataclass
class Baseline:
    objects: dict[str, dict] = field(default_factory=dict)
    namespaces: list[str] = field(default_factory=list)

    @classmethod
    def capture(cls, client: Client, namespaces: list[str], kinds=DEFAULT_KINDS) -> "Baseline":
        baseline = cls(namespaces=list(namespaces))
        for api_version, kind in kinds:
            resource = resource_registry.load(api_version, kind)
            for ns in namespaces:
                for obj in client.list(resource, namespace=ns):
                    data = obj.to_dict()
                    baseline.objects[key(kind, ns, data["metadata"]["name"])] = data
        return baseline

    def get(self, kind: str, namespace: str | None, name: str) -> dict | None:
        return self.objects.get(key(kind, namespace, name))

    def names(self, kind: str, namespace: str) -> set[str]:
        prefix = f"{kind}/{namespace}/"
        return {k[len(prefix) :] for k in self.objects if k.startswith(prefix)}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"namespaces": self.namespaces, "objects": self.objects}))

    @classmethod
    def load(cls, path: Path) -> "Baseline":
        data = json.loads(path.read_text())
        return cls(objects=data["objects"], namespaces=data["namespaces"])
