"""Contracts: was the shape of the task respected — the same objects (not deleted and
recreated), no replacements or bare pods, fields the task said to keep, least privilege."""

from lightkube import ApiError, Client
from lightkube.core.resource_registry import resource_registry
from lightkube.resources.core_v1 import Pod
from lightkube.resources.rbac_authorization_v1 import ClusterRole, Role

from kubeproof.verify.baseline import Baseline
from kubeproof.verify.fields import get_path, missing
from kubeproof.verify.result import Result

_VERSIONS = {
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "Job": "batch/v1",
    "CronJob": "batch/v1",
    "Role": "rbac.authorization.k8s.io/v1",
    "RoleBinding": "rbac.authorization.k8s.io/v1",
    "NetworkPolicy": "networking.k8s.io/v1",
    "PodDisruptionBudget": "policy/v1",
}


def _resource(kind: str):
    return resource_registry.load(_VERSIONS.get(kind, "v1"), kind)


def _current(client: Client, kind: str, namespace: str | None, name: str) -> dict | None:
    try:
        return client.get(_resource(kind), name, namespace=namespace).to_dict()
    except ApiError as exc:
        if exc.status.code == 404:
            return None
        raise


def uid_preserved(
    client: Client, baseline: Baseline, kind: str, namespace: str, name: str
) -> Result:
    contract = f"uid_preserved {kind} {namespace}/{name}"
    before = baseline.get(kind, namespace, name)
    if before is None:
        return Result(contract, False, "not in the baseline", "contract")
    now = _current(client, kind, namespace, name)
    if now is None:
        return Result(contract, False, "deleted", "contract")
    same = now["metadata"]["uid"] == before["metadata"]["uid"]
    return Result(
        contract,
        same,
        "same object" if same else "deleted and recreated (the UID changed)",
        "contract",
    )


def exact_resource_set(client: Client, baseline: Baseline, kind: str, namespace: str) -> Result:
    contract = f"exact_resource_set {kind} in {namespace}"
    before = baseline.names(kind, namespace)
    now = {o.metadata.name for o in client.list(_resource(kind), namespace=namespace)}
    added, removed = sorted(now - before), sorted(before - now)
    parts = ([f"added {', '.join(added)}"] if added else []) + (
        [f"removed {', '.join(removed)}"] if removed else []
    )
    return Result(contract, not parts, "; ".join(parts) or f"the same {len(now)}", "contract")


def no_bare_pods(client: Client, namespace: str) -> Result:
    bare = [
        p.metadata.name
        for p in client.list(Pod, namespace=namespace)
        if not p.metadata.ownerReferences and p.metadata.deletionTimestamp is None
    ]
    return Result(
        f"no_bare_pods in {namespace}",
        not bare,
        f"pods without an owner: {', '.join(sorted(bare))}" if bare else "every pod has an owner",
        "contract",
    )


def fields_unchanged(
    client: Client, baseline: Baseline, kind: str, namespace: str, name: str, paths: list[str]
) -> Result:
    contract = f"fields_unchanged {kind} {namespace}/{name}"
    before = baseline.get(kind, namespace, name)
    now = _current(client, kind, namespace, name)
    if before is None or now is None:
        return Result(contract, False, "missing from the baseline or the cluster", "contract")
    changed = []
    for path in paths:
        old, new = get_path(before, path), get_path(now, path)
        if (None if missing(old) else old) != (None if missing(new) else new):
            changed.append(
                f"{path}: {old if not missing(old) else '<unset>'} -> "
                f"{new if not missing(new) else '<unset>'}"
            )
    return Result(contract, not changed, "; ".join(changed) or "unchanged", "contract")


def rbac_no_wildcards(client: Client, namespace: str | None = None) -> Result:
    """No Role in the namespace (or ClusterRole, without one) grants `*` verbs, resources or
    API groups; bootstrap `system:` roles and cluster-admin are not the agent's doing."""
    resource = Role if namespace else ClusterRole
    scope = {"namespace": namespace} if namespace else {}
    offenders = []
    for role in client.list(resource, **scope):
        name = role.metadata.name
        if name.startswith("system:") or name in ("cluster-admin", "admin", "edit", "view"):
            continue
        for rule in role.rules or []:
            if "*" in (rule.verbs or []) + (rule.resources or []) + (rule.apiGroups or []):
                offenders.append(name)
                break
    where = f"in {namespace}" if namespace else "cluster-wide"
    return Result(
        f"rbac_no_wildcards {where}",
        not offenders,
        f"wildcard rules in {', '.join(sorted(offenders))}" if offenders else "no wildcard rules",
        "contract",
    )
