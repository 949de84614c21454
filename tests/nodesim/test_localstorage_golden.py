"""Golden tests of local ephemeral-storage eviction (nodesim/storage.py, localstorage.py) on a
fake clock: bytes written by a behaviour model, by the container's script and by `kubectl
exec` in; the pod the eviction manager evicts, when, its message and status out. Each
expectation cites k8s.io/kubernetes v1.36.3 (EV = pkg/kubelet/eviction)."""

from kubeproof.fidelity.golden import START, StaticWorld, pod_object, simulate
from kubeproof.nodesim import catalog as catalog_mod
from kubeproof.nodesim import localstorage, metrics, shell, storage, timing
from kubeproof.nodesim.catalog import Catalog, ImageModel
from kubeproof.nodesim.pod import PodRuntime

MI = 2**20
BUSYBOX = {"docker.io/library/busybox:1.36"}
PERIOD = timing.VOLUME_STATS_AGG_PERIOD


def _catalog(**model) -> Catalog:
    """The shipped catalog plus kubeproof/filler, a long-running app writing `model`'s disk."""
    filler = ImageModel(startup_seconds=0.1, **model)
    return catalog_mod.shipped().merged(Catalog(images={"kubeproof/filler": filler}))


def _container(name: str, limit: str | None = None, **extra) -> dict:
    resources = {"limits": {"ephemeral-storage": limit}} if limit else {}
    return {"name": name, "image": "kubeproof/filler:latest", "resources": resources, **extra}


def _script(command: str, limit: str | None = None, **extra) -> dict:
    resources = {"limits": {"ephemeral-storage": limit}} if limit else {}
    return {
        "name": "app",
        "image": "busybox:1.36",
        "command": ["sh", "-c", command],
        "resources": resources,
        **extra,
    }


def _evictions(trace) -> list[tuple[float, str]]:
    return [(t, msg) for t, _, reason, msg in trace.events if reason == "Evicted"]


def test_a_single_container_over_its_limit_reads_as_the_pod_total():
    # EV/eviction_manager.go:506-532: the pod check (:558-581) comes before the container's
    # (:583-609); a lone container's limit is the pod's (PodLimits), and the pod's usage adds
    # its log and /etc/hosts (pkg/kubelet/stats/helper.go:426-455), so it is met first.
    # Hard-eviction grace 1 s (:62), no DisruptionTarget (condition nil at :573-574).
    catalog = _catalog(disk=[{"path": "/var/cache/blob", "size": "64Mi"}])
    pod = pod_object({"containers": [_container("app", "50Mi")]})
    trace = simulate(pod, 20, catalog=catalog, images={"docker.io/kubeproof/filler:latest"},
                     evict=True)  # fmt: skip
    message = "Pod ephemeral local storage usage exceeds the total limit of containers 50Mi. "
    assert _evictions(trace) == [(10.0, message)]  # the first synchronize that sees it
    status = trace.status_at(12)
    assert (status["phase"], status["reason"], status["message"]) == ("Failed", "Evicted", message)
    assert "DisruptionTarget" not in [c["type"] for c in status["conditions"]]
    assert ("Warning", "Evicted") in [(e[1], e[2]) for e in trace.events]


def test_a_container_over_its_own_limit_within_the_pod_total():
    # EV/eviction_manager.go:583-609, helpers.go:54 (%q of Quantity.String: 1.5Gi is 1536Mi)
    catalog = _catalog(disk=[{"path": "/tmp/x", "size": "20Mi"}])
    big = _container("big", "1.5Gi", command=["sleep"])  # writes the same 20Mi, well within
    small = _container("small", "10Mi")
    pod = pod_object({"containers": [small, big]})
    trace = simulate(pod, 15, catalog=catalog, images={"docker.io/kubeproof/filler:latest"},
                     evict=True)  # fmt: skip
    assert _evictions(trace) == [
        (10.0, 'Container small exceeded its local ephemeral storage limit "10Mi". ')
    ]
    assert localstorage.CONTAINER.format("big", "1536Mi") == (
        'Container big exceeded its local ephemeral storage limit "1536Mi". '
    )


