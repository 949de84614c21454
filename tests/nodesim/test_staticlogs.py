"""Static pods' container logs without a cluster (nodesim/staticlogs.py): the control plane's
real log files read as CRI container logs."""

import datetime as dt
import json
from pathlib import Path
from types import SimpleNamespace

from kubeproof.cluster.layout import Layout
from kubeproof.nodesim import staticlogs
from kubeproof.nodesim.staticlogs import REDACTED, ComponentLog, line_time

NOW = dt.datetime(2026, 11, 27, 15, 40, tzinfo=dt.UTC)


def _log(tmp_path: Path, text: str) -> ComponentLog:
    layout = Layout(tmp_path)
    layout.logs.mkdir(parents=True, exist_ok=True)
    layout.log("kube-apiserver").write_text(text)
    return ComponentLog(layout.log("kube-apiserver"), layout, started=1000.0)


def test_klog_and_etcd_lines_carry_their_own_time():
    klog = "I1127 15:30:01.123456   4242 controller.go:615] quota admission added evaluator"
    assert line_time(klog, NOW) == dt.datetime(2026, 11, 27, 15, 30, 1, 123456, dt.UTC).timestamp()
    # no year in klog's header: a December line read in January is last year's
    january = dt.datetime(2027, 1, 2, tzinfo=dt.UTC)
    december = "W1231 23:59:59.000001       1 reflector.go:1] x"
    assert (
        line_time(december, january) == dt.datetime(2026, 12, 31, 23, 59, 59, 1, dt.UTC).timestamp()
    )
    etcd = json.dumps({"level": "warn", "ts": "2026-11-27T15:30:02.5Z", "msg": "slow fdatasync"})
    assert line_time(etcd, NOW) == dt.datetime(2026, 11, 27, 15, 30, 2, 500000, dt.UTC).timestamp()
    assert line_time("goroutine 1 [running]:", NOW) is None


def test_unstamped_lines_take_the_time_before_them_paths_read_as_kubeadms(tmp_path):
    root = str(tmp_path)
    log = _log(
        tmp_path,
        "Flag --foo has been deprecated\n"
        f"E1127 15:30:01.000000       1 run.go:72] open {root}/pki/apiserver.key: denied\n"
        "goroutine 1 [running]:\n",
    )
    entries = log.read()
    stamped = dt.datetime(2026, 11, 27, 15, 30, 1, tzinfo=dt.UTC).timestamp()
    assert [t for t, _ in entries] == [1000.0, stamped, stamped]
    assert entries[1][1].endswith("open /etc/kubernetes/pki/apiserver.key: denied")
    assert not any(root in line for _, line in entries)


def test_credentials_are_redacted(tmp_path):
    jwt = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0.c2lnbmF0dXJlX2hlcmU"
    log = _log(
        tmp_path,
        f"I1127 15:30:01.000000       1 auth.go:1] token {jwt} rejected\n"
        "-----BEGIN EC PRIVATE KEY-----\n"
        "MHcCAQEEIBase64Secret\n"
        "-----END EC PRIVATE KEY-----\n"
        "after\n",
    )
    lines = [line for _, line in log.read()]
    assert lines == [
        f"I1127 15:30:01.000000       1 auth.go:1] token {REDACTED} rejected",
        REDACTED,
        REDACTED,
        REDACTED,
        "after",
    ]


def test_only_the_last_10_mib_from_a_line_start_and_follow_reads_whole_new_lines(tmp_path):
    line = "x" * 99 + "\n"
    log = _log(tmp_path, line * (staticlogs.MAX_BYTES // 100 + 50))
    entries = log.read()
    assert len(entries) == staticlogs.MAX_BYTES // 100  # the cut first line dropped
    assert all(text == "x" * 99 for _, text in entries)
    with log.path.open("a") as fh:
        fh.write("I1127 15:31:00.000000       1 a.go:1] new\npartial")
    assert [text for _, text in log.read_new()] == ["I1127 15:31:00.000000       1 a.go:1] new"]
    with log.path.open("a") as fh:
        fh.write(" line\n")
    assert [text for _, text in log.read_new()] == ["partial line"]
    assert log.read_new() == []
    # a limit falling on a line's start keeps that line
    short = "y" * 63 + "\n"  # 64 bytes: the limit is a whole number of them
    exact = _log(tmp_path, "cut\n" + short * (staticlogs.MAX_BYTES // 64))
    kept = exact.read()
    assert len(kept) == staticlogs.MAX_BYTES // 64 and kept[0][1] == "y" * 63


def test_a_symlink_in_place_of_the_log_is_not_followed(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("I1127 15:30:01.000000       1 a.go:1] secret\n")
    layout = Layout(tmp_path / "c")
    layout.logs.mkdir(parents=True)
    layout.log("etcd").symlink_to(secret)
    assert ComponentLog(layout.log("etcd"), layout, 0.0).read() == []


class _Mirrors:
    def owns(self, pod: dict) -> bool:
        return pod["metadata"]["name"] == "kube-apiserver-control-plane"


def test_only_the_nodes_own_static_pods_have_a_component_log(tmp_path):
    layout = Layout(tmp_path)
    layout.record.write_text(json.dumps({"components": {"kube-apiserver": {"started": 5.0}}}))
    kubelet = SimpleNamespace(mirrors={"control-plane": _Mirrors()}, state_dir=tmp_path)

    def pod(name: str, node: str = "control-plane"):
        return SimpleNamespace(obj={"metadata": {"name": name}, "spec": {"nodeName": node}})

    container = SimpleNamespace(name="kube-apiserver", started_at=1.0)
    found = staticlogs.source(kubelet, pod("kube-apiserver-control-plane"), container)
    assert found is not None
    assert (found.path, found.started) == (layout.log("kube-apiserver"), 5.0)
    # a pod of the same container name that is not the kubelet's static pod
    assert staticlogs.source(kubelet, pod("kube-apiserver-fake"), container) is None
    assert (
        staticlogs.source(kubelet, pod("kube-apiserver-control-plane", "node-1"), container) is None
    )
    other = SimpleNamespace(name="sidecar", started_at=1.0)
    assert staticlogs.source(kubelet, pod("kube-apiserver-control-plane"), other) is None
