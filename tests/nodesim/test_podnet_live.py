"""A task's own controller on an embedded cluster (nodesim/podnet.py): an alpine/k8s pod
running a kubectl loop with in-cluster config — the cluster's stock kubectl, the pod's
projected token, the apiserver reached at the kubernetes Service's ClusterIP — reconciles
as its RBAC allows: it reports an unsupported mode, then the supported one after the fix,
and is refused what its Role does not grant (as infra-bench's operators do)."""

import pytest

from kubeproof.cluster.audit import WORKLOAD_SOURCE, Attribution, read_events, username
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

# the agent's identity in the second test: it may exec into pods
EXEC_RIGHTS = """
apiVersion: v1
kind: ServiceAccount
metadata: {name: agent}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: agent}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, list]}
- {apiGroups: [""], resources: [pods/exec], verbs: [create, get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: agent}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: agent}
subjects: [{kind: ServiceAccount, name: agent}]
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


def test_a_pods_requests_are_its_workloads_but_what_the_agent_runs_in_it_is_the_agents(sim, ns):
    """The audit log tells a pod's own requests (its bound token, from the pod network) from
    the agent's: the controller's loop is nobody's doing but its own, while a kubectl the
    agent runs in the pod through `kubectl exec` acts as the pod's ServiceAccount and is
    counted as the agent's (the agent here: an identity the harness impersonates)."""
    sim.kubectl("create", "configmap", "widget", "-n", ns, "--from-literal=mode=active")
    sim.kubectl("create", "configmap", "widget-status", "-n", ns)
    apply(sim, CONTROLLER, ns)
    wait_for(lambda: _status(sim, ns).get("ready") == "true", timeout=45)
    agent = f"system:serviceaccount:{ns}:agent"
    apply(sim, EXEC_RIGHTS, ns)
    pod = sim.kubectl(
        "get", "pods", "-n", ns, "-l", "app=widget-controller", "-o", "name"
    ).stdout.split()[0]
    ran = sim.kubectl(
        "exec", "-n", ns, pod, f"--as={agent}", "--",
        "kubectl", "get", "configmap", "widget", "-o", "jsonpath={.data.mode}",
    )  # fmt: skip
    assert ran.stdout == "active"
    who = f"system:serviceaccount:{ns}:widget-controller"
    events = list(read_events(sim.layout.audit_log))
    agents = {e["auditID"] for e in Attribution().agents(events)}
    theirs = [e for e in events if username(e) == who and e["stage"] == "ResponseComplete"]
    assert theirs and all(e["sourceIPs"][-1] == WORKLOAD_SOURCE for e in theirs)
    patches = [e["auditID"] in agents for e in theirs if e["verb"] == "patch"]
    assert patches and not any(patches)  # the loop's own writes
    # the agent's exec, and the get of `widget` run inside it, are the agent's
    execs = [e for e in events if (e.get("objectRef") or {}).get("subresource") == "exec"]
    assert execs and all(e["impersonatedUser"]["username"] == agent for e in execs)
    assert {e["auditID"] for e in execs} <= agents
    began = min(e["requestReceivedTimestamp"] for e in execs)
    inside = [
        e for e in theirs
        if e["auditID"] in agents and e["verb"] == "get" and e["objectRef"].get("name") == "widget"
    ]  # fmt: skip
    assert inside and all(e["requestReceivedTimestamp"] >= began for e in inside)