def test_the_pod_limit_is_the_sum_of_the_containers_printed_as_a_quantity():
    # k8s.io/component-helpers/resource/helpers.go:353-388 PodLimits; Quantity.String
    spec = {"containers": [_container("a", "500Mi"), _container("b", "1Gi"), _container("c")]}
    assert localstorage.pod_limit(spec) == (1524 * MI, True)
    init = {**_container("init", "4Gi")}
    assert localstorage.pod_limit({**spec, "initContainers": [init]}) == (4 * 2**30, True)
    assert localstorage.pod_limit({"containers": [_container("d", "1G")]}) == (10**9, False)
    assert localstorage.pod_limit({"containers": [_container("e")]}) is None


def test_growth_per_second_crosses_the_limit_when_the_bytes_do():
    # a model growing 1Mi/s past a 30Mi limit: at 20 s 20Mi (not over), at 30 s 30Mi plus
    # the /etc/hosts block: over, evicted at that synchronize (every 10 s, kubelet.go:197)
    catalog = _catalog(disk=[{"path": "/var/log/app.log", "perSecond": "1Mi"}])
    pod = pod_object({"containers": [_container("app", "30Mi")]})
    trace = simulate(pod, 45, catalog=catalog, images={"docker.io/kubeproof/filler:latest"},
                     evict=True)  # fmt: skip
    assert [t for t, _ in _evictions(trace)] == [30.0]


def test_an_emptydir_over_its_size_limit_waits_for_the_volume_stats():
    # EV/eviction_manager.go:534-556 with helpers.go:58; the volume's usage comes from the
    # stats cache, first measured at the analyzer's next run (every 60 s), not at once
    command = "dd if=/dev/zero of=/cache/fill bs=1M count=20; sleep 3600"
    mount = {"volumeMounts": [{"name": "cache", "mountPath": "/cache"}]}
    spec = {
        "containers": [_script(command, **mount)],
        "volumes": [{"name": "cache", "emptyDir": {"sizeLimit": "10Mi"}}],
    }
    trace = simulate(pod_object(spec), 90, images=BUSYBOX, evict=True)
    message = 'Usage of EmptyDir volume "cache" exceeds the limit "10Mi". '
    assert _evictions(trace) == [(PERIOD, message)]
    assert "DisruptionTarget" not in [c["type"] for c in trace.status_at(65)["conditions"]]


def test_emptydir_bytes_count_toward_the_pod_total_and_a_full_sized_volume_is_over():
    # du counts the directory's own block (pkg/volume/util/fs/fs.go:102-136): exactly the
    # sizeLimit in one file is one block over it. Disk emptyDirs are local ephemeral volumes
    # in the pod's total (pkg/volume/util/util.go:494-498)
    command = "dd if=/dev/zero of=/cache/fill bs=1M count=10; sleep 3600"
    mount = {"volumeMounts": [{"name": "cache", "mountPath": "/cache"}]}
    spec = {
        "containers": [_script(command, **mount)],
        "volumes": [{"name": "cache", "emptyDir": {"sizeLimit": "10Mi"}}],
    }
    rt = _running(pod_object(spec))
    used = storage.usage(rt, START + 5)
    assert used.volumes == {"cache": 10 * MI + storage.BLOCK}
    assert localstorage.pod_usage(rt.obj, used, used.volumes) > 10 * MI
    assert localstorage.check(rt.obj, used, None) is None  # not measured yet: no eviction


def test_a_memory_emptydir_is_memory_not_ephemeral_storage():
    # pkg/volume/emptydir/empty_dir.go:114-140: tmpfs sized by sizeLimit, so a write past
    # it fails (ENOSPC) and usage never passes the limit; its pages are the writer's memory
    mount = {"volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"}]}
    spec = {
        "containers": [_script("sleep 3600", limit="5Mi", **mount)],
        "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Mi"}}],
    }
    rt = _running(pod_object(spec))
    before = metrics.pod_usage(rt, catalog_mod.shipped(), START + 5)[0][2]
    rt.disk.clock = lambda: START + 6
    argv = ["dd", "if=/dev/zero", "of=/dev/shm/big", "bs=1M", "count=12"]
    result = shell.run(argv, rt.app[0], "p")
    assert result.code == 1
    assert result.stderr.startswith("dd: error writing '/dev/shm/big': No space left on device\n")
    used = storage.usage(rt, START + 7)
    assert used.tmpfs == {"shm": 8 * MI} and used.volumes == {} and used.memory == {"app": 8 * MI}
    assert localstorage.check(rt.obj, used, used.tmpfs) is None  # within 5Mi and within 8Mi
    after = metrics.pod_usage(rt, catalog_mod.shipped(), START + 7)[0][2]
    assert after - before == 8 * MI  # kubectl top and memory pressure see it


