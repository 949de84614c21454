"""netsim on a live embedded cluster: the CLI's matrix equals the pure functions' on the
objects the cluster holds."""

import json

import pytest

from kubeproof.netsim import Network
from kubeproof.netsim import matrix as mx
from kubeproof.netsim.live import read
from tests.conftest import run_cli, wait_for

pytestmark = pytest.mark.cluster

MANIFESTS = """
apiVersion: v1
kind: Namespace
metadata: {name: netlive, labels: {team: shop}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: netlive}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: nginx:1.27, ports: [{containerPort: 80, name: http}]}]
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: netlive}
spec:
  selector: {app: api}
  ports: [{name: http, port: 8080, targetPort: http}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: netlive, labels: {app: web}}
spec: {containers: [{name: web, image: nginx:1.27}]}
---
apiVersion: v1
kind: Pod
metadata: {name: intruder, namespace: netlive, labels: {app: intruder}}
spec: {containers: [{name: c, image: nginx:1.27}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-from-web, namespace: netlive}
spec:
  podSelector: {matchLabels: {app: api}}
  ingress: [{from: [{podSelector: {matchLabels: {app: web}}}], ports: [{port: http}]}]
"""


def test_cli_matrix_matches_the_pure_functions(sim, tmp_path):
    sim.kubectl("apply", "-f", "-", input=MANIFESTS)
    sim.kubectl("rollout", "status", "deployment/api", "-n", "netlive", "--timeout=30s", timeout=40)
    sim.kubectl(
        "wait",
        "--for=condition=Ready",
        "pod/web",
        "pod/intruder",
        "-n",
        "netlive",
        "--timeout=30s",
        timeout=40,
    )

    def two_ready_endpoints():
        slices = json.loads(
            sim.kubectl("get", "endpointslices", "-n", "netlive", "-o", "json").stdout
        )["items"]
        return (
            sum(1 for s in slices for e in s.get("endpoints") or [] if e["conditions"].get("ready"))
            == 2
        )

    wait_for(two_ready_endpoints, what="2 ready api endpoints")
    name = sim.name
    cli = run_cli("net", "matrix", "--cluster", name, "-n", "netlive", "-o", "json")
    assert cli.returncode == 0, cli.stderr
    cells = {(c["from"], c["to"]): c["allowed"] for c in json.loads(cli.stdout)["cells"]}

    net = Network.from_objects(read(sim.client()))
    pure = mx.compute(
        net, mx.default_sources(net, ["netlive"]), mx.default_targets(net, ["netlive"])
    )
    assert cells == {k: v.allowed for k, v in pure.items()}
    assert cells[("netlive/web", "api.netlive:8080")] is True
    assert cells[("netlive/intruder", "api.netlive:8080")] is False

    check = run_cli(
        "net", "check", "--cluster", name, "--from", "netlive/intruder", "--to", "api:8080"
    )
    assert check.returncode == 3
    assert "isolated for ingress by NetworkPolicy api-from-web" in check.stdout

    intended = tmp_path / "intended.json"
    intended.write_text(
        json.dumps([{"from": "netlive/intruder", "to": "api.netlive:8080", "allowed": True}])
    )
    diff = run_cli(
        "net",
        "matrix",
        "--cluster",
        name,
        "-n",
        "netlive",
        "--intended",
        str(intended),
        "-o",
        "json",
    )
    assert diff.returncode == 3
    assert json.loads(diff.stdout)["mismatches"][0]["code"] == "ingress-denied"
