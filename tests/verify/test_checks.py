"""Checks on a live cluster with simulated nodes: each passes on the healthy object, fails
on the broken one, and says why."""

import pytest

from kubeproof.verify.fields import equal, get_path
from kubeproof.verify.verifier import Verifier
from tests.conftest import wait_for

pytestmark = pytest.mark.cluster

WORKLOADS = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: verify}
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
metadata: {name: broken, namespace: verify}
spec:
  selector: {matchLabels: {app: broken}}
  template:
    metadata: {labels: {app: broken}}
    spec: {containers: [{name: nginx, image: "nginx:1.99"}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: verify}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: nobody, namespace: verify}
spec: {selector: {app: nobody}, ports: [{port: 80}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: verify}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox:1.36, command: [sh, -c, "echo migrated"]}]
"""


@pytest.fixture(scope="module")
def live(sim):
    sim.kubectl("create", "namespace", "verify")
    sim.kubectl("apply", "-f", "-", input=WORKLOADS)
    sim.kubectl("rollout", "status", "deployment/web", "-n", "verify", "--timeout=30s", timeout=40)
    sim.kubectl(
        "wait",
        "--for=condition=Complete",
        "job/migrate",
        "-n",
        "verify",
        "--timeout=30s",
        timeout=40,
    )
    return sim.client()


def test_rollout_complete(live):
    ok = Verifier(live).rollout_complete("verify", "web")
    assert ok.passed and ok.reason == "2/2 updated, 2/2 available, 2 total"
    bad = Verifier(live).rollout_complete("verify", "broken")
    assert not bad.passed and "0/1 available" in bad.reason
    gone = Verifier(live).rollout_complete("verify", "nope")
    assert not gone.passed and "not found" in gone.reason


def test_pods_ready_counts_and_places(live):
    assert Verifier(live).pods_ready("verify", {"app": "web"}, 2).passed
    assert not Verifier(live).pods_ready("verify", {"app": "web"}, 3).passed
    misplaced = Verifier(live).pods_ready("verify", {"app": "web"}, 2, nodes=["elsewhere"])
    assert not misplaced.passed and "not on elsewhere" in misplaced.reason


def test_service_endpoints(live):
    wait_for(lambda: Verifier(live).service_has_ready_endpoints("verify", "web", 2).passed)
    empty = Verifier(live).service_has_ready_endpoints("verify", "nobody")
    assert not empty.passed and empty.reason == "0 ready endpoint(s) (want at least 1)"


def test_job_complete(live):
    result = Verifier(live).job_complete("verify", "migrate")
    assert result.passed and "1 succeeded" in result.reason


def test_permission_allowed_and_intruder_denied(live, sim):
    sim.kubectl("create", "serviceaccount", "reader", "-n", "verify")
    sim.kubectl("create", "role", "reader", "--verb=get", "--resource=pods", "-n", "verify")
    sim.kubectl(
        "create",
        "rolebinding",
        "reader",
        "--role=reader",
        "--serviceaccount=verify:reader",
        "-n",
        "verify",
    )
    user = "system:serviceaccount:verify:reader"
    assert Verifier(live).permission(user, "get", "pods", "verify").passed
    denied = Verifier(live).permission(user, "delete", "pods", "verify", allowed=False)
    assert denied.passed and "may not delete pods in verify" in denied.reason
    assert not Verifier(live).permission(user, "list", "secrets", "verify").passed


def test_connectivity_through_netsim(live, sim):
    sim.kubectl("run", "client", "--image=busybox:1.36", "-n", "verify", "--", "sleep", "infinity")
    sim.kubectl(
        "wait", "--for=condition=Ready", "pod/client", "-n", "verify", "--timeout=30s", timeout=40
    )
    assert Verifier(live).connectivity("verify/client", "web:80").passed
    refused = Verifier(live).connectivity("verify/client", "nobody:80")
    assert not refused.passed and refused.reason.startswith("no-endpoints")
    assert Verifier(live).connectivity("verify/client", "nobody:80", allowed=False).passed


def test_log_contains(live, sim):
    pod = sim.kubectl(
        "get",
        "pods",
        "-n",
        "verify",
        "-l",
        "job-name=migrate",
        "-o",
        "jsonpath={.items[0].metadata.name}",
    ).stdout
    assert Verifier(live).log_contains("verify", pod, "migrated").passed
    assert not Verifier(live).log_contains("verify", pod, "failed").passed


def test_field_equals_is_quantity_aware(live):
    path = "spec.template.spec.containers[0].resources.limits.memory"
    assert (
        Verifier(live)
        .field_equals(
            "apps/v1", "Deployment", "web", path, "1024Mi", namespace="verify", quantity=True
        )
        .passed
    )
    wrong = Verifier(live).field_equals(
        "apps/v1", "Deployment", "web", path, "512Mi", namespace="verify", quantity=True
    )
    assert not wrong.passed and "want '512Mi'" in wrong.reason
    assert (
        Verifier(live)
        .field_equals("apps/v1", "Deployment", "web", "spec.replicas", 2, namespace="verify")
        .passed
    )


def test_field_paths_and_quantities():
    obj = {"spec": {"containers": [{"image": "a"}, {"image": "b"}]}}
    assert get_path(obj, "spec.containers[1].image") == "b"
    assert equal("500m", "0.5", quantity=True) and equal("1Gi", "1024Mi", quantity=True)
    assert not equal("1G", "1Gi", quantity=True)
    assert equal(True, True) and not equal(True, 1) and not equal(False, 0)
    labels = {"metadata": {"labels": {"pod-security.kubernetes.io/enforce": "restricted"}}}
    assert get_path(labels, 'metadata.labels["pod-security.kubernetes.io/enforce"]') == "restricted"


def test_conditions_states_and_absent_fields(live, sim):
    available = Verifier(live).condition(
        "apps/v1", "Deployment", "web", "Available", namespace="verify"
    )
    assert available.passed and available.reason.startswith("Available=True")
    node = Verifier(live).condition("v1", "Node", "node-1", "Ready")
    assert node.passed
    unknown = Verifier(live).condition(
        "apps/v1", "Deployment", "web", "Imaginary", namespace="verify"
    )
    assert not unknown.passed and unknown.reason == "no Imaginary condition"
    pulling = wait_for(
        lambda: (
            Verifier(live).pods_in_state("verify", {"app": "broken"}, "ImagePullBackOff")
            or Verifier(live).pods_in_state("verify", {"app": "broken"}, "ErrImagePull")
        )
    )
    assert pulling.passed
    assert Verifier(live).pods_in_state("verify", {"app": "web"}, "Ready").passed
    assert not Verifier(live).pods_in_state("verify", {"app": "web"}, "CrashLoopBackOff").passed
    assert Verifier(live).field_absent("v1", "Node", "node-1", "spec.unschedulable").passed
    assert Verifier(live).absent("apps/v1", "Deployment", "gone", namespace="verify").passed
    here = Verifier(live).absent("apps/v1", "Deployment", "web", namespace="verify")
    assert not here.passed and here.reason.startswith("still exists")
    sim.kubectl("cordon", "node-1")
    try:
        cordoned = Verifier(live).field_absent("v1", "Node", "node-1", "spec.unschedulable")
        assert not cordoned.passed and cordoned.reason == "spec.unschedulable = True"
    finally:
        sim.kubectl("uncordon", "node-1")
