"""A task's own controller on an embedded cluster (nodesim/podnet.py): an alpine/k8s pod
running a kubectl loop with in-cluster config — the cluster's stock kubectl, the pod's
projected token, the apiserver reached at the kubernetes Service's ClusterIP — reconciles
as its RBAC allows: it reports an unsupported mode, then the supported one after the fix,
and is refused what its Role does not grant (as infra-bench's operators do)."""

import pytest

from kubeproof.nodesim import runbox
from tests.conftest import wait_for
from tests.nodesim.conftest import apply, get

needs_sandbox = pytest.mark.skipif(not runbox.available(), reason="needs busybox and bwrap")
pytestmark = [pytest.mark.cluster, needs_sandbox]

CONTROLLER = """
apiVersion: v1
kind: ServiceAccount
metadata: {name: widget-controller}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: widget-controller}
rules:
- {apiGroups: [""], resources: [configmaps], resourceNames: [widget], verbs: [get]}
- {apiGroups: [""], resources: [configmaps], resourceNames: [widget-status], verbs: [get, patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: widget-controller}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: widget-controller}
subjects: [{kind: ServiceAccount, name: widget-controller}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: widget-controller}
spec:
  selector: {matchLabels: {app: widget-controller}}
  template:
    metadata: {labels: {app: widget-controller}}
    spec:
      serviceAccountName: widget-controller
      containers:
      - name: reconcile
        image: alpine/k8s:1.30.6
        command:
        - sh
        - -c
        - |
          kubectl get secrets 2>&1 | head -n 1
          while true; do
            mode="$(kubectl get configmap widget -o jsonpath='{.data.mode}')"
            case "$mode" in active|passive) ready=true ;; *) ready=false ;; esac
            kubectl patch configmap widget-status --type merge \\
              -p "{\\"data\\":{\\"ready\\":\\"$ready\\",\\"mode\\":\\"$mode\\"}}" >/dev/null
            echo "reconciled mode=$mode ready=$ready"
            sleep 1
          done
"""


def _status(sim, ns: str) -> dict:
    return get(sim, "configmap", "widget-status", ns).get("data") or {}


def test_a_kubectl_loop_in_a_pod_reconciles_with_its_own_rbac(sim, ns):
    sim.kubectl("create", "configmap", "widget", "-n", ns, "--from-literal=mode=standby")
    sim.kubectl("create", "configmap", "widget-status", "-n", ns)
    apply(sim, CONTROLLER, ns)
    wait_for(lambda: _status(sim, ns).get("ready") == "false", timeout=45)
    assert _status(sim, ns)["mode"] == "standby"
    sim.kubectl("patch", "configmap", "widget", "-n", ns, "-p", '{"data":{"mode":"active"}}')
    wait_for(lambda: _status(sim, ns) == {"ready": "true", "mode": "active"}, timeout=20)
    logs = sim.kubectl("logs", "-n", ns, "deployment/widget-controller").stdout
    # its own identity, not the node's or an admin's: the Role grants no Secrets
    who = f"system:serviceaccount:{ns}:widget-controller"
    assert f'secrets is forbidden: User "{who}" cannot list resource "secrets"' in logs
    assert "reconciled mode=active ready=true" in logs
