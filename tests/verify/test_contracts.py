"""Contracts against a baseline the agent never sees: each catches one cheat and names it."""

import re

import pytest

from kubeproof.verify.baseline import Baseline
from kubeproof.verify.verifier import Verifier

pytestmark = pytest.mark.cluster

SHOP = """
apiVersion: v1
kind: Namespace
metadata: {name: contracts}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: contracts}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: "nginx:1.27"}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: contracts}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
"""


@pytest.fixture
def ns(request):
    return "c-" + re.sub(r"[^a-z0-9-]+", "-", request.node.name.lower())[:40].strip("-")


@pytest.fixture
def baseline(cluster, tmp_path, ns):
    cluster.kubectl("apply", "-f", "-", input=SHOP.replace("contracts", ns))
    captured = Baseline.capture(cluster.client(), [ns])
    path = tmp_path / "baseline.json"
    captured.save(path)
    yield Baseline.load(path)
    cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)


def test_recreating_an_object_breaks_uid_preserved(cluster, baseline, ns):
    client = cluster.client()
    assert Verifier(client, baseline).uid_preserved("Deployment", ns, "api").passed
    cluster.kubectl("delete", "deployment", "api", "-n", ns, "--wait=false")
    cluster.kubectl("apply", "-f", "-", input=SHOP.replace("contracts", ns))
    broken = Verifier(client, baseline).uid_preserved("Deployment", ns, "api")
    assert not broken.passed and "recreated" in broken.reason and broken.kind == "contract"


def test_replacements_and_bare_pods_are_named(cluster, baseline, ns):
    client = cluster.client()
    assert Verifier(client, baseline).exact_resource_set("Deployment", ns).passed
    cluster.kubectl("create", "deployment", "api-v2", "--image=nginx:1.27", "-n", ns)
    cluster.kubectl("run", "stopgap", "--image=nginx:1.27", "-n", ns)
    extra = Verifier(client, baseline).exact_resource_set("Deployment", ns)
    assert not extra.passed and extra.reason == "added api-v2"
    bare = Verifier(client, baseline).no_bare_pods(ns)
    assert not bare.passed and "stopgap" in bare.reason


def test_fields_the_task_protects_must_not_change(cluster, baseline, ns):
    client = cluster.client()
    paths = ["spec.replicas", "spec.template.spec.containers[0].image"]
    assert Verifier(client, baseline).fields_unchanged("Deployment", ns, "api", paths).passed
    cluster.kubectl("scale", "deployment", "api", "--replicas=3", "-n", ns)
    changed = Verifier(client, baseline).fields_unchanged("Deployment", ns, "api", paths)
    assert not changed.passed and changed.reason == "spec.replicas: 1 -> 3", changed.reason


def test_wildcard_rbac_is_a_broken_contract(cluster, baseline, ns):
    client = cluster.client()
    assert Verifier(client, baseline).rbac_no_wildcards(ns).passed
    cluster.kubectl(
        "patch",
        "role",
        "reader",
        "-n",
        ns,
        "--type=json",
        "-p",
        '[{"op":"replace","path":"/rules/0/verbs","value":["*"]}]',
    )
    wild = Verifier(client, baseline).rbac_no_wildcards(ns)
    assert not wild.passed and wild.reason == "wildcard rules in reader"


def test_distractors_and_namespaces_must_stay_untouched(cluster, baseline, ns):
    client = cluster.client()
    assert Verifier(client, baseline).unchanged("Role", ns, "reader").passed
    assert Verifier(client, baseline).namespace_untouched(ns).passed
    cluster.kubectl("label", "role", "reader", "team=x", "-n", ns)
    cluster.kubectl("create", "configmap", "extra", "-n", ns)
    edited = Verifier(client, baseline).unchanged("Role", ns, "reader")
    assert not edited.passed and edited.reason == "metadata.labels.team: <unset> -> x", (
        edited.reason
    )
    touched = Verifier(client, baseline).namespace_untouched(ns)
    assert not touched.passed
    assert (
        "added ConfigMap extra" in touched.reason
        and "Role reader: metadata.labels.team" in touched.reason
    )


