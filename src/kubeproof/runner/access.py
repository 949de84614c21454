"""The agent's identity on the cluster: a ServiceAccount in a namespace of its own, bound
to exactly the rules the task grants, and a token kubeconfig for the sandbox."""

from collections import defaultdict
from pathlib import Path

from lightkube import ApiError

from kubeproof.cluster.base import Cluster
from kubeproof.cluster.kubeconfig import write_token_kubeconfig
from kubeproof.errors import KubeproofError
from kubeproof.tasks import Task

AGENT_NAMESPACE = "kubeproof-agent"
AGENT = "kubeproof-agent"


def _rule(permission) -> dict:
    rule = {
        "apiGroups": permission.api_groups,
        "resources": permission.resources,
        "verbs": permission.verbs,
    }
    if permission.resource_names:
        rule["resourceNames"] = permission.resource_names
    return rule


def identity() -> list[dict]:
    """The agent's namespace and its ServiceAccount (no token mounted anywhere)."""
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": AGENT_NAMESPACE}},
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": AGENT, "namespace": AGENT_NAMESPACE},
            "automountServiceAccountToken": False,
        },
    ]


def manifests(task: Task) -> list[dict]:
    """Namespace, ServiceAccount, and a Role/RoleBinding per namespace (a ClusterRole and
    ClusterRoleBinding for rules without one)."""
    subject = [{"kind": "ServiceAccount", "name": AGENT, "namespace": AGENT_NAMESPACE}]
    docs = identity()
    by_namespace: dict[str | None, list[dict]] = defaultdict(list)
    for permission in task.spec.kubeproof.permissions:
        by_namespace[permission.namespace].append(_rule(permission))
    for namespace, rules in by_namespace.items():
        rbac = "rbac.authorization.k8s.io/v1"
        if namespace is None:
            docs += [
                {
                    "apiVersion": rbac,
                    "kind": "ClusterRole",
                    "metadata": {"name": AGENT},
                    "rules": rules,
                },
                {
                    "apiVersion": rbac,
                    "kind": "ClusterRoleBinding",
                    "metadata": {"name": AGENT},
                    "roleRef": {
                        "apiGroup": "rbac.authorization.k8s.io",
                        "kind": "ClusterRole",
                        "name": AGENT,
                    },
                    "subjects": subject,
                },
            ]
        else:
            meta = {"name": AGENT, "namespace": namespace}
            docs += [
                {"apiVersion": rbac, "kind": "Role", "metadata": meta, "rules": rules},
                {
                    "apiVersion": rbac,
                    "kind": "RoleBinding",
                    "metadata": meta,
                    "roleRef": {
                        "apiGroup": "rbac.authorization.k8s.io",
                        "kind": "Role",
                        "name": AGENT,
                    },
                    "subjects": subject,
                },
            ]
    return docs


def agent_account(task: Task) -> tuple[str, str]:
    """(namespace, name) of the ServiceAccount the agent acts as: kubeproof's own, or the
    one the task's setup made for it (`agent_service_account`, a Harbor import's)."""
    named = task.spec.kubeproof.agent_service_account
    if named:
        namespace, _, name = named.partition("/")
        return namespace, name
    return AGENT_NAMESPACE, AGENT


def agent_user(task: Task) -> str:
    namespace, name = agent_account(task)
    return f"system:serviceaccount:{namespace}:{name}"


def controller_users(task: Task) -> frozenset[str]:
    """The user names of the task's own controllers (`controllers` in task.toml)."""
    accounts = task.spec.kubeproof.controllers
    return frozenset(f"system:serviceaccount:{a.replace('/', ':', 1)}" for a in accounts)


def grant(cluster: Cluster, task: Task, out: Path, ca_pem: bytes) -> Path:
    """Create the agent's identity (unless the task's setup made it) and write its
    kubeconfig to `out`."""
    from lightkube.codecs import from_dict

    client = cluster.client()
    account_ns, account = agent_account(task)
    try:
        if not task.spec.kubeproof.agent_service_account:
            for doc in manifests(task):
                client.apply(from_dict(doc), field_manager="kubeproof-setup", force=True)
    except ApiError as exc:
        raise KubeproofError(f"cannot create the agent's access: {exc.status.message}") from exc
    namespaces = [p.namespace for p in task.spec.kubeproof.permissions if p.namespace]
    if task.spec.kubeproof.agent_service_account:  # its context: its own namespace, as Harbor's
        namespaces = [account_ns]
    lifetime = int(task.spec.agent.timeout_sec + task.spec.kubeproof.setup_timeout_sec + 600)
    return token_kubeconfig(
        cluster, (account_ns, account), lifetime, out, ca_pem, namespaces[0] if namespaces else None
    )


def token_kubeconfig(
    cluster: Cluster,
    account: tuple[str, str],
    lifetime: int,
    out: Path,
    ca_pem: bytes,
    namespace: str | None = None,
) -> Path:
    """A token for the ServiceAccount (namespace, name), valid `lifetime` seconds, written
    as a kubeconfig to `out` whose context defaults to `namespace`."""
    from lightkube.models.authentication_v1 import TokenRequestSpec
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ServiceAccountToken

    account_ns, name = account
    try:
        issued = cluster.client().create(
            ServiceAccountToken(
                metadata=ObjectMeta(name=name, namespace=account_ns),
                spec=TokenRequestSpec(audiences=[], expirationSeconds=lifetime),
            ),
            name,
            namespace=account_ns,
        )
    except ApiError as exc:
        raise KubeproofError(f"cannot create the agent's access: {exc.status.message}") from exc
    return write_token_kubeconfig(
        out,
        cluster=cluster.name,
        server=cluster.server,
        ca_pem=ca_pem,
        user=AGENT,
        token=issued.status.token,
        namespace=namespace,
    )
