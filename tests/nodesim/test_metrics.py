"""metrics.k8s.io from the behaviour models: kubectl top, and the real HPA controller."""

import json

import pytest

from tests.conftest import wait_for
from tests.nodesim.conftest import apply, get

pytestmark = pytest.mark.cluster


def test_top_pods_and_nodes_answer_from_the_models(sim, ns):
    sim.kubectl("create", "deployment", "web", "--image=nginx:1.27", "-n", ns)
    sim.kubectl("rollout", "status", "deployment/web", "-n", ns, "--timeout=30s", timeout=40)
    service = get(sim, "apiservice", "v1beta1.metrics.k8s.io", "")
    assert any(
        c["type"] == "Available" and c["status"] == "True" for c in service["status"]["conditions"]
    )
    top = wait_for(
        lambda: sim.kubectl("top", "pods", "-n", ns, "--no-headers", check=False).stdout.split()
    )
    # nginx's model: 2m CPU, 12Mi memory
    assert top[1:] == ["2m", "12Mi"]
    nodes = sim.kubectl("top", "nodes", "--no-headers").stdout
    assert "node-1" in nodes and "node-2" in nodes


def test_hpa_scales_a_deployment_when_load_rises(sim, ns):
    sim.kubectl("create", "deployment", "web", "--image=nginx:1.27", "-n", ns)
    sim.kubectl("set", "resources", "deployment/web", "--requests=cpu=100m", "-n", ns)
    sim.kubectl("rollout", "status", "deployment/web", "-n", ns, "--timeout=30s", timeout=40)
    sim.kubectl("autoscale", "deployment/web", "--cpu=50%", "--min=1", "--max=4", "-n", ns)

    def utilization():
        hpa = get(sim, "hpa", "web", ns)
        current = hpa.get("status", {}).get("currentMetrics") or []
        # before the first reading the entry has no `resource` yet
        reading = current[0].get("resource", {}).get("current", {}) if current else {}
        return reading.get("averageUtilization")

    # nginx's model uses 2m of its 100m request
    assert wait_for(utilization, timeout=60, interval=1, what="HPA reading metrics") == 2
    assert get(sim, "deployment", "web", ns)["spec"]["replicas"] == 1

    sim.kubectl(
        "annotate", "pods", "-l", "app=web", "-n", ns, "kubeproof.dev/cpu-usage=200m", "--overwrite"
    )
    wait_for(
        lambda: get(sim, "deployment", "web", ns)["spec"]["replicas"] > 1,
        timeout=60,
        interval=1,
        what="the HPA scaling up",
    )
    events = json.loads(
        sim.kubectl(
            "get",
            "events",
            "-n",
            ns,
            "--field-selector",
            "involvedObject.kind=HorizontalPodAutoscaler",
            "-o",
            "json",
        ).stdout
    )["items"]
    assert any(e["reason"] == "SuccessfulRescale" for e in events)


BURNER = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: burner}
spec:
  replicas: 1
  selector: {matchLabels: {app: burner}}
  template:
    metadata: {labels: {app: burner}}
    spec:
      containers:
      - name: burner
        image: busybox:1.36
        command: [sh, -c, "while :; do :; done"]
        resources: {requests: {cpu: 10m}, limits: {cpu: 100m}}
"""


def test_a_script_that_really_runs_shows_the_cpu_it_burns_and_the_hpa_scales_on_it(sim, ns):
    # a busy loop held to its 100m limit by its control group: metrics-server's rate of its
    # counter, once two scrapes (or its start and one) are there, at most 100m and on a
    # loaded machine less (29m seen at load 9) — far over 20 % of its 10m request, so the
    # real HPA controller scales the Deployment out to its maximum
    apply(sim, BURNER, ns)
    sim.kubectl("rollout", "status", "deployment/burner", "-n", ns, "--timeout=30s", timeout=40)

    def burned() -> int | None:
        top = sim.kubectl("top", "pods", "-n", ns, "--no-headers", check=False).stdout.split()
        return int(top[1].removesuffix("m")) if len(top) >= 2 and top[1].endswith("m") else None

    cpu = wait_for(burned, timeout=60, interval=2, what="the burner's metrics")
    assert 4 < cpu <= 110, cpu  # its quota, less what a loaded machine did not give it
    sim.kubectl("autoscale", "deployment/burner", "--cpu=20%", "--min=1", "--max=3", "-n", ns)
    wait_for(
        lambda: get(sim, "deployment", "burner", ns)["spec"]["replicas"] == 3,
        timeout=90,
        interval=2,
        what="the HPA scaling out on the measured CPU",
    )
