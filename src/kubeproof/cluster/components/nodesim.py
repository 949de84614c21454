"""The node simulator: our Python process playing the kubelet of every simulated node
(see kubeproof.nodesim). It runs only when the cluster has nodes.

Two kinds of identity, both least privilege. Each simulated kubelet writes as its node,
`system:node:<name>` in `system:nodes`, so the Node authorizer and NodeRestriction bound
it to its own Node, Lease, pods and their Events, as a real kubelet. The simulator's own
identity, `kubeproof:nodesim`, is bound to `RULES`: exactly the API calls it makes
(kubeproof/nodesim: world.py watches, claims and volumes included, kubelet.py pod and node
watches and the
SubjectAccessReviews behind a workload's API calls in access.py, nodes.py registering a
Node — NodeRestriction would refuse a kubelet's own node-role labels — and metrics.py
registering metrics.k8s.io) and, for an ingress-nginx controller pod it runs, the
status of the Ingresses of its class (ingressstatus.py). It never writes a workload, a
Secret or RBAC."""

import sys

from kubeproof.cluster.audit import NODESIM_USER
from kubeproof.cluster.components import Component, Context

NAME = NODESIM_USER
RBAC = "rbac.authorization.k8s.io"
READ = ["list", "watch"]
RULES = [
    {
        "apiGroups": [""],
        "resources": ["pods", "nodes", "secrets", "configmaps", "services", "namespaces"],
        "verbs": READ,
    },
    # where a pod's claims keep their files, for scripts that run for real (volumedirs.py)
    {
        "apiGroups": [""],
        "resources": ["persistentvolumeclaims", "persistentvolumes"],
        "verbs": READ,
    },
    {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": READ},
    {
        "apiGroups": ["networking.k8s.io"],
        "resources": ["networkpolicies", "ingresses", "ingressclasses"],
        "verbs": READ,
    },
    # acting for an ingress-nginx controller pod it runs (nodesim/ingressstatus.py)
    {"apiGroups": ["networking.k8s.io"], "resources": ["ingresses"], "verbs": ["get"]},
    {"apiGroups": ["networking.k8s.io"], "resources": ["ingresses/status"], "verbs": ["update"]},
    {"apiGroups": [""], "resources": ["nodes"], "verbs": ["create"]},
    {
        "apiGroups": ["authorization.k8s.io"],
        "resources": ["subjectaccessreviews"],
        "verbs": ["create"],
    },
    {"apiGroups": ["apiregistration.k8s.io"], "resources": ["apiservices"], "verbs": ["create"]},
]
# the metrics API's ExternalName Service lives in kube-system: a Role there, not cluster-wide
KUBE_SYSTEM_RULES = [{"apiGroups": [""], "resources": ["services"], "verbs": ["create"]}]


def _granted(kind: str, metadata: dict, rules: list[dict]) -> list[dict]:
    """A Role or ClusterRole and its binding to the simulator's user."""
    version = f"{RBAC}/v1"
    return [
        {"apiVersion": version, "kind": kind, "metadata": metadata, "rules": rules},
        {
            "apiVersion": version,
            "kind": f"{kind}Binding",
            "metadata": metadata,
            "roleRef": {"apiGroup": RBAC, "kind": kind, "name": NAME},
            "subjects": [{"apiGroup": RBAC, "kind": "User", "name": NODESIM_USER}],
        },
    ]


def rbac() -> list[dict]:
    """The simulator's ClusterRole and Role with their bindings (applied by the cluster
    before it starts the simulator)."""
    meta = {"name": NAME, "labels": {"app.kubernetes.io/managed-by": "kubeproof"}}
    return _granted("ClusterRole", meta, RULES) + _granted(
        "Role", {**meta, "namespace": "kube-system"}, KUBE_SYSTEM_RULES
    )


def component(ctx: Context) -> Component:
    return Component(
        name="nodesim",
        argv=[sys.executable, "-m", "kubeproof.nodesim", f"--state-dir={ctx.layout.root}"],
        health_url=f"{ctx.url('kubelet')}/healthz",
        health_cert=(ctx.layout.cert("admin"), ctx.layout.key("admin")),
        env={"PYTHONUNBUFFERED": "1"},
    )
