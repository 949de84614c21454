"""On an embedded cluster through stock kubectl: a workload whose model reads one named
ConfigMap with a client-go informer is Ready under a Role limited by resourceNames, and
without it logs the reflector's forbidden line; a `log`-mode dependency keeps it Ready while
logging each failed attempt, then its recovery."""

import json
import re

import pytest

from tests.conftest import wait_for

MODELS = """
images:
  example/settings-reader:
    tags: ["1.0"]
    ports: [{containerPort: 8080, name: http}]
    health: ["/healthz"]
    startupSeconds: 0
    apiCalls:
      - {verb: list, resource: configmaps, name: "$(CONFIG_NAME)", log: reflector}
      - {verb: watch, resource: configmaps, name: "$(CONFIG_NAME)", log: reflector}
    dependencies:
      - env: CACHE_URL
        port: 6379
        onFailure: log
        log: "cache {target} unreachable: {error}"
        recovered: "cache {target} reachable again"
    logs: {start: ["settings-reader starting"]}
"""


def deployment(ns: str) -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: reader, namespace: {ns}}}
spec:
  selector: {{matchLabels: {{app: reader}}}}
  template:
    metadata: {{labels: {{app: reader}}}}
    spec:
      serviceAccountName: reader
      containers:
        - name: reader
          image: example/settings-reader:1.0
          env:
            - {{name: CONFIG_NAME, value: app-settings}}
            - {{name: CACHE_URL, value: "redis://cache:6379"}}
"""


def role(ns: str, names: list[str]) -> str:
    return f"""
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: settings, namespace: {ns}}}
rules:
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: {json.dumps(names)}
    verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: settings, namespace: {ns}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: settings}}
subjects: [{{kind: ServiceAccount, name: reader, namespace: {ns}}}]
"""


@pytest.fixture(scope="module")
def cluster(binaries_built, tmp_path_factory):
    from kubeproof.cluster import EmbeddedCluster

    path = tmp_path_factory.mktemp("models") / "images.yaml"
    path.write_text(MODELS)
    with EmbeddedCluster(nodes=1, images=path) as c:
        yield c


def _setup(c, ns: str) -> None:
    c.kubectl("create", "namespace", ns)
    c.kubectl("create", "serviceaccount", "reader", "-n", ns)
    c.kubectl("create", "configmap", "app-settings", "-n", ns, "--from-literal=mode=on")


def _pod(c, ns: str) -> dict | None:
    out = c.kubectl("get", "pods", "-n", ns, "-l", "app=reader", "-o", "json").stdout
    items = json.loads(out)["items"]
    return items[0] if items else None


def _ready(pod: dict | None) -> bool:
    statuses = (pod or {}).get("status", {}).get("containerStatuses") or []
    return bool(statuses) and statuses[0]["ready"]


def _logs(c, ns: str) -> list[str]:
    return c.kubectl("logs", "deploy/reader", "-n", ns, check=False).stdout.splitlines()


def test_resource_names_role_makes_it_ready_and_without_it_the_reflector_logs(cluster):
    ns = "named-ok"
    _setup(cluster, ns)
    cluster.kubectl("apply", "-f", "-", input=role(ns, ["app-settings"]))
    cluster.kubectl("apply", "-f", "-", input=deployment(ns))
    pod = wait_for(lambda: (p := _pod(cluster, ns)) and _ready(p) and p, 60, what="Ready")
    assert pod["status"]["phase"] == "Running"

    ns = "named-denied"
    _setup(cluster, ns)
    cluster.kubectl("apply", "-f", "-", input=role(ns, ["other-settings"]))  # the wrong name
    cluster.kubectl("apply", "-f", "-", input=deployment(ns))
    user = f"system:serviceaccount:{ns}:reader"
    expected = (
        '"Failed to watch" err="failed to list *v1.ConfigMap: configmaps \\"app-settings\\" '
        f'is forbidden: User \\"{user}\\" cannot list resource \\"configmaps\\" in API group '
        f'\\"\\" in the namespace \\"{ns}\\"" logger="UnhandledError" '
        'reflector="pkg/mod/k8s.io/client-go@v0.36.3/informers/factory.go:177" '
        'type="*v1.ConfigMap"'
    )
    header = re.compile(r"E\d{4} \d\d:\d\d:\d\d\.\d{6}       1 reflector\.go:227\] ")
    line = wait_for(
        lambda: next((x for x in _logs(cluster, ns) if "Failed to watch" in x), None),
        60,
        what="the reflector's forbidden line",
    )
    assert header.match(line) and line[header.match(line).end() :] == expected
    assert not _ready(_pod(cluster, ns))
    # the exact Role: it becomes Ready without a restart
    cluster.kubectl("apply", "-f", "-", input=role(ns, ["app-settings"]))
    pod = wait_for(lambda: (p := _pod(cluster, ns)) and _ready(p) and p, 60, what="Ready")
    assert pod["status"]["containerStatuses"][0]["restartCount"] == 0


def test_log_mode_dependency_stays_ready_logs_attempts_and_recovery(cluster):
    ns = "dep-log"
    _setup(cluster, ns)
    cluster.kubectl("apply", "-f", "-", input=role(ns, ["app-settings"]))
    cluster.kubectl("apply", "-f", "-", input=deployment(ns))
    wait_for(lambda: _ready(_pod(cluster, ns)), 60, what="Ready while the cache is missing")
    failed = "cache cache:6379 unreachable: dial tcp: lookup cache on 10.96.0.10:53: no such host"
    wait_for(lambda: _logs(cluster, ns).count(failed) >= 2, 60, what="one line per attempt")
    assert _ready(_pod(cluster, ns))
    cluster.kubectl("run", "cache", "-n", ns, "--image=redis:7.2", "--labels=app=cache")
    cluster.kubectl("expose", "pod", "cache", "-n", ns, "--port=6379")
    wait_for(lambda: "cache cache:6379 reachable again" in _logs(cluster, ns), 90, what="recovery")
    logs = _logs(cluster, ns)
    assert logs.count("cache cache:6379 reachable again") == 1
    assert logs[-1] == "cache cache:6379 reachable again"  # no failed attempt after it
    pod = _pod(cluster, ns)
    assert _ready(pod) and pod["status"]["containerStatuses"][0]["restartCount"] == 0
