"""Integration tests against real embedded clusters and stock kubectl."""

import json
import socket
import time

import pytest
import yaml

from kubeproof.cluster import EmbeddedCluster
from kubeproof.cluster.addresses import port_free
from kubeproof.cluster.audit import read_events
from kubeproof.cluster.components import PORTS
from kubeproof.errors import KubeproofError

pytestmark = pytest.mark.cluster


def test_namespaces_bootstrap_and_versions(cluster):
    out = cluster.kubectl("get", "namespaces", "-o", "name").stdout.split()
    for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
        assert f"namespace/{ns}" in out
    version = json.loads(cluster.kubectl("version", "-o", "json").stdout)
    assert version["serverVersion"]["gitVersion"] == cluster.record.kubernetes_version
    assert version["clientVersion"]["gitVersion"] == cluster.record.kubernetes_version
    sa = cluster.kubectl("get", "serviceaccount", "default", "-n", "kube-public", "-o", "name")
    assert sa.stdout.strip() == "serviceaccount/default"


def test_deployment_gets_a_replicaset_and_pods_stay_pending(cluster):
    cluster.kubectl("create", "namespace", "deploy-test")
    cluster.kubectl(
        "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "-n", "deploy-test"
    )
    deadline = time.monotonic() + 30
    pods = []
    while time.monotonic() < deadline:
        rs = cluster.kubectl("get", "rs", "-n", "deploy-test", "-o", "json").stdout
        pods = json.loads(cluster.kubectl("get", "pods", "-n", "deploy-test", "-o", "json").stdout)
        if json.loads(rs)["items"] and len(pods["items"]) == 2:
            break
        time.sleep(0.2)
    assert len(json.loads(rs)["items"]) == 1
    assert len(pods["items"]) == 2
    # this cluster has no nodes: the scheduler has nowhere to put them
    assert {p["status"]["phase"] for p in pods["items"]} == {"Pending"}


def _token_kubeconfig(cluster, tmp_path, namespace, sa):
    token = cluster.kubectl("create", "token", sa, "-n", namespace).stdout.strip()
    config = yaml.safe_load(cluster.admin_kubeconfig.read_text())
    config["users"][0]["user"] = {"token": token}
    path = tmp_path / f"{sa}.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


def test_rbac_forbids_an_unbound_service_account(cluster, tmp_path):
    cluster.kubectl("create", "namespace", "rbac-test")
    cluster.kubectl("create", "serviceaccount", "agent", "-n", "rbac-test")
    kubeconfig = _token_kubeconfig(cluster, tmp_path, "rbac-test", "agent")
    denied = cluster.kubectl(
        f"--kubeconfig={kubeconfig}", "get", "pods", "-n", "rbac-test", check=False
    )
    assert denied.returncode != 0
    assert 'User "system:serviceaccount:rbac-test:agent" cannot list resource "pods"' in (
        denied.stderr
    )
    who = "--as=system:serviceaccount:rbac-test:agent"
    can = cluster.kubectl("auth", "can-i", "list", "pods", "-n", "rbac-test", who, check=False)
    assert (can.returncode, can.stdout.strip()) == (1, "no")

    cluster.kubectl(
        "create", "role", "reader", "--verb=get,list", "--resource=pods", "-n", "rbac-test"
    )
    cluster.kubectl(
        "create",
        "rolebinding",
        "agent-reader",
        "--role=reader",
        "--serviceaccount=rbac-test:agent",
        "-n",
        "rbac-test",
    )
    can = cluster.kubectl("auth", "can-i", "list", "pods", "-n", "rbac-test", who, check=False)
    assert (can.returncode, can.stdout.strip()) == (0, "yes")
    still = cluster.kubectl("auth", "can-i", "delete", "pods", "-n", "rbac-test", who, check=False)
    assert still.stdout.strip() == "no"
    allowed = cluster.kubectl(f"--kubeconfig={kubeconfig}", "get", "pods", "-n", "rbac-test")
    assert allowed.returncode == 0


