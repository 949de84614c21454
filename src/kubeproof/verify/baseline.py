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
    ("apps/v1", "ReplicaSet"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "Pod"),
    ("v1", "PersistentVolumeClaim"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("networking.k8s.io/v1", "NetworkPolicy"),
    ("policy/v1", "PodDisruptionBudget"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("v1", "ServiceAccount"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("v1", "ResourceQuota"),
    ("v1", "LimitRange"),
    ("networking.k8s.io/v1", "Ingress"),
)
CLUSTER_KINDS = (
    ("v1", "Namespace"),
    ("v1", "Node"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
    ("v1", "PersistentVolume"),
    ("storage.k8s.io/v1", "StorageClass"),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
)
# Kinds a verifier may name without an apiVersion (others: "group/version/Kind").
OTHER_KINDS = (
    ("discovery.k8s.io/v1", "EndpointSlice"),
    ("networking.k8s.io/v1", "IngressClass"),
    ("v1", "Endpoints"),
    ("v1", "Event"),
    ("coordination.k8s.io/v1", "Lease"),
    ("scheduling.k8s.io/v1", "PriorityClass"),
)
API_VERSIONS = {kind: version for version, kind in DEFAULT_KINDS + CLUSTER_KINDS + OTHER_KINDS}


def key(kind: str, namespace: str | None, name: str) -> str:
    return f"{kind}/{namespace or ''}/{name}"


def split_key(k: str) -> tuple[str, str | None, str]:
    """(kind, namespace or None, name) of a key; kinds may hold slashes
    ("example.com/v1/Widget"), names and namespaces never do."""
    rest, _, name = k.rpartition("/")
    kind, _, namespace = rest.rpartition("/")
    return kind, namespace or None, name


def split_kind(kind: str) -> tuple[str, str]:
    """("apps/v1", "Deployment") from "Deployment" or "apps/v1/Deployment"."""
    if "/" in kind:
        api_version, _, bare = kind.rpartition("/")
        return api_version, bare
    return API_VERSIONS.get(kind, "v1"), kind


def resource(kind: str):
    """The lightkube resource class of a kind name ("Deployment", "v1/Node",
    "example.com/v1/Widget" once its CRD is known to lightkube)."""
    return resource_registry.load(*split_kind(kind))


@dataclass
class Baseline:
    objects: dict[str, dict] = field(default_factory=dict)
    namespaces: list[str] = field(default_factory=list)
    health: dict[str, int] = field(default_factory=dict)  # see verify/safety.py
    audit_offset: int = 0  # where the audit log stood when the baseline was taken
    # "group/version/Kind" of the custom resources captured (every namespaced CRD's)
    custom_kinds: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.objects and not self.namespaces

    @classmethod
    def capture(cls, client: Client, namespaces: list[str], kinds=DEFAULT_KINDS) -> "Baseline":
        baseline = cls(namespaces=list(namespaces))
        for api_version, kind in kinds:
            res = resource_registry.load(api_version, kind)
            for ns in namespaces:
                for obj in client.list(res, namespace=ns):
                    data = obj.to_dict()
                    baseline.objects[key(kind, ns, data["metadata"]["name"])] = data
        for api_version, kind in CLUSTER_KINDS:
            for obj in client.list(resource_registry.load(api_version, kind)):
                data = obj.to_dict()
                baseline.objects[key(kind, None, data["metadata"]["name"])] = data
        if kinds is DEFAULT_KINDS:
            baseline._capture_custom(client, namespaces)
        return baseline

    def _capture_custom(self, client: Client, namespaces: list[str]) -> None:
        """Custom resources of the task's namespaces are protected like built-in ones: a
        Widget edited to please a controller is a change like any other."""
        from kubeproof.verify.kinds import custom_kinds

        for kind, res in custom_kinds(client):
            self.custom_kinds.append(kind)
            for ns in namespaces:
                for obj in client.list(res, namespace=ns):
                    data = obj.to_dict() if hasattr(obj, "to_dict") else dict(obj)
                    self.objects[key(kind, ns, data["metadata"]["name"])] = data

    def get(self, kind: str, namespace: str | None, name: str) -> dict | None:
        return self.objects.get(key(kind, namespace, name))

    def names(self, kind: str, namespace: str | None) -> set[str]:
        prefix = f"{kind}/{namespace or ''}/"
        return {k[len(prefix) :] for k in self.objects if k.startswith(prefix)}

    def save(self, path: Path) -> None:
        path.write_text(
            json.dumps(
                {
                    "namespaces": self.namespaces,
                    "objects": self.objects,
                    "health": self.health,
                    "audit_offset": self.audit_offset,
                    "custom_kinds": self.custom_kinds,
                }
            )
        )

    @classmethod
    def load(cls, path: Path) -> "Baseline":
        data = json.loads(path.read_text())
        return cls(
            objects=data["objects"],
            namespaces=data["namespaces"],
            health=data.get("health", {}),
            audit_offset=data.get("audit_offset", 0),
            custom_kinds=data.get("custom_kinds", []),
        )
