"""Which host directory a real script's volume is (nodesim/volumedirs.py): emptyDir per pod,
hostPath and hostPath/local claims per node and path, other claims per volume — no
cluster, no sandbox."""

import pytest

from kubeproof.nodesim import volumedirs
from kubeproof.nodesim.world import WorldCache


class _Pod:
    def __init__(self, uid: str, volumes: list[dict], node: str = "worker-1") -> None:
        self.uid = uid
        self.namespace = "shop"
        self.obj = {"spec": {"nodeName": node, "volumes": volumes}}


def _world() -> WorldCache:
    world = WorldCache()
    for name, pv in (
        ("cache", "pv-cache"),
        ("assets", "pv-assets"),
        ("blob", "pv-blob"),
        ("pending", ""),
    ):
        claim = {"metadata": {"name": name, "namespace": "shop"}, "spec": {"volumeName": pv}}
        world.store("ADDED", "PersistentVolumeClaim", claim)
    volumes = {
        "pv-cache": {"hostPath": {"path": "/var/lib/cache"}},
        "pv-assets": {"local": {"path": "/var/lib/cache/"}},  # the same node directory
        "pv-blob": {"csi": {"driver": "x"}},
    }
    for name, spec in volumes.items():
        world.store("ADDED", "PersistentVolume", {"metadata": {"name": name}, "spec": spec})
    return world


def _mounts(tmp_path, pod, mounts, world=None):
    spec = {"volumeMounts": mounts}
    return volumedirs.mounts(tmp_path, pod, spec, world or _world(), None)


def test_a_claim_written_by_one_pod_is_read_by_another_on_the_node(tmp_path):
    writer = _Pod("job", [{"name": "c", "persistentVolumeClaim": {"claimName": "cache"}}])
    reader = _Pod("api", [{"name": "d", "persistentVolumeClaim": {"claimName": "cache"}}])
    [w] = _mounts(tmp_path, writer, [{"name": "c", "mountPath": "/cache"}])
    [r] = _mounts(tmp_path, reader, [{"name": "d", "mountPath": "/data", "readOnly": True}])
    assert w.host == r.host and (w.inside, w.writable) == ("/cache", True)
    assert (r.inside, r.writable) == ("/data", False)
    (w.host / "cache.ready").write_text("catalog-cache-ready\n")
    assert (r.host / "cache.ready").read_text() == "catalog-cache-ready\n"
    # a hostPath volume naming the PV's path is the same node directory; so is a local PV
    host = _Pod("x", [{"name": "h", "hostPath": {"path": "/var/lib//cache"}}])
    [h] = _mounts(tmp_path, host, [{"name": "h", "mountPath": "/h"}])
    local = _Pod("y", [{"name": "l", "persistentVolumeClaim": {"claimName": "assets"}}])
    [loc] = _mounts(tmp_path, local, [{"name": "l", "mountPath": "/l"}])
    assert h.host == w.host == loc.host
    # … on another node it is another directory
    elsewhere = _Pod("z", [{"name": "h", "hostPath": {"path": "/var/lib/cache"}}], "worker-2")
    [e] = _mounts(tmp_path, elsewhere, [{"name": "h", "mountPath": "/h"}])
    assert e.host != w.host


def test_empty_dirs_are_per_pod_and_other_claims_per_volume(tmp_path):
    volumes = [
        {"name": "scratch", "emptyDir": {}},
        {"name": "blob", "persistentVolumeClaim": {"claimName": "blob"}},
        {"name": "config", "configMap": {"name": "settings"}},
    ]
    mounts = [{"name": n, "mountPath": f"/{n}"} for n in ("scratch", "blob", "config")]
    a = _mounts(tmp_path, _Pod("a", volumes), mounts)
    b = _mounts(tmp_path, _Pod("b", volumes), mounts)
    assert [m.inside for m in a] == ["/scratch", "/blob"]  # a ConfigMap is files, not a dir
    assert a[0].host != b[0].host and a[1].host == b[1].host
    assert a[1].host == tmp_path / "pv" / "pv-blob"


def test_an_unbound_claim_is_left_out_and_a_sub_path_refused(tmp_path):
    pod = _Pod(
        "p",
        [
            {"name": "p", "persistentVolumeClaim": {"claimName": "pending"}},
            {"name": "m", "persistentVolumeClaim": {"claimName": "missing"}},
            {"name": "c", "persistentVolumeClaim": {"claimName": "cache"}},
        ],
    )
    assert _mounts(tmp_path, pod, [{"name": "p", "mountPath": "/p"}]) == []
    assert _mounts(tmp_path, pod, [{"name": "m", "mountPath": "/m"}]) == []
    no_world = volumedirs.mounts(tmp_path, pod, {"volumeMounts": [{"name": "c"}]}, None, None)
    assert no_world == []  # golden runs: no claims known
    with pytest.raises(ValueError, match="subPath"):
        _mounts(tmp_path, pod, [{"name": "c", "mountPath": "/c", "subPath": "x"}])


def test_a_planted_link_is_never_bound(tmp_path):
    pod = _Pod("p", [{"name": "h", "hostPath": {"path": "/srv"}}])
    [m] = _mounts(tmp_path, pod, [{"name": "h", "mountPath": "/h"}])
    m.host.rmdir()
    m.host.symlink_to("/etc")
    with pytest.raises(ValueError, match="not a directory"):
        _mounts(tmp_path, pod, [{"name": "h", "mountPath": "/h"}])