def test_server_side_dry_run_rejects_invalid_manifest_with_apiserver_message(cluster):
    manifest = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: broken, namespace: default}
spec:
  replicas: -1
  selector: {matchLabels: {app: broken}}
  template:
    metadata: {labels: {app: other}}
    spec: {containers: [{name: c, image: nginx}]}
"""
    result = cluster.kubectl("apply", "--dry-run=server", "-f", "-", input=manifest, check=False)
    assert result.returncode != 0
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in result.stderr
    assert "`selector` does not match template `labels`" in result.stderr
    # dry-run persisted nothing
    got = cluster.kubectl("get", "deployment", "broken", check=False)
    assert got.returncode != 0 and "NotFound" in got.stderr


def test_audit_log_records_a_write_with_request_and_response(cluster):
    cluster.kubectl("create", "configmap", "audited", "--from-literal=k=v", "-n", "default")
    events = [
        e
        for e in read_events(cluster.audit_log)
        if e.get("verb") == "create"
        and e.get("objectRef", {}).get("resource") == "configmaps"
        and e.get("objectRef", {}).get("name") == "audited"
    ]
    assert len(events) == 1
    event = events[0]
    assert event["level"] == "RequestResponse"
    assert event["user"]["username"] == "kubeproof-admin"
    assert event["requestObject"]["data"] == {"k": "v"}
    assert event["responseStatus"]["code"] == 201
    assert event["responseObject"]["metadata"]["uid"]
    reads = [e for e in read_events(cluster.audit_log) if e.get("verb") == "list"]
    assert reads and all(e["level"] == "Metadata" for e in reads)


def test_three_clusters_at_once_are_isolated(cluster, tmp_path):
    with EmbeddedCluster() as second, EmbeddedCluster() as third:
        addresses = {cluster.address, second.address, third.address}
        assert len(addresses) == 3
        second.kubectl("create", "namespace", "only-in-second")
        for other in (cluster, third):
            got = other.kubectl("get", "namespace", "only-in-second", check=False)
            assert got.returncode != 0 and "NotFound" in got.stderr
        # one cluster's admin credentials are worthless against another
        config = yaml.safe_load(second.admin_kubeconfig.read_text())
        config["clusters"][0]["cluster"]["server"] = third.server
        config["clusters"][0]["cluster"]["insecure-skip-tls-verify"] = True
        del config["clusters"][0]["cluster"]["certificate-authority-data"]
        forged = tmp_path / "forged.kubeconfig"
        forged.write_text(yaml.safe_dump(config))
        denied = third.kubectl(f"--kubeconfig={forged}", "get", "namespaces", check=False)
        assert denied.returncode != 0
        assert "Unauthorized" in denied.stderr or "unauthorized" in denied.stderr.lower()


def test_stop_leaves_no_process_and_no_bound_port(binaries_built):
    c = EmbeddedCluster().start()
    refs = [entry.ref() for entry in c.record.components.values()]
    address, state = c.address, c.record.state_dir
    # etcd, apiserver, controller manager, scheduler and the node simulator
    assert all(r.alive() for r in refs) and len(refs) == 5
    c.stop()
    assert not any(r.alive() for r in refs)
    assert all(port_free(address, port) for port in PORTS.values())
    assert not state.exists()


def test_cold_start_bootstraps_from_scratch(binaries_built):
    with EmbeddedCluster(warm=False) as c:
        assert c.record.start_mode == "cold"
        assert c.kubectl("get", "clusterrole", "cluster-admin", "-o", "name").stdout.strip()


def test_busy_address_is_reported_with_the_port(binaries_built):
    address = "127.0.77.77"
    with socket.socket() as sock:
        sock.bind((address, 6443))
        sock.listen()
        with pytest.raises(KubeproofError, match=r"127\.0\.77\.77:6443 \(kube-apiserver port\)"):
            EmbeddedCluster(address=address).start()


def test_invalid_name_is_rejected_before_anything_starts():
    with pytest.raises(KubeproofError, match="invalid cluster name"):
        EmbeddedCluster("Bad_Name")