def test_kubectl_exec_dd_fills_the_writable_layer_and_is_seen_at_the_next_synchronize():
    # busybox dd's report on stderr; the bytes land in the container's writable layer
    # (no mount at /tmp), read as rootfs usage by the next synchronize
    spec = {"containers": [_script("sleep 3600", limit="10Mi")]}
    rt = _running(pod_object(spec))
    rt.disk.clock = lambda: START + 6
    argv = ["sh", "-c", "dd if=/dev/zero of=/tmp/big bs=1M count=16"]
    result = shell.run(argv, rt.app[0], "p")
    assert result.code == 0
    assert result.stderr.startswith("16+0 records in\n16+0 records out\n16777216 bytes (16.0MB)")
    before = localstorage.evictions([rt], START + 5, START, PERIOD)
    after = localstorage.evictions([rt], START + 10, START, PERIOD)
    assert before == ()
    assert [e.message for e in after] == [
        "Pod ephemeral local storage usage exceeds the total limit of containers 10Mi. "
    ]
    assert after[0].grace == 1.0 and not after[0].disruption


def test_a_read_only_volume_refuses_the_write():
    # configMap volumes are mounted read-only: busybox xopen's "can't open" with EROFS
    mount = {"volumeMounts": [{"name": "conf", "mountPath": "/etc/app"}]}
    spec = {
        "containers": [_script("sleep 3600", **mount)],
        "volumes": [{"name": "conf", "configMap": {"name": "app"}}],
    }
    config = {"kind": "ConfigMap", "metadata": {"name": "app"}, "data": {"k": "v"}}
    rt = _running(pod_object(spec), [config])
    result = shell.run(["fallocate", "-l", "1M", "/etc/app/x"], rt.app[0], "p")
    assert (result.code, result.stderr) == (
        1,
        "fallocate: can't open '/etc/app/x': Read-only file system\n",
    )


def test_a_write_after_the_first_measurement_waits_for_the_next_one():
    # volume_stat_calculator.go:69-74: after measuring, the next run is 60-120 s later
    # (JitterUntil, jitter factor 1.0), so an exec write at 70 s is not seen at 70 or 80 s
    mount = {"volumeMounts": [{"name": "cache", "mountPath": "/cache"}]}
    spec = {
        "containers": [_script("sleep 3600", **mount)],
        "volumes": [{"name": "cache", "emptyDir": {"sizeLimit": "10Mi"}}],
    }
    rt = _running(pod_object(spec))
    assert localstorage.evictions([rt], START + PERIOD, START, PERIOD) == ()
    rt.disk.clock = lambda: START + 70
    shell.run(["fallocate", "-l", "20M", "/cache/blob"], rt.app[0], "p")
    for t in (70, 80, 110):
        assert localstorage.evictions([rt], START + t, START, PERIOD) == ()
    assert len(localstorage.evictions([rt], START + 180, START, PERIOD)) == 1


def test_a_critical_pod_is_never_evicted_for_local_storage():
    # EV/eviction_manager.go:612-618 evictPod refuses IsCriticalPod
    spec = {"containers": [_script("sleep 3600", limit="1Mi")], "priority": 2_000_000_000}
    rt = _running(pod_object(spec))
    rt.disk.clock = lambda: START + 6
    shell.run(["fallocate", "-l", "2M", "/tmp/x"], rt.app[0], "p")
    assert localstorage.evictions([rt], START + 10, START, PERIOD) == ()


def _running(obj: dict, objects: list[dict] | None = None) -> PodRuntime:
    catalog, world = catalog_mod.shipped(), StaticWorld(objects)
    rt = PodRuntime(obj, "10.244.1.2", BUSYBOX)
    now = START
    while not all(c.stage == "running" for c in rt.app) or now < START + 5:
        assert now < START + 60, "the pod never ran"
        rt.advance(now, world, catalog)
        now = max(min(rt.next_at(), now + 1), now + 1e-3)
    return rt
