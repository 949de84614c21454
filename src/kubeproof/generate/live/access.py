"""Permission matrices asked of the apiserver: each cell a SubjectAccessReview for the
matrix's subject (user and groups as the authenticator would give them, system:authenticated
included, as `kubectl auth can-i --as` impersonates), and the barrier that makes sure the
RBAC authorizer has seen every write before the questions are asked."""

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lightkube import Client
from lightkube.codecs import from_dict

from kubeproof.generate.checks import Verdict
from kubeproof.generate.draft import RBAC_API, RBAC_GROUP
from kubeproof.generate.model import Cell, Permissions, Subject

AUTHENTICATED = "system:authenticated"
GROUP_MEMBER = "kubeproof-probe-member"  # the user a Group's question is asked for
BARRIER = "kubeproof-barrier"
BARRIER_NAMESPACE = "kube-public"
WAIT_SECONDS = 30.0
_barrier_round = itertools.count(1)


def user_and_groups(subject: Subject) -> tuple[str, list[str]]:
    """What the authenticator makes of the subject (a ServiceAccount's token carries its
    groups; impersonating a user adds system:authenticated)."""
    if subject.kind == "ServiceAccount":
        ns = subject.namespace or ""
        return f"system:serviceaccount:{ns}:{subject.name}", [
            "system:serviceaccounts",
            f"system:serviceaccounts:{ns}",
            AUTHENTICATED,
        ]
    if subject.kind == "Group":
        return GROUP_MEMBER, [subject.name, AUTHENTICATED]
    return subject.name, [AUTHENTICATED]


def review(user: str, groups: list[str], cell: Cell) -> dict:
    """The SubjectAccessReview asking one cell."""
    spec: dict = {"user": user, "groups": groups}
    if cell.path:
        spec["nonResourceAttributes"] = {"path": cell.path, "verb": cell.verb}
    else:
        attributes = {"verb": cell.verb, "group": cell.group, "resource": cell.resource}
        for field in ("subresource", "namespace", "name"):
            if value := getattr(cell, field):
                attributes[field] = value
        spec["resourceAttributes"] = attributes
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}


def allowed(admin: Client, user: str, groups: list[str], cell: Cell) -> bool:
    answer: Any = admin.create(from_dict(review(user, groups, cell)))
    return bool(answer.status and answer.status.allowed)


def matrix(admin: Client, check: Permissions, pool: ThreadPoolExecutor) -> Verdict:
    """The check's cells asked of the apiserver; under- and over-grant counted apart."""
    user, groups = user_and_groups(check.subject)
    got = list(pool.map(lambda c: allowed(admin, user, groups, c), check.cells))
    under = sum(c.allowed and not g for c, g in zip(check.cells, got, strict=True))
    over = sum(g and not c.allowed for c, g in zip(check.cells, got, strict=True))
    return Verdict(
        passed=not under and not over,
        reason=f"{under} under-grant, {over} over-grant of {len(check.cells)} cells "
        "(SubjectAccessReview)",
        under_grant=under,
        over_grant=over,
    )


def wait_allowed(
    admin: Client,
    user: str,
    verb: str,
    group: str,
    resource: str,
    what: str,
    namespace: str = "",
    name: str = "",
) -> None:
    cell = Cell(
        verb=verb, group=group, resource=resource, namespace=namespace, name=name, allowed=True
    )
    deadline = time.monotonic() + WAIT_SECONDS
    while not allowed(admin, user, [AUTHENTICATED], cell):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the authorizer never granted {what}")
        time.sleep(0.02)


def _barrier_objects(token: str) -> list[dict]:
    ref = {"apiGroup": RBAC_GROUP, "name": BARRIER}
    subjects = [{"apiGroup": RBAC_GROUP, "kind": "User", "name": token}]
    meta = {"name": BARRIER, "namespace": BARRIER_NAMESPACE}
    return [
        {
            "apiVersion": RBAC_API,
            "kind": "Role",
            "metadata": meta,
            "rules": [
                {
                    "apiGroups": [""],
                    "resources": ["configmaps"],
                    "verbs": ["get"],
                    "resourceNames": [token],
                }
            ],
        },
        {
            "apiVersion": RBAC_API,
            "kind": "RoleBinding",
            "metadata": meta,
            "roleRef": {**ref, "kind": "Role"},
            "subjects": subjects,
        },
        {
            "apiVersion": RBAC_API,
            "kind": "ClusterRole",
            "metadata": {"name": BARRIER},
            "rules": [
                {
                    "apiGroups": [""],
                    "resources": ["nodes"],
                    "verbs": ["get"],
                    "resourceNames": [token],
                }
            ],
        },
        {
            "apiVersion": RBAC_API,
            "kind": "ClusterRoleBinding",
            "metadata": {"name": BARRIER},
            "roleRef": {**ref, "kind": "ClusterRole"},
            "subjects": subjects,
        },
    ]


def barrier(admin: Client, manager: str) -> None:
    """Return once the RBAC authorizer has seen every RBAC write made before the call.

    Its informers get each kind's events in order, but the kinds apart, and a moment after
    the write. So the barrier rewrites one object of each of the four kinds to name a new
    user and object, then asks until that user may get that ConfigMap and that Node: each
    answer needs the Role and RoleBinding (or ClusterRole and ClusterRoleBinding) as written
    last, so every earlier write of those kinds has been seen too."""
    token = f"kubeproof-barrier-{next(_barrier_round)}-{time.monotonic_ns()}"
    for doc in _barrier_objects(token):
        admin.apply(from_dict(doc), field_manager=manager, force=True)
    wait_allowed(
        admin,
        token,
        "get",
        "",
        "configmaps",
        "the barrier's Role",
        namespace=BARRIER_NAMESPACE,
        name=token,
    )
    wait_allowed(admin, token, "get", "", "nodes", "the barrier's ClusterRole", name=token)


def barrier_docs() -> list[dict]:
    """The barrier's objects, which stay while a session uses the cluster."""
    return _barrier_objects("")
