"""CoreDNS's live Corefile reload on an embedded cluster, through stock kubectl: an edit of
the coredns ConfigMap reaches the running pods with the kubelet's volume sync (60-90 s),
their reload plugin applies it on its next tick (30 s +/- 7.5 s) and logs it as CoreDNS
1.14.2 does, and cluster DNS answers by what they have loaded — no restart needed."""

import json

import pytest

from tests.conftest import wait_for

pytestmark = pytest.mark.cluster

# the volume sync (<= 90 s) plus a reload tick (<= 37.5 s), with room for a loaded machine
RELOAD_WAIT = 180


def coredns_pods(sim) -> list[dict]:
    out = sim.kubectl("get", "pods", "-n", "kube-system", "-l", "k8s-app=kube-dns", "-o", "json")
    return json.loads(out.stdout)["items"]


def reloaded(sim, times: int) -> bool:
    """Every CoreDNS pod has logged `times` completed reloads."""
    pods = coredns_pods(sim)
    logs = [sim.kubectl("logs", "-n", "kube-system", p["metadata"]["name"]).stdout for p in pods]
    return bool(pods) and all(log.count("[INFO] Reloading complete\n") >= times for log in logs)


def test_an_edited_corefile_is_reloaded_live_and_dns_follows_it(sim):
    sim.kubectl("run", "dnsclient", "--image=busybox:1.36", "--", "sleep", "3600")
    sim.kubectl("wait", "--for=condition=Ready", "pod/dnsclient", "--timeout=30s", timeout=40)

    def nslookup():
        return sim.kubectl("exec", "dnsclient", "--", "nslookup", "kubernetes.default", check=False)

    assert nslookup().returncode == 0
    cm = json.loads(sim.kubectl("get", "cm", "coredns", "-n", "kube-system", "-o", "json").stdout)
    good = cm["data"]["Corefile"]
    start = good.index("    kubernetes")
    end = good.index("    prometheus")
    without = good[:start] + good[end:]  # parses, but no kubernetes plugin
    patch = {"data": {"Corefile": without}}
    sim.kubectl("patch", "cm", "coredns", "-n", "kube-system", "-p", json.dumps(patch))

    wait_for(lambda: reloaded(sim, 1), timeout=RELOAD_WAIT, interval=2, what="CoreDNS reload")
    name = coredns_pods(sim)[0]["metadata"]["name"]
    logs = sim.kubectl("logs", "-n", "kube-system", name).stdout.splitlines()
    at = logs.index("[INFO] Reloading")
    assert logs[at + 1].startswith("[INFO] plugin/reload: Running configuration SHA512 = ")
    assert logs[at + 1] != logs[1]  # a new configuration's SHA-512
    assert logs[at + 2] == "[INFO] Reloading complete"
    for p in coredns_pods(sim):  # reloaded in place: no restart, still ready
        (status,) = p["status"]["containerStatuses"]
        assert status["ready"] and status["restartCount"] == 0
    # the query falls through to `forward`: the node's resolver knows no cluster.local
    lost = wait_for(lambda: nslookup().returncode == 1 and nslookup(), what="NXDOMAIN")
    assert "NXDOMAIN" in lost.stdout

    restore = json.dumps({"data": {"Corefile": good}})
    sim.kubectl("patch", "cm", "coredns", "-n", "kube-system", "-p", restore)
    wait_for(lambda: reloaded(sim, 2), timeout=RELOAD_WAIT, interval=2, what="second reload")
    assert wait_for(lambda: nslookup().returncode == 0, what="DNS back")
