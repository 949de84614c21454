"""The local ephemeral storage a pod uses, as the kubelet's summary reports it to the eviction
manager (k8s.io/kubernetes v1.36.3 pkg/kubelet/stats/helper.go:426-487 calcEphemeralStorage):
each running container's writable layer and log, the pod's emptyDir volumes and its
/etc/hosts.

Three writers put bytes there: the image's behaviour model (the catalog's `disk`: a file
written at start, growing while the process runs), the container's own `sh -c` script
(`dd`, `fallocate`; process.py) and `kubectl exec` (shell.py). A path lands where the
container's mounts put it: under an emptyDir mount, in that volume (kept across container
restarts); under a `medium: Memory` emptyDir, in tmpfs — the container's memory, not disk
(pkg/volume/util/util.go:494-498 IsLocalEphemeralVolume leaves it out); under another
volume, not in ephemeral storage; elsewhere, in the container's writable layer, which goes
with the container. Sizes are what du counts (whole 4 KiB blocks)."""

import random
import time
from dataclasses import dataclass, field

from kubeproof.nodesim.quantity import parse

# ext4's block: usage is st_blocks * 512 (pkg/volume/util/fs/fs.go:134-136), a directory
# one block, a file its size rounded up to whole blocks
BLOCK = 4096
# the kubelet-managed /etc/hosts of the pod, one block (pkg/kubelet/stats/
# host_stats_provider.go:85-97 getPodEtcHostsStats, counted by helper.go:448-452)
ETC_HOSTS = BLOCK
# a CRI log line is `<RFC3339Nano> stdout F <line>\n` (containerd internal/cri/io/logger.go);
# the timestamp is 30 characters but for trailing zeros of its fraction
LOG_LINE_OVERHEAD = 30 + len(" stdout F ") + 1
# volumes a kubelet projects read-only: a write there fails
READ_ONLY = ("configMap", "secret", "downwardAPI", "projected")


