"""What a kubeadm cluster shows beside CoreDNS, live through stock kubectl: the control-plane
node (role label, NoSchedule taint), its static pods mirrored into kube-system, and a
kube-proxy pod on every node — which `kubectl drain` refuses to evict unless told to
ignore DaemonSets; kubeadm's ConfigMaps with this cluster's values, and the static pods'
logs, which are the real processes'."""

import base64
import datetime as dt
import json

import pytest
import yaml

from tests.conftest import wait_for

pytestmark = pytest.mark.cluster

COMPONENTS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler")


def _json(sim, *argv):
    return json.loads(sim.kubectl(*argv, "-o", "json").stdout)


def test_control_plane_node_static_pods_and_kube_proxy(sim):
    nodes = {n["metadata"]["name"]: n for n in _json(sim, "get", "nodes")["items"]}
    assert sorted(nodes) == ["control-plane", "node-1", "node-2"]
    cp = nodes["control-plane"]
    assert cp["metadata"]["labels"]["node-role.kubernetes.io/control-plane"] == ""
    assert cp["spec"]["taints"] == [
        {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
    ]
    assert cp["spec"]["podCIDR"] == "10.244.0.0/24"
    assert nodes["node-1"]["spec"]["podCIDR"] == "10.244.1.0/24"  # workers keep theirs
    table = sim.kubectl("get", "nodes").stdout
    assert "control-plane   Ready    control-plane" in table

    def mirrors():
        pods = _json(sim, "get", "pods", "-n", "kube-system", "-l", "tier=control-plane")
        return {p["metadata"]["name"]: p for p in pods["items"]}

    wait_for(lambda: len(mirrors()) == 4, what="the four static pods")
    pods = mirrors()
    assert sorted(pods) == [f"{c}-control-plane" for c in COMPONENTS]
    api = pods["kube-apiserver-control-plane"]
    annotations = api["metadata"]["annotations"]
    assert annotations["kubernetes.io/config.source"] == "file"
    assert annotations["kubernetes.io/config.mirror"] == annotations["kubernetes.io/config.hash"]
    assert len(annotations["kubernetes.io/config.hash"]) == 32
    owner = api["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("Node", "control-plane", True)
    assert owner["uid"] == cp["metadata"]["uid"]
    spec = api["spec"]
    assert spec["nodeName"] == "control-plane" and spec["hostNetwork"] is True
    assert spec["priorityClassName"] == "system-node-critical"
    assert {"operator": "Exists", "effect": "NoExecute"} in spec["tolerations"]
    command = spec["containers"][0]["command"]
    assert command[0] == "kube-apiserver"
    assert "--enable-admission-plugins=NodeRestriction" in command
    assert "--client-ca-file=/etc/kubernetes/pki/ca.crt" in command
    assert not any(str(sim.layout.root) in arg for arg in command)  # no harness path
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "250m"}
    wait_for(
        lambda: all(
            p["status"].get("podIP") == sim.address
            and [c["ready"] for c in p["status"].get("containerStatuses", [])] == [True]
            for p in mirrors().values()
        ),
        what="static pods ready",
    )

    # a mirror pod is only a view: deleted, it comes back at once, its container still running
    started = pods["kube-scheduler-control-plane"]["status"]["containerStatuses"][0]["state"]
    old_uid = pods["kube-scheduler-control-plane"]["metadata"]["uid"]
    sim.kubectl("delete", "pod", "-n", "kube-system", "kube-scheduler-control-plane")
    wait_for(
        lambda: (
            mirrors().get("kube-scheduler-control-plane", {}).get("metadata", {}).get("uid")
            not in (None, old_uid)
        ),
        what="the mirror pod recreated",
    )
    wait_for(
        lambda: mirrors()["kube-scheduler-control-plane"]["status"].get("containerStatuses"),
        what="its status",
    )
    again = mirrors()["kube-scheduler-control-plane"]
    assert again["status"]["containerStatuses"][0]["state"] == started
    assert again["status"]["containerStatuses"][0]["restartCount"] == 0

    # kube-proxy: one pod per node, the control-plane node included (it tolerates everything)
    proxies = _json(sim, "get", "pods", "-n", "kube-system", "-l", "k8s-app=kube-proxy")
    assert sorted(p["spec"]["nodeName"] for p in proxies["items"]) == sorted(nodes)
    conf = _json(sim, "get", "configmap", "-n", "kube-system", "kube-proxy")["data"]
    assert 'mode: ""' in conf["config.conf"] and "clusterCIDR: 10.244.0.0/16" in conf["config.conf"]

    # (a server-side dry run: the cluster is shared with other tests)
    drain = ("drain", "node-1", "--dry-run=server", "--timeout=10s")
    refused = sim.kubectl(*drain, check=False)
    assert refused.returncode != 0
    assert "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)" in (
        refused.stderr
    )
    assert sim.kubectl(*drain, "--ignore-daemonsets", "--delete-emptydir-data").returncode == 0


def test_kubeadm_config_maps_and_static_pod_logs(sim):
    def data(ns, name):
        return _json(sim, "get", "configmap", "-n", ns, name)["data"]

    config = yaml.safe_load(data("kube-system", "kubeadm-config")["ClusterConfiguration"])
    assert config["kind"] == "ClusterConfiguration"
    assert config["networking"]["podSubnet"] == "10.244.0.0/16"
    # this cluster's address, not that of the cold start the snapshot came from
    api = {a["name"]: a["value"] for a in config["apiServer"]["extraArgs"]}
    assert api["bind-address"] == sim.address
    kubelet = yaml.safe_load(data("kube-system", "kubelet-config")["kubelet"])
    assert (kubelet["cgroupDriver"], kubelet["clusterDNS"]) == ("systemd", ["10.96.0.10"])
    info = yaml.safe_load(data("kube-public", "cluster-info")["kubeconfig"])
    ca = base64.b64decode(info["clusters"][0]["cluster"]["certificate-authority-data"])
    assert ca == sim.layout.cert("ca").read_bytes()

    pod = ("-n", "kube-system", "kube-apiserver-control-plane")
    lines = sim.kubectl("logs", *pod, "--tail=3", "--timestamps").stdout.splitlines()
    assert len(lines) == 3
    stamp, _, text = lines[-1].partition(" ")
    assert dt.datetime.fromisoformat(stamp) <= dt.datetime.now(dt.UTC)
    everything = sim.kubectl("logs", *pod).stdout
    assert text in everything
    assert str(sim.layout.root) not in everything
    admin = sim.layout.key("admin").read_text().splitlines()[1]
    assert admin not in everything
    etcd = sim.kubectl("logs", "-n", "kube-system", "etcd-control-plane", check=False)
    assert etcd.returncode == 0 and str(sim.layout.root) not in etcd.stdout
    previous = sim.kubectl("logs", *pod, "--previous", check=False)
    assert 'previous terminated container "kube-apiserver"' in previous.stderr
