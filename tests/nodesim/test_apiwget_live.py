"""A busybox script that calls the Kubernetes API with its own projected ServiceAccount
token (nodesim/apiwget.py) on an embedded cluster: RBAC decides, as on a real cluster — a
Role with `get` on the one named ConfigMap lets it read a value, a Role without the verb
gets busybox wget's 403 line.

Deterministic by construction, not by retrying: the Roles and bindings are in force
(`kubectl auth can-i` asks the same authorizer) before the pods exist, the kubelet starts
the containers only once their token is written (tokens.PodTokens: a failed request fails
the mount and is retried), and each script makes one request and exits. The body is
indented: the apiserver pretty-prints JSON for a `Wget` User-Agent, as for `curl`."""

import pytest

from kubeproof.nodesim import runbox
from tests.conftest import wait_for
from tests.nodesim.conftest import apply, get

needs_sandbox = pytest.mark.skipif(not runbox.available(), reason="needs busybox and bwrap")
pytestmark = [pytest.mark.cluster, needs_sandbox]

ACCESS = """
apiVersion: v1
kind: ServiceAccount
metadata: {name: SA}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: SA}
rules:
- {apiGroups: [""], resources: [configmaps], resourceNames: [worker-runtime], verbs: [VERB]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: SA}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: SA}
subjects: [{kind: ServiceAccount, name: SA}]
"""
POD = """
apiVersion: v1
kind: Pod
metadata: {name: SA}
spec:
  serviceAccountName: SA
  restartPolicy: Never
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c]
    args:
    - |
      sa=/var/run/secrets/kubernetes.io/serviceaccount
      token="$(cat $sa/token)"
      url="https://${KUBERNETES_SERVICE_HOST}:${KUBERNETES_SERVICE_PORT}/api/v1"
      url="${url}/namespaces/$(cat $sa/namespace)/configmaps/worker-runtime"
      wget --no-check-certificate --header "Authorization: Bearer ${token}" \\
        -q -O /tmp/cm.json "$url" || exit 1
      grep -o '"mode": "[a-z-]*"' /tmp/cm.json
"""
REFUSED = "wget: server returned error: HTTP/1.1 403 Forbidden\n"


def _finished(sim, ns: str, pod: str) -> str | None:
    phase = get(sim, "pod", pod, ns).get("status", {}).get("phase")
    return phase if phase in ("Succeeded", "Failed") else None


def _logs(sim, ns: str, pod: str) -> str:
    return sim.kubectl("logs", "-n", ns, pod).stdout


def test_a_script_reads_the_api_with_its_own_token_and_rbac_decides(sim, ns):
    sim.kubectl(
        "create", "configmap", "worker-runtime", "-n", ns, "--from-literal=mode=process-batch"
    )
    for sa, verb in (("reader", "get"), ("lister", "list")):
        apply(sim, ACCESS.replace("SA", sa).replace("VERB", verb), ns)
        who = f"--as=system:serviceaccount:{ns}:{sa}"
        asked = ("auth", "can-i", verb, "configmaps/worker-runtime", "-n", ns, who)
        wait_for(
            lambda a=asked: sim.kubectl(*a, check=False).stdout.strip() == "yes",
            60,
            what=f"the binding of {sa}",
        )
    for sa in ("reader", "lister"):
        apply(sim, POD.replace("SA", sa), ns)
    reader = wait_for(lambda: _finished(sim, ns, "reader"), 180, what="reader")
    assert (reader, _logs(sim, ns, "reader")) == ("Succeeded", '"mode": "process-batch"\n')
    lister = wait_for(lambda: _finished(sim, ns, "lister"), 60, what="lister")
    assert (lister, _logs(sim, ns, "lister")) == ("Failed", REFUSED)
