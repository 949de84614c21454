"""CoreDNS in kube-system as kubeadm installs it, live through stock kubectl: its pods run on
the simulated nodes, kube-dns holds 10.96.0.10, and in-pod name resolution works only while
CoreDNS does (scaled to zero, or crash-looping on a Corefile that does not parse, it fails)."""

import json

import pytest

from tests.conftest import wait_for

pytestmark = pytest.mark.cluster


def test_coredns_serves_cluster_dns_and_its_loss_breaks_resolution(sim):
    pods = json.loads(
        sim.kubectl(
            "get", "pods", "-n", "kube-system", "-l", "k8s-app=kube-dns", "-o", "json"
        ).stdout
    )["items"]
    # the cluster is ready only once CoreDNS is available (bootstrap.py)
    assert len(pods) == 2
    for p in pods:
        assert p["status"]["phase"] == "Running"
        assert [c["ready"] for c in p["status"]["containerStatuses"]] == [True]
    table = sim.kubectl("get", "pods", "-n", "kube-system", "-l", "k8s-app=kube-dns").stdout
    assert table.count("1/1     Running") == 2
    svc = sim.kubectl("get", "svc", "-n", "kube-system", "kube-dns").stdout
    assert "10.96.0.10" in svc and "53/UDP,53/TCP,9153/TCP" in svc
    logs = sim.kubectl("logs", "-n", "kube-system", pods[0]["metadata"]["name"]).stdout
    assert logs.startswith(".:53\n[INFO] plugin/reload: Running configuration SHA512 = ")
    assert "CoreDNS-1.14.2" in logs

    sim.kubectl("run", "dnsclient", "--image=busybox:1.36", "--", "sleep", "3600")
    sim.kubectl("wait", "--for=condition=Ready", "pod/dnsclient", "--timeout=30s", timeout=40)

    def exec_(*argv):
        return sim.kubectl("exec", "dnsclient", "--", *argv, check=False)

    assert exec_("nslookup", "kubernetes.default").returncode == 0
    assert "10.96.0.1" in exec_("nslookup", "kubernetes.default").stdout

    sim.kubectl("scale", "deploy/coredns", "-n", "kube-system", "--replicas=0")
    wait_for(lambda: exec_("nslookup", "kubernetes.default").returncode == 1, what="DNS down")
    down = exec_("nslookup", "kubernetes.default")
    assert down.stdout == ";; connection timed out; no servers could be reached\n\n"
    assert "wget: bad address" in exec_("wget", "-qO-", "http://kubernetes.default").stderr

    sim.kubectl("scale", "deploy/coredns", "-n", "kube-system", "--replicas=2")
    wait_for(lambda: exec_("nslookup", "kubernetes.default").returncode == 0, what="DNS back")

    # a Corefile CoreDNS cannot parse: restarted pods exit with its message and crash-loop
    cm = json.loads(sim.kubectl("get", "cm", "coredns", "-n", "kube-system", "-o", "json").stdout)
    good = cm["data"]["Corefile"]
    patch = {"data": {"Corefile": good.replace("    errors", "    erors")}}
    sim.kubectl("patch", "cm", "coredns", "-n", "kube-system", "-p", json.dumps(patch))
    sim.kubectl("delete", "pod", "-n", "kube-system", "-l", "k8s-app=kube-dns", "--wait=false")

    def crashed() -> str | None:
        items = json.loads(
            sim.kubectl(
                "get", "pods", "-n", "kube-system", "-l", "k8s-app=kube-dns", "-o", "json"
            ).stdout
        )["items"]
        live = [p for p in items if "deletionTimestamp" not in p["metadata"]]
        restarted = [
            p
            for p in live
            if any(
                c.get("lastState", {}).get("terminated")
                for c in p["status"].get("containerStatuses") or []
            )
        ]
        return restarted[0]["metadata"]["name"] if len(restarted) == 2 else None

    name = wait_for(crashed, timeout=40, what="CoreDNS crash-looping")
    previous = sim.kubectl("logs", "-n", "kube-system", name, "--previous").stdout
    assert previous == "/etc/coredns/Corefile:2 - Error during parsing: Unknown directive 'erors'\n"
    assert exec_("nslookup", "kubernetes.default").stdout.startswith(";; connection timed out")

    sim.kubectl(
        "patch",
        "cm",
        "coredns",
        "-n",
        "kube-system",
        "-p",
        json.dumps({"data": {"Corefile": good}}),
    )
    sim.kubectl("delete", "pod", "-n", "kube-system", "-l", "k8s-app=kube-dns", "--wait=false")
    wait_for(
        lambda: exec_("nslookup", "kubernetes.default").returncode == 0, timeout=40, what="DNS back"
    )
