"""What "ready" means beyond /readyz: the objects every real cluster has before anyone uses
it. A warm start restores them from the snapshot, but the root CA ConfigMaps still carry
the snapshot's CA until the controller manager republishes this cluster's CA."""

from pathlib import Path

from lightkube import ApiError, Client
from lightkube.resources.core_v1 import ConfigMap, Namespace, Node, ServiceAccount
from lightkube.resources.rbac_authorization_v1 import ClusterRole, ClusterRoleBinding

from kubeproof.cluster.addons import dns_unready, proxy_unready

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


def missing_bootstrap(client: Client, ca: Path, nodes: tuple[str, ...] = ()) -> list[str]:
    """What is still missing; empty when the cluster is ready for use."""
    ca_pem = ca.read_text()
    missing = _unready_nodes(client, nodes)
    if nodes and not missing:
        # trials must not start with cluster DNS down (addons.py)
        missing += dns_unready(client, len(nodes)) + proxy_unready(client)
    try:
        client.get(ClusterRole, "cluster-admin")
        client.get(ClusterRoleBinding, "system:kube-controller-manager")
    except ApiError:
        missing.append("bootstrap RBAC")
    existing = {ns.metadata.name for ns in client.list(Namespace)}
    for ns in SYSTEM_NAMESPACES:
        if ns not in existing:
            missing.append(f"namespace {ns}")
            continue
        try:
            client.get(ServiceAccount, "default", namespace=ns)
        except ApiError:
            missing.append(f"serviceaccount {ns}/default")
        try:
            cm = client.get(ConfigMap, "kube-root-ca.crt", namespace=ns)
            if (cm.data or {}).get("ca.crt", "").strip() != ca_pem.strip():
                missing.append(f"configmap {ns}/kube-root-ca.crt with this cluster's CA")
        except ApiError:
            missing.append(f"configmap {ns}/kube-root-ca.crt")
    return missing


def publish_root_ca(client: Client, ca: Path) -> None:
    """Write this cluster's CA into the restored root CA ConfigMaps, as the controller
    manager's root-ca-cert-publisher would a second or so later."""
    patch = {"data": {"ca.crt": ca.read_text()}}
    for ns in SYSTEM_NAMESPACES:
        try:
            client.patch(ConfigMap, "kube-root-ca.crt", patch, namespace=ns)
        except ApiError as exc:
            if exc.status.code != 404:
                raise


def _unready_nodes(client: Client, names: tuple[str, ...]) -> list[str]:
    """Simulated nodes that do not yet take pods: not Ready, or still carrying the
    not-ready taint the admission chain puts on every new node."""
    if not names:
        return []
    nodes = {n.metadata.name: n for n in client.list(Node)}
    missing = []
    for name in names:
        node = nodes.get(name)
        ready = node and any(
            c.type == "Ready" and c.status == "True" for c in (node.status.conditions or [])
        )
        tainted = node and any(
            t.key == "node.kubernetes.io/not-ready" for t in (node.spec.taints or [])
        )
        if not ready or tainted:
            missing.append(f"node {name} ready")
    return missing
