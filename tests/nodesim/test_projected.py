"""ConfigMap-style volumes of a script that runs for real (nodesim/projected.py): laid out
as the kubelet's atomic writer does and updated in place, so a running script re-reading a
mounted file sees the new data — no cluster."""

import os
import time

import pytest

from kubeproof.nodesim import projected, runbox
from kubeproof.nodesim.liveproc import Live
from kubeproof.nodesim.runbox import Box, Run


def test_the_atomic_writers_layout_and_an_update(tmp_path):
    volumes = projected.Volumes(tmp_path / "p", ["/config", "/etc/cert/"])
    volumes.write({"/config/mode": "standby", "/config/sub/x": "1", "/etc/cert/ca.crt": "CA"})
    config = tmp_path / "p" / "0"
    first = os.readlink(config / "..data")
    assert first.startswith("..") and os.readlink(config / "mode") == "..data/mode"
    assert (config / "mode").read_text() == "standby" and (config / "sub" / "x").read_text() == "1"
    volumes.write({"/config/mode": "active", "/etc/cert/ca.crt": "CA", "/config/../x": "no"})
    assert (config / "mode").read_text() == "active"
    assert not (config / "sub").exists() and not (config / first).exists()  # old set gone
    assert sorted(p.name for p in config.iterdir() if not p.name.startswith("..")) == ["mode"]
    assert projected.Volumes(tmp_path / "q", ["/config"]).covers("/config/mode")
    assert not volumes.covers("/configuration/x")


def test_mount_paths_are_the_projected_kinds_without_sub_paths():
    pod = {
        "spec": {
            "volumes": [
                {"name": "cm", "configMap": {"name": "x"}},
                {"name": "tok", "projected": {"sources": []}},
                {"name": "scratch", "emptyDir": {}},
            ]
        }
    }
    spec = {
        "volumeMounts": [
            {"name": "cm", "mountPath": "/config/"},
            {"name": "cm", "mountPath": "/etc/app.conf", "subPath": "app.conf"},
            {"name": "tok", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"},
            {"name": "scratch", "mountPath": "/tmp/s"},
        ]
    }
    assert projected.mount_paths(pod, spec) == [
        "/config",
        "/var/run/secrets/kubernetes.io/serviceaccount",
    ]


@pytest.mark.skipif(not runbox.available(), reason="needs busybox-static and bubblewrap")
def test_a_running_script_sees_the_update(tmp_path):
    volumes = projected.Volumes(tmp_path / "p", ["/report"])
    volumes.write({"/report/source": "stale"})
    logs: list[tuple[float, str]] = []
    script = (
        'echo "first $(cat /report/source)"; for i in $(seq 1 100); do s="$(cat /report/source)"; '
        '[ "$s" = fresh ] && { echo "saw $s"; exit 0; }; usleep 100000; done; exit 1'
    )
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    run = Run(argv=["sh", "-c", script], env=env, mounts=volumes.mounts())
    box = Box(tmp_path / "c", runbox.pod_uid(), runbox.container_limits({}))
    live = Live(box, run, logs)
    deadline = time.monotonic() + 20
    while not logs and time.monotonic() < deadline:
        time.sleep(0.05)
    volumes.write({"/report/source": "fresh"})  # once the script has read the first data
    assert live.wait(20)
    assert ([line for _, line in logs], live.exit_code) == (["first stale", "saw fresh"], 0)
