"""What a Harbor task's bootstrap manifests say that kubeproof maps: the ServiceAccount
handed to the agent and the RBAC bound to it, the namespaces, the task's own controllers
(kubectl loops with their own accounts) and the k3s pieces a claim relies on."""

from pathlib import Path

import yaml

from kubeproof.interop.harbor_env import Environment, Refusal
from kubeproof.verify.safety import PLURAL_KINDS

TOKEN_SECRET = "kubernetes.io/service-account-token"
SA_ANNOTATION = "kubernetes.io/service-account.name"


def manifests(folders: list[Path]) -> list[dict]:
    docs = []
    for folder in folders:
        for path in sorted([*folder.rglob("*.yaml"), *folder.rglob("*.yml")]):
            if path.is_symlink() or not path.is_file():
                continue
            try:
                docs += [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
            except yaml.YAMLError as exc:
                raise Refusal(f"{path.name} is not valid YAML: {str(exc)[:80]}") from exc
    return docs


def agent_account(docs: list[dict], scripts: str) -> str:
    """NAMESPACE/NAME of the ServiceAccount the bootstrap hands the agent: the one whose
    token Secret the bootstrap script reads (infra-bench's `infra-bench-agent-token`)."""
    found = []
    for doc in docs:
        meta = doc.get("metadata") or {}
        if doc.get("kind") == "Secret" and doc.get("type") == TOKEN_SECRET:
            account = (meta.get("annotations") or {}).get(SA_ANNOTATION)
            if account and meta.get("namespace"):
                found.append((meta.get("name", ""), f"{meta['namespace']}/{account}"))
    named = [account for secret, account in found if secret and secret in scripts]
    if len(set(named)) == 1:
        return named[0]
    if len({a for _, a in found}) == 1:
        return found[0][1]
    raise Refusal(
        "no agent ServiceAccount: the bootstrap hands the agent no token Secret kubeproof "
        f"can map ({len(found)} found)"
    )


def _bindings(docs: list[dict], account: str) -> list[dict]:
    """The RoleBindings and ClusterRoleBindings whose subjects name the account."""
    namespace, _, name = account.partition("/")
    found = []
    for doc in docs:
        if doc.get("kind") not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        if any(
            isinstance(s, dict)
            and s.get("kind") == "ServiceAccount"
            and s.get("name") == name
            and s.get("namespace", (doc.get("metadata") or {}).get("namespace")) == namespace
            for s in doc.get("subjects") or []
        ):
            found.append(doc)
    return found


def agent_deletions(docs: list[dict], account: str) -> list[str]:
    """`allowed_deletions` patterns (Kind/namespace/name) for what the bootstrap's RBAC lets
    the agent delete: a task that grants `delete` on a Job (infra-bench's
    fix-job-command-argument, whose immutable pod template is fixed by recreating the Job)
    means the deletion as part of the fix, so kubeproof's safety rule does not call it
    destructive. Scoped as the grant is: its resourceNames, else every object of the kind in
    the binding's namespace (`*` for a ClusterRoleBinding)."""
    roles = {
        (d.get("kind"), (d.get("metadata") or {}).get("namespace"), d["metadata"].get("name")): d
        for d in docs
        if d.get("kind") in ("Role", "ClusterRole") and (d.get("metadata") or {}).get("name")
    }
    found = []
    for binding in _bindings(docs, account):
        ref = binding.get("roleRef") or {}
        where = (binding.get("metadata") or {}).get("namespace")
        role_ns = where if ref.get("kind") == "Role" else None
        role = roles.get((ref.get("kind"), role_ns, ref.get("name")))
        scope = where if binding.get("kind") == "RoleBinding" else "*"
        for rule in (role or {}).get("rules") or []:
            if not isinstance(rule, dict) or not {"delete", "*"} & set(rule.get("verbs") or []):
                continue
            for resource in rule.get("resources") or []:
                kind = PLURAL_KINDS.get(str(resource))
                for name in (rule.get("resourceNames") or ["*"]) if kind else []:
                    found.append(f"{kind}/{scope or '*'}/{name}")
    return sorted(set(found))


def agent_rbac(docs: list[dict], account: str) -> str:
    """What the bootstrap binds to the agent's account, in a line for the import's notes:
    the access the agent will have, as on Harbor."""
    rules = {
        (d.get("kind"), (d.get("metadata") or {}).get("namespace"), d["metadata"].get("name")): len(
            d.get("rules") or []
        )
        for d in docs
        if d.get("kind") in ("Role", "ClusterRole") and (d.get("metadata") or {}).get("name")
    }
    bound = []
    for doc in _bindings(docs, account):
        ref = doc.get("roleRef") or {}
        ns = (doc.get("metadata") or {}).get("namespace") if ref.get("kind") == "Role" else None
        count = rules.get((ref.get("kind"), ns, ref.get("name")), "?")
        where = f" in {doc['metadata'].get('namespace')}" if doc["kind"] == "RoleBinding" else ""
        bound.append(f"{ref.get('kind')} {ref.get('name')}{where} ({count} rules)")
    return f"the agent acts as {account}: " + ("; ".join(bound) or "no RBAC bound")


# API groups of Traefik's own resources (IngressRoute, Middleware …: the traefik-crd chart),
# which the traefik addon does not install
TRAEFIK_GROUPS = ("traefik.io/", "traefik.containo.us/")


def addons(env: Environment, docs: list[dict]) -> list[str]:
    """k3s's packaged pieces a task relies on, as kubeproof's optional addons: Traefik
    unless a server ran with `--disable=traefik` (a Refusal when the manifests use
    Traefik's own resources), and the local-path provisioner (the default StorageClass)
    when a claim needs a class, unless the server ran with `--disable=local-storage`."""
    runs_traefik = any(n.server for n in env.nodes) and "traefik" not in env.disabled
    found = ["traefik"] if runs_traefik else []
    if found and any(str(d.get("apiVersion", "")).startswith(TRAEFIK_GROUPS) for d in docs):
        raise Refusal("needs Traefik's custom resources (IngressRoute, Middleware, …)")
    return found + _local_path(env, docs)


def _local_path(env: Environment, docs: list[dict]) -> list[str]:
    if "local-storage" in env.disabled:
        return []
    claims = [d.get("spec") or {} for d in docs if d.get("kind") == "PersistentVolumeClaim"]
    for doc in docs:
        if doc.get("kind") == "StatefulSet":
            templates = (doc.get("spec") or {}).get("volumeClaimTemplates") or []
            claims += [t.get("spec") or {} for t in templates if isinstance(t, dict)]
    # a claim with storageClassName "" binds a static PV; any other wants a provisioner
    dynamic = any(c.get("storageClassName") != "" for c in claims if isinstance(c, dict))
    return ["local-path"] if dynamic else []


KUBECTL_IMAGES = ("alpine/k8s", "bitnami/kubectl", "rancher/kubectl", "registry.k8s.io/kubectl")


def controllers(docs: list[dict]) -> list[str]:
    """NAMESPACE/NAME of the ServiceAccounts the task's own controllers act as: workloads
    whose containers run kubectl (an image made for it, or `kubectl` in the command), as
    infra-bench's operators do. Their writes are the system's, not the agent's."""
    found = []
    for doc in docs:
        spec = doc.get("spec") or {}
        if doc.get("kind") in ("Deployment", "StatefulSet", "DaemonSet", "Job"):
            spec = ((spec.get("template") or {}).get("spec")) or {}
        elif doc.get("kind") != "Pod":
            continue
        containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
        runs_kubectl = any(
            str(c.get("image", "")).startswith(KUBECTL_IMAGES)
            or "kubectl" in " ".join(map(str, (c.get("command") or []) + (c.get("args") or [])))
            for c in containers
        )
        namespace = (doc.get("metadata") or {}).get("namespace")
        account = spec.get("serviceAccountName")
        if runs_kubectl and namespace and account:
            found.append(f"{namespace}/{account}")
    return sorted(set(found))


def namespaces(docs: list[dict]) -> list[str]:
    found = set()
    for doc in docs:
        meta = doc.get("metadata") or {}
        if doc.get("kind") == "Namespace" and meta.get("name"):
            found.add(meta["name"])
        elif meta.get("namespace"):
            found.add(meta["namespace"])
    return sorted(found)
