"""RBAC judged by effective permissions: what the apiserver answers to SubjectAccessReviews
over a matrix of verbs and resources, however the Roles and bindings are written."""

from concurrent.futures import ThreadPoolExecutor

from lightkube.codecs import from_dict

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


def _grant(entry: str) -> tuple[str, str]:
    verb, _, resource = entry.strip().partition(" ")
    return verb, resource.strip()


def may(ctx: Context, user: str, verb: str, resource: str, namespace: str | None) -> bool:
    group, res, sub = _split(resource)
    attributes = {"verb": verb, "resource": res, "group": group}
    if sub:
        attributes["subresource"] = sub
    if namespace:
        attributes["namespace"] = namespace
    groups = ["system:authenticated"]
    if user.startswith("system:serviceaccount:"):
        ns = user.split(":")[2]
        groups += ["system:serviceaccounts", f"system:serviceaccounts:{ns}"]
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
def permissions_exact(ctx: Context, user: str, namespace: str | None, allowed: list[str]) -> Result:
    """`permissions_exact(user, namespace, allowed=["list pods", "get apps/deployments"])`:
    the user may do exactly what is listed and nothing else the matrix asks about (every
    verb on common and sensitive resources, plus escalate, bind and impersonate), in the
    namespace (cluster-wide without one). Judged by SubjectAccessReview, so any spelling of
    Roles, ClusterRoles and bindings that grants the same is the same."""
    wanted = {_grant(e) for e in allowed}
    questions = {(v, r) for v in VERBS for r in RESOURCES} | set(SPECIAL) | wanted
    with ThreadPoolExecutor(8) as pool:
        answers = dict(
            zip(
                sorted(questions),
                pool.map(lambda q: may(ctx, user, q[0], q[1], namespace), sorted(questions)),
                strict=True,
            )
        )
    extra = sorted(f"{v} {r}" for (v, r), ok in answers.items() if ok and (v, r) not in wanted)
    lacking = sorted(f"{v} {r}" for (v, r), ok in answers.items() if not ok and (v, r) in wanted)
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
