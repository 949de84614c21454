"""The `kubeproof cluster` commands, run as a user would run them."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from kubeproof.cluster import ExternalCluster
from kubeproof.cluster.addresses import busy_ports
from kubeproof.cluster.process import ProcessRef
from kubeproof.paths import clusters_root
from tests.conftest import run_cli

pytestmark = pytest.mark.cluster


def test_up_status_kubeconfig_logs_down(binaries_built):
    up = run_cli("cluster", "up", "--name", "cli-flow", "-o", "json")
    assert up.returncode == 0, up.stderr
    info = json.loads(up.stdout)
    assert info["name"] == "cli-flow"
    assert info["kubeconfig"].endswith("admin.kubeconfig")
    try:
        listed = json.loads(run_cli("cluster", "list", "-o", "json").stdout)
        assert [c["state"] for c in listed if c["name"] == "cli-flow"] == ["running"]

        status = run_cli("cluster", "status", "cli-flow", "-o", "json")
        assert status.returncode == 0, status.stdout
        assert json.loads(status.stdout)["healthy"] is True

        path = run_cli("cluster", "kubeconfig", "cli-flow", "--path").stdout.strip()
        assert path == info["kubeconfig"]
        kubectl = ExternalCluster(path)
        assert kubectl.kubectl("get", "ns", "kube-system", "-o", "name").stdout.strip() == (
            "namespace/kube-system"
        )
        logs = run_cli("cluster", "logs", "cli-flow", "kube-apiserver", "--tail", "5")
        assert logs.returncode == 0 and len(logs.stdout.splitlines()) == 5
        audit = run_cli("cluster", "logs", "cli-flow", "audit")
        assert '"auditID"' in audit.stdout
    finally:
        record = json.loads((clusters_root() / "cli-flow" / "cluster.json").read_text())
        down = run_cli("cluster", "down", "cli-flow")
    assert down.returncode == 0, down.stderr
    refs = [ProcessRef(c["pid"], c["started"]) for c in record["components"].values()]
    assert not any(r.alive() for r in refs)
    assert busy_ports(info["address"]) == {}
    assert not (clusters_root() / "cli-flow").exists()


def test_status_reports_a_killed_apiserver(binaries_built):
    assert run_cli("cluster", "up", "--name", "crashy").returncode == 0
    try:
        record = json.loads((clusters_root() / "crashy" / "cluster.json").read_text())
        os.kill(record["components"]["kube-apiserver"]["pid"], signal.SIGKILL)
        time.sleep(0.5)
        status = run_cli("cluster", "status", "crashy", "-o", "json")
        assert status.returncode == 4
        components = {c["name"]: c for c in json.loads(status.stdout)["components"]}
        assert components["kube-apiserver"]["running"] is False
        assert "not running" in components["kube-apiserver"]["detail"]
        assert components["etcd"]["healthy"] is True
        text = run_cli("cluster", "status", "crashy")
        assert text.returncode == 4 and "kube-apiserver" in text.stdout
        listed = json.loads(run_cli("cluster", "list", "-o", "json").stdout)
        assert [c["state"] for c in listed if c["name"] == "crashy"] == ["degraded"]
    finally:
        assert run_cli("cluster", "down", "crashy").returncode == 0


def test_attached_cluster_dies_with_its_harness(binaries_built, tmp_path, monkeypatch):
    # its own state directory: `down --all` below must not stop the other tests' clusters
    monkeypatch.setenv("KUBEPROOF_STATE_DIR", str(tmp_path / "state"))
    script = textwrap.dedent("""
        import json, sys, threading, time
        from kubeproof.cluster import EmbeddedCluster
        # started from a worker thread that then exits: the processes must survive that
        box = {}
        t = threading.Thread(target=lambda: box.update(c=EmbeddedCluster("orphan").start()))
        t.start(); t.join()
        c = box["c"]
        print(json.dumps({n: [e.pid, e.started] for n, e in c.record.components.items()}),
              flush=True)
        time.sleep(600)
    """)
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    try:
        line = proc.stdout.readline()
        refs = [ProcessRef(pid, started) for pid, started in json.loads(line).values()]
        time.sleep(1)
        assert all(r.alive() for r in refs), "thread exit must not kill the cluster"
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while any(r.alive() for r in refs) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(r.alive() for r in refs)
    listed = json.loads(run_cli("cluster", "list", "-o", "json").stdout)
    assert [c["state"] for c in listed if c["name"] == "orphan"] == ["gone"]
    assert run_cli("cluster", "down", "--all").returncode == 0
    assert not (clusters_root() / "orphan").exists()


def test_down_all_removes_state_left_by_a_killed_run(binaries_built, tmp_path, monkeypatch):
    monkeypatch.setenv("KUBEPROOF_STATE_DIR", str(tmp_path / "state"))
    leftover = clusters_root() / "half-made"
    (leftover / "pki").mkdir(parents=True)
    result = run_cli("cluster", "down", "--all")
    assert result.returncode == 0
    assert not leftover.exists()


def test_expected_failures_are_one_sentence_and_nonzero():
    missing = run_cli("cluster", "status", "no-such-cluster")
    assert missing.returncode == 1
    assert 'cluster "no-such-cluster" not found' in missing.stderr
    assert "Traceback" not in missing.stderr
    nothing = run_cli("cluster", "down")
    assert nothing.returncode == 1 and "pass --all" in nothing.stderr
    bad = run_cli("cluster", "up", "--name", "Bad_Name")
    assert bad.returncode == 1 and "invalid cluster name" in bad.stderr
    assert "Traceback" not in bad.stderr
    usage = run_cli("cluster", "logs")
    assert usage.returncode == 2
