"""The observation checks (events, logs by label, bounds, list entries, where pods run,
server dry runs), custom resources named without ceremony, Ingresses and custom resources
in the baseline, and the verifier's own actions — on a live cluster with simulated nodes."""

import json
from datetime import datetime

import pytest
from lightkube.resources.core_v1 import Pod

from kubeproof.verify.actions import Actions
from kubeproof.verify.baseline import Baseline, split_key
from kubeproof.verify.kinds import _matches
from kubeproof.verify.observe import _holds
from kubeproof.verify.verifier import Verifier, settle
from tests.conftest import wait_for

pytestmark = pytest.mark.cluster

WORKLOADS = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: observe}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        resources: {limits: {memory: 1Gi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: broken, namespace: observe}
spec:
  selector: {matchLabels: {app: broken}}
  template:
    metadata: {labels: {app: broken}}
    spec: {containers: [{name: nginx, image: "nginx:1.99"}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: observe}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox:1.36, command: [sh, -c, "echo migrated"]}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"""

WIDGET = """
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: observe}
spec: {mode: active}
"""


@pytest.fixture(scope="module")
def live(sim):
    sim.kubectl("create", "namespace", "observe")
    sim.kubectl("apply", "-f", "-", input=WORKLOADS)
    sim.kubectl("wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s")
    sim.kubectl("apply", "-f", "-", input=WIDGET)
    sim.kubectl("rollout", "status", "deployment/web", "-n", "observe", "--timeout=40s", timeout=50)
    sim.kubectl(
        "wait",
        "--for=condition=Complete",
        "job/migrate",
        "-n",
        "observe",
        "--timeout=40s",
        timeout=50,
    )
    return sim.client()


def test_event(live):
    v = Verifier(live)
    wait_for(
        lambda: v.event("observe", "Failed", kind="Pod", name="broken-*", type="Warning").passed,
        timeout=60,
        what="the image pull failure's event",
    )
    assert not v.event("observe", "Failed", kind="Pod", name="web-*").passed
    miss = v.event("observe", "NoSuchReason")
    assert not miss.passed and miss.reason.startswith("none among")


def test_logs_by_label(live):
    v = Verifier(live)
    ok = v.logs_contain("observe", {"job-name": "migrate"}, "migrated")
    assert ok.passed and ok.reason == "1 of 1 pods logged 'migrated'"
    assert not v.logs_contain("observe", {"job-name": "migrate"}, "nothing like it").passed
    assert v.logs_contain("observe", {"app": "nobody"}, "x").reason == "no pods selected"


def test_field_compare(live):
    v = Verifier(live)
    assert v.field_compare("Deployment", "observe", "web", "spec.replicas", ">=", 2).passed
    assert not v.field_compare("Deployment", "observe", "web", "spec.replicas", ">", 2).passed
    limit = "spec.template.spec.containers[name=nginx].resources.limits.memory"
    assert v.field_compare("Deployment", "observe", "web", limit, ">=", "512Mi", True).passed
    assert not v.field_compare("Deployment", "observe", "web", limit, "<", "1024Mi", True).passed
    unset = v.field_compare("Deployment", "observe", "web", "spec.paused", ">=", 1)
    assert not unset.passed and unset.reason == "spec.paused is not set"
    typo = v.field_compare("Deployment", "observe", "web", "spec.replicas", "=>", 2)
    assert not typo.passed and "ValueError: op '=>'" in typo.reason


def test_list_contains(live):
    v = Verifier(live)
    path = "spec.template.spec.containers"
    want = {"name": "nginx", "image": "nginx:1.27"}
    assert v.list_contains("Deployment", "observe", "web", path, want).passed
    assert not v.list_contains("Deployment", "observe", "web", path, {"name": "x"}).passed
    assert _holds({"a": {"b": 1, "c": 2}}, {"a": {"b": 1}}) and not _holds("x", {"a": 1})


def test_pods_not_on(live):
    v = Verifier(live)
    pods = live.list(Pod, namespace="observe", labels={"app": "web"})
    nodes = sorted({p.spec.nodeName for p in pods})
    assert v.pods_not_on("observe", {"app": "web"}, ["nowhere"]).passed
    on = v.pods_not_on("observe", {"app": "web"}, nodes)
    assert not on.passed and on.reason.startswith("still on: web-")


def test_server_dry_run(sim, live):
    sim.kubectl("create", "namespace", "observe-restricted")
    sim.kubectl(
        "label", "namespace", "observe-restricted", "pod-security.kubernetes.io/enforce=restricted"
    )
    privileged = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "root", "namespace": "observe-restricted"},
        "spec": {
            "containers": [
                {"name": "c", "image": "busybox:1.36", "securityContext": {"privileged": True}}
            ]
        },
    }
    v = Verifier(live)
    refused = v.server_dry_run(privileged, allowed=False)
    assert refused.passed and "violates PodSecurity" in refused.reason
    assert not v.server_dry_run(privileged).passed
    plain = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dry, namespace: observe}\n"
    assert v.server_dry_run(plain).passed
    assert v.absent("ConfigMap", "observe", "dry").passed  # nothing was written
    widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2, namespace: observe}"
    assert v.server_dry_run(widget).passed


def test_custom_resources_without_ceremony(live):
    v = Verifier(live)
    for spelled in ("Widget", "widgets", "widgets.example.com", "wd", "example.com/v1/Widget"):
        assert v.field_equals(spelled, "observe", "w1", "spec.mode", "active").passed, spelled
    assert not v.field_equals("Gadget", "observe", "w1", "spec.mode", "active").passed
    crd = {
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [{"name": "v1"}],
        }
    }
    assert _matches(crd, "example.com/v1/Widget") and not _matches(crd, "example.com/v2/Widget")


def test_baseline_protects_ingresses_and_custom_resources(sim, live):
    baseline = Baseline.capture(live, ["observe"])
    assert "example.com/v1/Widget" in baseline.custom_kinds
    assert baseline.get("example.com/v1/Widget", "observe", "w1")["spec"] == {"mode": "active"}
    assert split_key("example.com/v1/Widget/observe/w1") == (
        "example.com/v1/Widget",
        "observe",
        "w1",
    )
    sim.kubectl(
        "patch",
        "widget",
        "w1",
        "-n",
        "observe",
        "--type=merge",
        "-p",
        '{"spec":{"mode":"standby"}}',
    )
    sim.kubectl("create", "ingress", "shortcut", "-n", "observe", "--rule=shop.example/*=web:80")
    try:
        v = Verifier(live, baseline)
        found = v.only_allowed_changes()
        assert not found.passed
        assert "Widget observe/w1 spec.mode" in found.reason
        assert "created Ingress observe/shortcut" in found.reason
        v = Verifier(live, baseline)
        v.allow("example.com/v1/Widget", "observe", "w1", ["spec.mode"])
        v.allow_new("Ingress", "observe")
        assert v.only_allowed_changes().passed
    finally:
        sim.kubectl("delete", "ingress", "shortcut", "-n", "observe", check=False)
        sim.kubectl(
            "patch",
            "widget",
            "w1",
            "-n",
            "observe",
            "--type=merge",
            "-p",
            '{"spec":{"mode":"active"}}',
        )


def test_evict_then_expect_recovery(live):
    baseline = Baseline.capture(live, ["observe"])
    seen: list[list[str]] = []

    def verify(v):
        v.pods_ready("observe", {"app": "web"}, 2)
        v.evict("observe", {"app": "web"})
        v.pods_ready("observe", {"app": "web"}, 2)
        seen.append([r.reason for r in v.results])

    acts = Actions()
    results, seconds = settle(verify, live, baseline, quiet=1, timeout=90, acts=acts, interval=0.3)
    assert all(results), [(r.name, r.reason) for r in results]
    assert acts.first_at is not None and len(acts.done) == 1
    assert results[1].reason.startswith("evicted web-")
    # the eviction was carried out once, and the recovery was judged after it
    assert sum(1 for s in seen if s[1].startswith("evicted")) == len(seen)
    assert seconds >= 1
    gone = Verifier(live).delete("ConfigMap", "observe", "no-such-thing")
    assert not gone.passed and "not found" in gone.reason


def test_history_leaves_out_the_verifiers_own_writes(tmp_path):
    from kubeproof.verify.history import History

    def event(user: str, at: str, name: str) -> str:
        return json.dumps(
            {
                "stage": "ResponseComplete",
                "verb": "delete",
                "stageTimestamp": at,
                "user": {"username": user},
                "objectRef": {"resource": "configmaps", "namespace": "shop", "name": name},
                "responseStatus": {"code": 200},
            }
        )

    log = tmp_path / "audit.log"
    log.write_text(
        "\n".join(
            [
                event("kubeproof-admin", "2026-11-25T04:00:00.000000Z", "before"),
                event("kubeproof-admin", "2026-11-25T04:00:10.000000Z", "verifier"),
                event("system:serviceaccount:kubeproof-agent:agent", "2026-11-25T04:00:11Z", "a"),
            ]
        )
        + "\n"
    )
    history = History(log)
    history.verifier_from = datetime.fromisoformat("2026-11-25T04:00:05Z").timestamp()
    assert [w.name for w in history.refresh().writes] == ["before", "a"]
    # a task's own controller (task.toml `controllers`) writes as the system, not the agent
    operator = History(log, ignore=frozenset({"system:serviceaccount:kubeproof-agent:agent"}))
    assert [w.name for w in operator.refresh().writes] == ["before", "verifier"]
