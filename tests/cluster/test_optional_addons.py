"""The optional addons without a cluster: by name, in a task's `addons`, and the
local-path-provisioner's writes counted as the system's, not the agent's."""

import pytest
from pydantic import ValidationError

from kubeproof.cluster import audit
from kubeproof.cluster.addons import OPTIONAL, optional
from kubeproof.errors import KubeproofError
from kubeproof.tasks.model import Kubeproof

BASE = {
    "title": "t",
    "area": "storage",
    "difficulty": "easy",
    "canary": "6f1d2c3a-4b5e-4f60-8a7b-9c0d1e2f3a4b",
    "permissions": [{"namespace": "shop", "resources": ["pods"], "verbs": ["get"]}],
}


def test_every_optional_addon_has_a_manifest_of_kinds_it_creates():
    kinds = {name: [o.kind for o in optional(name).objects()] for name in OPTIONAL}
    assert "IngressClass" in kinds["ingress-nginx"]
    assert kinds["local-path"] == [
        "Namespace", "ServiceAccount", "Role", "ClusterRole", "RoleBinding",
        "ClusterRoleBinding", "Deployment", "StorageClass", "ConfigMap",
    ]  # fmt: skip
    with pytest.raises(KubeproofError, match="unknown addon 'nfs'"):
        optional("nfs")


def test_a_task_names_its_addons():
    assert Kubeproof(**BASE).addons == []
    assert Kubeproof(**BASE, addons=["local-path"]).addons == ["local-path"]
    with pytest.raises(ValidationError):
        Kubeproof(**BASE, addons=["nfs"])


def _event(user: str) -> dict:
    return {"user": {"username": user, "groups": ["system:serviceaccounts"]}, "verb": "create"}


def test_the_provisioner_writes_are_the_system_s():
    provisioner = "system:serviceaccount:local-path-storage:local-path-provisioner-service-account"
    assert not audit.attributed_to_agent(_event(provisioner))
    # another account in the same namespace is not
    assert audit.attributed_to_agent(_event("system:serviceaccount:local-path-storage:default"))