def blocks(size: int) -> int:
    return -(-max(size, 0) // BLOCK) * BLOCK


@dataclass(frozen=True)
class Target:
    """Where a path in a container lands: `layer`, `emptyDir` (disk), `tmpfs` (a Memory
    emptyDir; `capacity` its size), `read-only` or `other` (a volume that is not ephemeral)."""

    kind: str
    volume: str = ""
    capacity: int | None = None


def target(pod: dict, container: dict, path: str) -> Target:
    """The mount holding `path` (the longest mountPath that contains it)."""
    mounts = [
        m
        for m in container.get("volumeMounts") or []
        if path == m["mountPath"].rstrip("/") or path.startswith(m["mountPath"].rstrip("/") + "/")
    ]
    if not mounts:
        return Target("layer")
    mount = max(mounts, key=lambda m: len(m["mountPath"]))
    volume = next((v for v in pod["spec"].get("volumes") or [] if v["name"] == mount["name"]), {})
    if mount.get("readOnly") or any(k in volume for k in READ_ONLY):
        return Target("read-only", mount["name"])
    empty = volume.get("emptyDir")
    if empty is None:
        return Target("other", mount["name"])
    if empty.get("medium") == "Memory":
        return Target("tmpfs", mount["name"], tmpfs_size(pod, empty))
    return Target("emptyDir", mount["name"])


def tmpfs_size(pod: dict, empty: dict) -> int | None:
    """pkg/volume/emptydir/empty_dir.go:114-140 calculateEmptyDirMemorySize: the smaller of
    the pod cgroup's memory limit (set only when every container has one, pkg/kubelet/cm/
    helpers_linux.go ResourceConfigForPod) and the sizeLimit — the node's allocatable memory
    bounds both, not modelled (None) — rounded up to whole pages as tmpfs does."""
    sizes = []
    limits = [
        ((c.get("resources") or {}).get("limits") or {}).get("memory")
        for c in pod["spec"].get("containers") or []
    ]
    if limits and all(limits):  # PodLimits has memory only when every container sets it
        sizes.append(int(sum(parse(x) for x in limits)))
    if empty.get("sizeLimit") and parse(empty["sizeLimit"]) > 0:
        sizes.append(int(parse(empty["sizeLimit"])))
    return blocks(min(sizes)) if sizes else None


@dataclass(frozen=True)
class Written:
    """A file: `size` bytes from `at`, growing by `per_second` until `until`."""

    path: str
    size: int
    at: float
    per_second: float = 0.0
    until: float | None = None
    writer: str = ""  # the container that wrote it (tmpfs pages are charged to it)

    def bytes_at(self, t: float) -> int:
        if t < self.at:
            return 0
        end = t if self.until is None else min(t, self.until)
        return self.size + int(self.per_second * max(end - self.at, 0.0))


@dataclass
class Usage:
    """Bytes per running container (`layers`, `logs`), per emptyDir volume on disk
    (`volumes`, du of the directory) and in tmpfs (`tmpfs`, also `memory` per container)."""

    layers: dict[str, int] = field(default_factory=dict)
    logs: dict[str, int] = field(default_factory=dict)
    volumes: dict[str, int] = field(default_factory=dict)
    tmpfs: dict[str, int] = field(default_factory=dict)
    memory: dict[str, int] = field(default_factory=dict)


class PodDisk:
    """One pod's files: those `kubectl exec` wrote (by container run or volume) and the
    cadence at which its volume usage is measured."""

    def __init__(self, uid: str = ""):
        self.exec_files: dict[tuple[str, str], Written] = {}  # (container id | volume, path)
        self._rng = random.Random(uid)
        self._next_calc: float | None = None
        self.measured: dict[str, int] | None = None  # the volume stats cache, once measured
        self.clock = time.time  # when an exec writes (golden tests set a fake clock)

    def write(self, pod: dict, container, path: str, size: int, now: float) -> Target:
        """A file `kubectl exec` wrote; returns where it landed (a read-only volume keeps
        nothing)."""
        where = target(pod, container.spec, path)
        if where.kind in ("emptyDir", "tmpfs"):
            key = ("volume:" + where.volume, path)
            self.exec_files[key] = Written(path, size, now, writer=container.name)
        elif where.kind == "layer":
            self.exec_files[(container.container_id, path)] = Written(path, size, now)
        return where

    def used(self, where: Target) -> int:
        """Bytes already in a tmpfs volume (for a write's free space)."""
        key = "volume:" + where.volume
        return sum(blocks(w.size) for (k, _), w in self.exec_files.items() if k == key)

    def volume_stats(self, now: float, base: float, seen: float, period: float, measure):
        """The volume stats cache the summary reads (timing.VOLUME_STATS_AGG_PERIOD): the
        analyzer, running every `period` since `base`, takes the pod (first seen at `seen`)
        up at its next run, measures at once, then every 1-2 periods. `measure(t)` gives
        the volumes' usage at t. None until first measured."""
        if self._next_calc is None:
            runs = int((seen - base) // period) + 1
            self._next_calc = base + runs * period
        while self._next_calc <= now:
            self.measured = measure(self._next_calc)
            self._next_calc += period * (1 + self._rng.random())
        return self.measured


def _writes(rt, c, now: float) -> list[Written]:
    """Every file the container's current run wrote: its model's, its script's, exec's."""
    until = c.finished_at if c.finished_at is not None and c.finished_at >= c.started_at else None
    out = [
        Written(w.path, int(parse(w.size)), c.started_at, float(parse(w.per_second)), until)
        for w in (getattr(c.model, "disk", None) or [])
    ]
    out += [Written(p, n, c.started_at + at) for p, n, at in getattr(c.plan, "disk", ())]
    out += [w for (k, _), w in rt.disk.exec_files.items() if k == c.container_id]
    return out


def usage(rt, t: float) -> Usage:
    """The pod's local storage at time t, from its containers' current runs."""
    result = Usage()
    files: dict[str, dict[str, int]] = {}  # volume -> path -> bytes
    charged: dict[str, str] = {}  # tmpfs volume -> the container that wrote to it
    for c in rt.containers():
        if c.started_at is None or not c.container_id:
            continue
        running = c.stage in ("running", "stopping")
        for w in _writes(rt, c, t):
            where = target(rt.obj, c.spec, w.path)
            if where.kind == "layer" and running:
                result.layers[c.name] = result.layers.get(c.name, 0) + blocks(w.bytes_at(t))
            elif where.kind in ("emptyDir", "tmpfs"):
                files.setdefault(where.volume, {})[w.path] = w.bytes_at(t)
                if where.kind == "tmpfs":
                    charged[where.volume] = c.name
        if running:
            lines = [line for at, line in c.logs if at <= t]
            result.logs[c.name] = blocks(sum(len(x.encode()) + LOG_LINE_OVERHEAD for x in lines))
    for (key, path), w in rt.disk.exec_files.items():
        if key.startswith("volume:") and path not in files.get(key[7:], {}):
            files.setdefault(key[7:], {})[path] = w.bytes_at(t)
            charged.setdefault(key[7:], w.writer)
    for v in rt.obj["spec"].get("volumes") or []:
        empty = v.get("emptyDir")
        if empty is None:
            continue
        written = sum(blocks(n) for n in files.get(v["name"], {}).values())
        if empty.get("medium") == "Memory":
            size = tmpfs_size(rt.obj, empty)
            used = written if size is None else min(written, size)  # full: ENOSPC
            result.tmpfs[v["name"]] = used
            if who := charged.get(v["name"]):
                result.memory[who] = result.memory.get(who, 0) + used
        else:
            result.volumes[v["name"]] = BLOCK + written  # the directory itself, then files
    return result


def observe(rt, now: float, base: float, period: float) -> tuple[Usage, dict[str, int] | None]:
    """What the eviction manager reads: the containers' usage now and the volume stats
    cache (disk and Memory emptyDirs alike: the summary's VolumeStats holds both)."""
    seen = rt.created if rt.created is not None else now

    def measure(t: float) -> dict[str, int]:
        u = usage(rt, t)
        return u.volumes | u.tmpfs

    return usage(rt, now), rt.disk.volume_stats(now, base, seen, period, measure)
