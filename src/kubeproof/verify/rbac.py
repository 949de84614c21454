"""RBAC judged by effective permissions: what the apiserver answers to SubjectAccessReviews
over a matrix of verbs and resources, however the Roles and bindings are written."""

from concurrent.futures import ThreadPoolExecutor

from lightkube import ApiError
from lightkube.codecs import from_dict
from lightkube.resources.rbac_authorization_v1 import (
    ClusterRole,
    ClusterRoleBinding,
    Role,
    RoleBinding,
)

from kubeproof.verify.registry import Context, contract
from kubeproof.verify.result import Result

VERBS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
# What an over-broad grant usually reaches: the sensitive and the everyday.
RESOURCES = (
    "pods",
    "pods/log",
    "pods/exec",
    "pods/attach",
    "pods/portforward",
    "pods/eviction",
    "secrets",
    "configmaps",
    "services",
    "endpoints",
    "serviceaccounts",
    "serviceaccounts/token",
    "persistentvolumeclaims",
    "events",
    "apps/deployments",
    "apps/deployments/scale",
    "apps/replicasets",
    "apps/statefulsets",
    "apps/daemonsets",
    "batch/jobs",
    "batch/cronjobs",
    "networking.k8s.io/networkpolicies",
    "policy/poddisruptionbudgets",
    "rbac.authorization.k8s.io/roles",
    "rbac.authorization.k8s.io/rolebindings",
    "autoscaling/horizontalpodautoscalers",
)
# Verbs that are privileges in themselves, asked about where they apply.
SPECIAL = (
    ("escalate", "rbac.authorization.k8s.io/roles"),
    ("bind", "rbac.authorization.k8s.io/roles"),
    ("bind", "rbac.authorization.k8s.io/clusterroles"),
    ("impersonate", "serviceaccounts"),
    ("impersonate", "users"),
    ("impersonate", "groups"),
)


def _split(resource: str) -> tuple[str, str, str]:
    """(group, resource, subresource) from "pods/log", "apps/deployments/scale"."""
    parts = resource.split("/")
    if "." in parts[0] or parts[0] in ("apps", "batch", "policy", "autoscaling"):
        group, rest = parts[0], parts[1:]
    else:
        group, rest = "", parts
    return group, rest[0], rest[1] if len(rest) > 1 else ""


Question = tuple[str, str, str]  # verb, resource, resourceName ("" for any name)


def _grant(entry: str) -> Question:
    """("get", "configmaps", "prices") from "get configmaps prices"; the name is optional."""
    parts = entry.split()
    if len(parts) not in (2, 3):
        raise ValueError(f"{entry!r}: write a grant as 'verb resource' or 'verb resource name'")
    return parts[0], parts[1], parts[2] if len(parts) == 3 else ""


def _show(q: Question) -> str:
    return f"{q[0]} {q[1]}{' ' + q[2] if q[2] else ''}"


def _groups(user: str) -> list[str]:
    groups = ["system:authenticated"]
    if user.startswith("system:serviceaccount:"):
        ns = user.split(":")[2]
        groups += ["system:serviceaccounts", f"system:serviceaccounts:{ns}"]
    return groups


def _binds(binding, user: str) -> bool:
    for subject in binding.subjects or []:
        if subject.kind == "User" and subject.name == user:
            return True
        if subject.kind == "Group" and subject.name in _groups(user):
            return True
        if subject.kind == "ServiceAccount":
            ns = subject.namespace or binding.metadata.namespace
            if user == f"system:serviceaccount:{ns}:{subject.name}":
                return True
    return False


def named_grants(ctx: Context, user: str, namespace: str | None) -> set[Question]:
    """The (verb, resource, name) questions the rules bound to the user name: a grant on
    one object by name answers no to a question about any name, so the matrix alone would
    never see it."""
    bindings = list(ctx.client.list(ClusterRoleBinding))
    if namespace:
        bindings += list(ctx.client.list(RoleBinding, namespace=namespace))
    found: set[Question] = set()
    for binding in bindings:
        if not _binds(binding, user):
            continue
        ref = binding.roleRef
        try:
            if ref.kind == "Role":
                role = ctx.client.get(Role, ref.name, namespace=binding.metadata.namespace)
            else:
                role = ctx.client.get(ClusterRole, ref.name)
        except ApiError:
            continue  # a binding to a role that does not exist grants nothing
        for rule in role.rules or []:
            for verb in rule.verbs or []:
                for group in rule.apiGroups or [""]:
                    for res in rule.resources or []:
                        for name in rule.resourceNames or []:
                            for v in VERBS if verb == "*" else (verb,):
                                qualified = f"{group}/{res}" if group not in ("", "*") else res
                                found.add((v, qualified, name))
    return found


def may(
    ctx: Context, user: str, verb: str, resource: str, namespace: str | None, name: str = ""
) -> bool:
    group, res, sub = _split(resource)
    attributes = {"verb": verb, "resource": res, "group": group}
    if sub:
        attributes["subresource"] = sub
    if namespace:
        attributes["namespace"] = namespace
    if name:
        attributes["name"] = name
    groups = _groups(user)
    review = ctx.client.create(
        from_dict(
            {
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SubjectAccessReview",
                "spec": {"user": user, "groups": groups, "resourceAttributes": attributes},
            }
        )
    )
    return bool(review.status.allowed)


@contract
def permissions_exact(
    ctx: Context,
    user: str,
    namespace: str | None,
    allowed: list[str],
    optional: list[str] | None = None,
) -> Result:
    """`permissions_exact(user, namespace, allowed=["list pods", "get configmaps prices"])`:
    the user may do exactly what is listed (a third word names one object) and nothing else
    the matrix asks about (every verb on common and sensitive resources, escalate, bind and
    impersonate, and every object a rule bound to the user grants by name), in the
    namespace (cluster-wide without one); `optional` grants may be there or not. Judged by
    SubjectAccessReview, so any spelling of Roles, ClusterRoles and bindings that grants
    the same is the same."""
    wanted = {_grant(e) for e in allowed}
    either = {_grant(e) for e in optional or []}
    questions = (
        {(v, r, "") for v in VERBS for r in RESOURCES}
        | {(v, r, "") for v, r in SPECIAL}
        | wanted
        | either
        | named_grants(ctx, user, namespace)
    )
    order = sorted(questions)
    with ThreadPoolExecutor(8) as pool:
        answers = dict(
            zip(
                order,
                pool.map(lambda q: may(ctx, user, q[0], q[1], namespace, q[2]), order),
                strict=True,
            )
        )

    def covered(q: Question) -> bool:  # a grant for any name covers each name
        return any(w in wanted | either for w in (q, (q[0], q[1], "")))

    extra = sorted(_show(q) for q, ok in answers.items() if ok and not covered(q))
    lacking = sorted(_show(q) for q, ok in answers.items() if not ok and q in wanted)
    where = f"in {namespace}" if namespace else "cluster-wide"
    parts = ([f"may also {', '.join(extra[:8])}"] if extra else []) + (
        [f"may not {', '.join(lacking)}"] if lacking else []
    )
    return Result(
        f"permissions_exact {user} {where}",
        not parts,
        "; ".join(parts)
        or f"exactly the {len(wanted)} permission(s) wanted, of {len(answers)} asked",
    )
