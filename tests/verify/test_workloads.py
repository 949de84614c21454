"""Checks by meaning on a live cluster: an env var however it is defined, a file however it
is mounted, a reference by name and key, placement however it is spelled, a URL however
the Service is named — each accepting the equivalent forms and rejecting the cheat."""

import pytest

from kubeproof.verify.verifier import Verifier

pytestmark = pytest.mark.cluster

NS = "meaning"
OBJECTS = f"""
apiVersion: v1
kind: Namespace
metadata: {{name: {NS}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: settings, namespace: {NS}}}
data: {{DB_HOST: db.data.svc.cluster.local, routes.yaml: "public", admin.yaml: "admin"}}
---
apiVersion: v1
kind: Secret
metadata: {{name: creds, namespace: {NS}}}
stringData: {{password: hunter2}}
---
apiVersion: v1
kind: Namespace
metadata: {{name: data}}
---
apiVersion: v1
kind: Service
metadata: {{name: db, namespace: data}}
spec: {{ports: [{{port: 5432}}], selector: {{app: db}}}}
"""


def deployment(name: str, spec: str) -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {NS}}}
spec:
  replicas: 0
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
{spec}
"""


LITERAL = """      containers:
      - name: app
        image: busybox:1.36
        env:
        - {name: DB_HOST, value: "db.data"}
        - {name: DB_URL, value: "postgres://db.data:5432/orders"}
        - {name: DB_PASSWORD, valueFrom: {secretKeyRef: {name: creds, key: password}}}
        volumeMounts: [{name: cfg, mountPath: /etc/gw}]
      volumes:
      - name: cfg
        configMap: {name: settings, items: [{key: routes.yaml, path: routes.yaml}]}
      nodeSelector: {pool: blue}
"""
FROM_CONFIG = """      containers:
      - name: app
        image: busybox:1.36
        envFrom: [{configMapRef: {name: settings}}]
        env:
        - {name: DB_URL, value: "db:5432"}
        - {name: DB_PASSWORD, valueFrom: {secretKeyRef: {name: creds, key: pass}}}
        volumeMounts:
        - {name: cfg, mountPath: /etc/gw}
        - {name: scratch, mountPath: /etc/gw/routes.yaml}
      volumes:
      - {name: cfg, projected: {sources: [{configMap: {name: settings}}]}}
      - {name: scratch, emptyDir: {}}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions: [{key: pool, operator: In, values: [blue]}]
      tolerations: [{operator: Exists}]
"""


@pytest.fixture(scope="module")
def v(sim):
    sim.kubectl("apply", "-f", "-", input=OBJECTS)
    sim.kubectl("label", "node", "node-1", "pool=blue", "--overwrite")
    sim.kubectl("apply", "-f", "-", input=deployment("literal", LITERAL))
    sim.kubectl("apply", "-f", "-", input=deployment("config", FROM_CONFIG))
    return Verifier(sim.client())


def test_env_by_effective_value_and_source(v):
    assert v.env("Deployment", NS, "literal", "DB_HOST", "db.data").passed
    from_cm = v.env("Deployment", NS, "config", "DB_HOST", "db.data.svc.cluster.local")
    assert from_cm.passed, from_cm.reason
    assert v.env("Deployment", NS, "literal", "DB_PASSWORD", secret=("creds", "password")).passed
    missing = v.env("Deployment", NS, "config", "DB_PASSWORD", secret=("creds", "password"))
    assert not missing.passed and "does not exist" in missing.reason
    assert not v.env("Deployment", NS, "literal", "NOPE").passed


def test_env_target_resolves_any_spelling_of_the_service(v):
    assert v.env_target("Deployment", NS, "literal", "DB_URL", "data/db", 5432).passed
    assert v.env_target("Deployment", NS, "literal", "DB_HOST", "data/db").passed
    fqdn = v.env_target("Deployment", NS, "config", "DB_HOST", "data/db")
    assert fqdn.passed, fqdn.reason
    short = v.env_target("Deployment", NS, "config", "DB_URL", "data/db", 5432)
    assert not short.passed and "not data/db" in short.reason  # `db` in meaning is nothing


def test_mount_sees_what_the_container_sees(v):
    plain = v.mount("Deployment", NS, "literal", "/etc/gw/routes.yaml", configmap="settings")
    assert plain.passed, plain.reason
    keyed = v.mount(
        "Deployment", NS, "literal", "/etc/gw/routes.yaml", configmap="settings", key="routes.yaml"
    )
    assert keyed.passed, keyed.reason
    shadowed = v.mount("Deployment", NS, "config", "/etc/gw/routes.yaml", configmap="settings")
    assert not shadowed.passed and "emptyDir" in shadowed.reason
    projected = v.mount(
        "Deployment", NS, "config", "/etc/gw/admin.yaml", configmap="settings", key="admin.yaml"
    )
    assert projected.passed, projected.reason


def test_references_by_name_and_key(v):
    assert v.references_valid("Deployment", NS, "literal").passed
    broken = v.references_valid("Deployment", NS, "config")
    assert not broken.passed and "Secret creds has no key pass" in broken.reason


def test_placement_by_node_set_not_spelling(v):
    assert v.placement("Deployment", NS, "literal", ["node-1"]).passed
    bypass = v.placement("Deployment", NS, "config", ["node-1"])
    assert not bypass.passed and "tolerates every taint" in bypass.reason
    assert not v.placement("Deployment", NS, "literal", ["node-1", "node-2"]).passed


def test_placement_at_baseline_judges_the_nodes_as_they_were(sim, v):
    """Relabelling a node so the selector fits does not make the placement right: the
    template is judged against the nodes of the baseline."""
    from kubeproof.verify.baseline import Baseline

    client = sim.client()
    baseline = Baseline.capture(client, [NS])
    at = Verifier(client, baseline)
    assert at.placement_at_baseline("Deployment", NS, "literal", ["node-1"]).passed
    sim.kubectl("label", "node", "node-2", "pool=blue", "--overwrite")
    try:
        assert not Verifier(client).placement("Deployment", NS, "literal", ["node-1"]).passed
        still = Verifier(client, baseline).placement_at_baseline(
            "Deployment", NS, "literal", ["node-1"]
        )
        assert still.passed and still.kind == "contract", still.reason
    finally:
        sim.kubectl("label", "node", "node-2", "pool-")
    bypass = at.placement_at_baseline("Deployment", NS, "config", ["node-1"])
    assert not bypass.passed and "tolerates every taint" in bypass.reason
