"""The agent's permissions on a netpol task: what an operator fixing network policies
holds. In each of the topology's namespaces it may read the workloads and change the
NetworkPolicies (create, patch, delete), the Services and the Deployments (patch, update:
a fault can be a Service's targetPort or a container's port name); it may read every
Namespace and relabel the topology's own (a fault can be a renamed namespace label), not
kube-system's, whose labels the next task's setup would not put back. Nothing else: no
exec, no Secrets, no RBAC."""

import contextlib
from pathlib import Path

from lightkube import ApiError
from lightkube.codecs import from_dict
from lightkube.resources.rbac_authorization_v1 import Role, RoleBinding

from kubeproof.cluster.base import Cluster
from kubeproof.errors import KubeproofError
from kubeproof.netpol.topology import Topology, load, names
from kubeproof.runner.access import AGENT, AGENT_NAMESPACE, identity, token_kubeconfig

RBAC = "rbac.authorization.k8s.io/v1"
READ = ["get", "list", "watch"]
NAMESPACED = [
    {
        "apiGroups": ["networking.k8s.io"],
        "resources": ["networkpolicies"],
        "verbs": [*READ, "create", "update", "patch", "delete"],
    },
    {"apiGroups": [""], "resources": ["services"], "verbs": [*READ, "update", "patch"]},
    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": [*READ, "update", "patch"]},
    {"apiGroups": [""], "resources": ["pods", "endpoints"], "verbs": READ},
    {"apiGroups": ["apps"], "resources": ["replicasets"], "verbs": READ},
    {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": READ},
]
LIFETIME = 24 * 3600  # seconds: the token outlives any turn; the trial ends it by deletion


def _bound(kind: str, namespace: str | None, rules: list[dict]) -> list[dict]:
    meta = {"name": AGENT} | ({"namespace": namespace} if namespace else {})
    subject = [{"kind": "ServiceAccount", "name": AGENT, "namespace": AGENT_NAMESPACE}]
    return [
        {"apiVersion": RBAC, "kind": kind, "metadata": meta, "rules": rules},
        {
            "apiVersion": RBAC,
            "kind": f"{kind}Binding",
            "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": AGENT},
            "subjects": subject,
        },
    ]


def manifests(topology: Topology) -> list[dict]:
    """The agent's namespace and ServiceAccount, a Role per topology namespace and a
    ClusterRole for Namespaces."""
    docs = identity()
    names = [ns.name for ns in topology.namespaces]
    for name in names:
        docs += _bound("Role", name, NAMESPACED)
    relabel = {"apiGroups": [""], "resources": ["namespaces"], "resourceNames": names}
    namespaces = [
        {"apiGroups": [""], "resources": ["namespaces"], "verbs": READ},
        relabel | {"verbs": ["update", "patch"]},  # only the topology's own
    ]
    return docs + _bound("ClusterRole", None, namespaces)


def grant(cluster: Cluster, topology: Topology, out: Path) -> Path:
    """The agent's identity for this topology (its roles applied over any earlier task's,
    whose Roles in other topologies' namespaces are deleted) and a kubeconfig for it at
    `out`, defaulting to the topology's first namespace."""
    client = cluster.client()
    others = {ns.name for name in names() for ns in load(name).namespaces} - {
        ns.name for ns in topology.namespaces
    }
    try:
        for namespace in sorted(others):  # an earlier task's topology: no longer the agent's
            for resource in (RoleBinding, Role):
                with contextlib.suppress(ApiError):
                    client.delete(resource, AGENT, namespace=namespace)
        for doc in manifests(topology):
            client.apply(from_dict(doc), field_manager="kubeproof-setup", force=True)
    except ApiError as exc:
        raise KubeproofError(f"cannot create the agent's access: {exc.status.message}") from exc
    namespace = topology.namespaces[0].name
    return token_kubeconfig(
        cluster, (AGENT_NAMESPACE, AGENT), LIFETIME, out, cluster.ca_pem(), namespace
    )
