"""The offline RBAC twin (generate/rbac.py), the SubjectAccessReviews the live judge asks and
stock `kubectl auth can-i --as` agree on random Roles, ClusterRoles and bindings applied to
one live cluster (issue 18: matrices agree with the apiserver). The questions stay clear of
what the default roles grant every authenticated user (discovery, /healthz, /version...),
which the twin does not hold."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lightkube.codecs import from_dict

from kubeproof.generate import rbac
from kubeproof.generate.live import access
from kubeproof.generate.live.objects import delete, ref_of
from kubeproof.generate.model import Cell, Subject

NAMESPACES = ("agree-a", "agree-b")
RBAC_API = "rbac.authorization.k8s.io/v1"
MANAGER = "kubeproof-test"
_round = itertools.count()
_turn = itertools.count()

verbs = st.lists(
    st.sampled_from(["get", "list", "create", "delete", "*"]), min_size=1, max_size=2, unique=True
)
resource_rule = st.fixed_dictionaries(
    {
        "apiGroups": st.sampled_from([[""], ["apps"], ["*"], ["", "apps"]]),
        "resources": st.lists(
            st.sampled_from(
                ["configmaps", "secrets", "pods", "pods/log", "pods/*", "*/log", "deployments", "*"]
            ),
            min_size=1,
            max_size=2,
            unique=True,
        ),
        "verbs": verbs,
    },
    optional={"resourceNames": st.sampled_from([["alpha"], ["alpha", "beta"]])},
)
url_rule = st.fixed_dictionaries(
    {
        "nonResourceURLs": st.sampled_from([["/metrics"], ["/logs/*"], ["*"]]),
        "verbs": st.sampled_from([["get"], ["*"]]),
    }
)
subjects = st.sampled_from(
    [
        {"kind": "ServiceAccount", "name": "bot", "namespace": "agree-a"},
        {"kind": "ServiceAccount", "name": "bot"},  # a RoleBinding's own namespace
        {"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"},
        {"kind": "Group", "name": "ops", "apiGroup": "rbac.authorization.k8s.io"},
    ]
)
cells = st.builds(
    Cell,
    verb=st.sampled_from(["get", "list", "create", "delete", "patch"]),
    group=st.sampled_from(["", "apps"]),
    resource=st.sampled_from(["configmaps", "secrets", "pods", "deployments"]),
    subresource=st.sampled_from(["", "", "log"]),
    namespace=st.sampled_from(["agree-a", "agree-b", ""]),
    name=st.sampled_from(["", "alpha", "gamma"]),
    allowed=st.just(False),
) | st.builds(
    Cell,
    verb=st.sampled_from(["get", "post"]),
    path=st.sampled_from(["/metrics", "/logs/app", "/debug/x"]),
    allowed=st.just(False),
)
WHO = [
    Subject(kind="ServiceAccount", name="bot", namespace="agree-a"),
    Subject(kind="User", name="alice"),
    Subject(kind="Group", name="ops"),
]


@st.composite
def worlds(draw) -> list[dict]:
    n = next(_round)
    out = []
    for i in range(draw(st.integers(1, 3))):
        cluster_wide = draw(st.booleans())
        ns = draw(st.sampled_from(NAMESPACES))
        name = f"agree-{n}-{i}"
        rules = draw(st.lists(resource_rule, min_size=1, max_size=2))
        if cluster_wide:
            rules += draw(st.lists(url_rule, max_size=1))
        kind = "ClusterRole" if cluster_wide else "Role"
        meta = {"name": name} if cluster_wide else {"name": name, "namespace": ns}
        out.append({"apiVersion": RBAC_API, "kind": kind, "metadata": meta, "rules": rules})
        binding = "RoleBinding" if not cluster_wide or draw(st.booleans()) else "ClusterRoleBinding"
        picked = draw(st.lists(subjects, min_size=1, max_size=2, unique_by=lambda s: str(s)))
        if binding == "ClusterRoleBinding":
            picked = [s for s in picked if s.get("namespace") or s["kind"] != "ServiceAccount"]
            picked = picked or [{"kind": "User", "name": "alice"}]
        bmeta = (
            {"name": name} if binding == "ClusterRoleBinding" else {"name": name, "namespace": ns}
        )
        out.append(
            {
                "apiVersion": RBAC_API,
                "kind": binding,
                "metadata": bmeta,
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": name},
                "subjects": picked,
            }
        )
    return out


def can_i(cluster, who: Subject, cell: Cell) -> bool:
    user, _ = access.user_and_groups(who)
    args = ["auth", "can-i", f"--as={user}"]
    if who.kind == "Group":
        args.append(f"--as-group={who.name}")
    if cell.path:
        args += [cell.verb, cell.path]
    else:
        resource = cell.resource + (f".{cell.group}" if cell.group else "")
        args += [cell.verb, f"{resource}/{cell.name}" if cell.name else resource]
        if cell.subresource:
            args.append(f"--subresource={cell.subresource}")
        args += [f"--namespace={cell.namespace}"] if cell.namespace else ["--all-namespaces"]
    got = cluster.kubectl(*args, check=False)
    assert got.stdout.strip() in ("yes", "no"), got.stderr
    return got.stdout.strip() == "yes"


@pytest.fixture(scope="module")
def rbac_cluster(cluster):
    for ns in NAMESPACES:
        cluster.kubectl("create", "namespace", ns, check=False)
    yield cluster
    for ns in NAMESPACES:
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(world=worlds(), questions=st.lists(cells, min_size=4, max_size=4))
def test_twin_reviews_and_kubectl_auth_can_i_agree(rbac_cluster, world, questions):
    admin = rbac_cluster.client()
    try:
        for doc in world:
            admin.apply(from_dict(doc), field_manager=MANAGER, force=True)
        access.barrier(admin, MANAGER)
        for who, cell in itertools.product(WHO, questions):
            twin = rbac.allowed(world, who, cell)
            user, groups = access.user_and_groups(who)
            review = access.allowed(admin, user, groups, cell)
            assert twin == review, (who, cell, world)
        # kubectl is a process per question: one subject per example, in turn
        who = WHO[next(_turn) % len(WHO)]
        for cell in questions:
            assert can_i(rbac_cluster, who, cell) == rbac.allowed(world, who, cell), (who, cell)
    finally:
        for doc in world:
            delete(admin, ref_of(doc))