def test_rbac_must_be_exactly_the_rules_asked_and_namespaced(cluster, baseline, ns):
    client = cluster.client()
    want = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]
    assert Verifier(client, baseline).rbac_rules_exact(ns, "reader", want).passed
    cluster.kubectl(
        "patch",
        "role",
        "reader",
        "-n",
        ns,
        "--type=json",
        "-p",
        '[{"op":"add","path":"/rules/-","value":'
        '{"apiGroups":[""],"resources":["secrets"],"verbs":["list"]}}]',
    )
    more = Verifier(client, baseline).rbac_rules_exact(ns, "reader", want)
    assert not more.passed and more.reason == "grants more: list secrets"
    assert Verifier(client, baseline).no_new_cluster_rbac().passed
    name = f"{ns}-wide"
    cluster.kubectl("create", "clusterrole", name, "--verb=get", "--resource=pods")
    try:
        wide = Verifier(client, baseline).no_new_cluster_rbac()
        assert not wide.passed and wide.reason == f"created ClusterRole {name}"
    finally:
        cluster.kubectl("delete", "clusterrole", name)


def test_pods_wearing_a_deployments_labels_must_be_its_own(cluster, baseline, ns):
    client = cluster.client()
    cluster.kubectl("run", "impostor", "--image=nginx:1.27", "--labels=app=api", "-n", ns)
    chain = Verifier(client, baseline).ownership_chain(ns, "api")
    assert not chain.passed and chain.reason.endswith(": impostor")
    demanded = Verifier(client, baseline).field_is(
        "Deployment", ns, "api", "spec.template.spec.containers[0].readinessProbe", None
    )
    assert not demanded.passed and "is not set" in demanded.reason


def test_permissions_exact_sees_grants_by_name(cluster, baseline, ns):
    """A grant on one object by name answers no to a question about any name: the matrix
    alone would call a user with a named Secret grant exact."""
    user = "system:serviceaccount:" + ns + ":pricing"
    client = cluster.client()
    role = f"""
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: pricing, namespace: {ns}}}
rules:
- {{apiGroups: [""], resources: [configmaps], resourceNames: [rules-2026], verbs: [get]}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: pricing, namespace: {ns}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: pricing}}
subjects: [{{kind: ServiceAccount, name: pricing, namespace: {ns}}}]
"""
    cluster.kubectl("apply", "-f", "-", input=role)
    v = Verifier(client, baseline)
    assert v.permissions_exact(user, ns, ["get configmaps rules-2026"]).passed
    lacking = v.permissions_exact(user, ns, ["get configmaps rules-2027"])
    assert not lacking.passed and "may not get configmaps rules-2027" in lacking.reason
    assert "may also get configmaps rules-2026" in lacking.reason
    # one more object by name, through a second role: not exact, unless optional
    cluster.kubectl(
        "create",
        "role",
        "extra",
        "-n",
        ns,
        "--verb=get",
        "--resource=secrets",
        "--resource-name=db-password",
    )
    cluster.kubectl(
        "create",
        "rolebinding",
        "extra",
        "-n",
        ns,
        "--role=extra",
        f"--serviceaccount={ns}:pricing",
    )
    extra = Verifier(client, baseline).permissions_exact(user, ns, ["get configmaps rules-2026"])
    assert not extra.passed and "may also get secrets db-password" in extra.reason
    either = Verifier(client, baseline).permissions_exact(
        user, ns, ["get configmaps rules-2026"], optional=["get secrets db-password"]
    )
    assert either.passed, either.reason
    # a grant for any name covers each name
    wide = Verifier(client, baseline).permissions_exact(
        user, ns, ["get configmaps rules-2026", "get secrets"]
    )
    assert not wide.passed and "may not get secrets" in wide.reason
