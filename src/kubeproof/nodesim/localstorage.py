"""The eviction manager's local storage limits (k8s.io/kubernetes v1.36.3 pkg/kubelet/eviction/
eviction_manager.go:506-609, EV below), checked on every synchronize before the node-pressure
signals (:361-367, localStorageCapacityIsolation defaults to true, pkg/kubelet/apis/config/
v1beta1/defaults.go:306): a pod is evicted when an emptyDir holds more than its sizeLimit,
else when its ephemeral storage passes the sum of its containers' limits, else when one
container's writable layer and log pass that container's limit. Every pod over a limit goes
in the same synchronize, with a 1 s grace and no DisruptionTarget condition.

Pure: the caller hands in each active pod with its usage (storage.py) and the volume stats
cache (None until first measured)."""

from decimal import Decimal

from kubeproof.nodesim import storage
from kubeproof.nodesim.eviction import IMMEDIATE_EVICTION_GRACE, Eviction, critical
from kubeproof.nodesim.nodestatus import canonical
from kubeproof.nodesim.quantity import parse

# EV/helpers.go:54-58 (Go's %q quotes the limit)
CONTAINER = 'Container {} exceeded its local ephemeral storage limit "{}". '
POD = "Pod ephemeral local storage usage exceeds the total limit of containers {}. "
EMPTY_DIR = 'Usage of EmptyDir volume "{}" exceeds the limit "{}". '
EPHEMERAL = "ephemeral-storage"


def _quantity(value: int, binary: bool) -> str:
    """resource.Quantity.String() in the format of the quantity it was summed into."""
    return canonical(Decimal(value), binary=binary)


def _limit(container: dict) -> tuple[int, bool] | None:
    text = ((container.get("resources") or {}).get("limits") or {}).get(EPHEMERAL)
    return (int(parse(text)), str(text).endswith("i")) if text else None


def pod_limit(spec: dict) -> tuple[int, bool] | None:
    """k8s.io/component-helpers/resource/helpers.go:353-388 PodLimits for ephemeral-storage:
    the regular containers' sum with the sidecars', each init container's (with the sidecars
    started before it) a floor, the overhead added; None when no container sets one. The
    bool: the sum prints in binary (the format of the quantity it started from)."""
    total: tuple[int, bool] | None = None

    def add(a, b):
        return b if a is None else (a[0] + b[0], a[1])

    for c in spec.get("containers") or []:
        if limit := _limit(c):
            total = add(total, limit)
    sidecars: tuple[int, bool] | None = None
    for c in spec.get("initContainers") or []:
        limit = _limit(c)
        if c.get("restartPolicy") == "Always":
            if limit:
                total, sidecars = add(total, limit), add(sidecars, limit)
            floor = sidecars
        else:
            floor = add(sidecars, limit) if limit else sidecars
        if floor and (total is None or floor[0] > total[0]):
            total = floor
    overhead = (spec.get("overhead") or {}).get(EPHEMERAL)
    if total and total[0] and overhead:
        total = (total[0] + int(parse(overhead)), total[1])
    return total


def _empty_dir(pod: dict, volumes: dict[str, int] | None) -> str | None:
    """EV/eviction_manager.go:534-556: the first emptyDir (in spec order) whose measured
    usage is above a positive sizeLimit."""
    for v in pod["spec"].get("volumes") or []:
        size = (v.get("emptyDir") or {}).get("sizeLimit")
        used = (volumes or {}).get(v["name"])
        if used is not None and size and parse(size) > 0 and used > parse(size):
            shown = canonical(parse(size), binary=str(size).endswith("i"))
            return EMPTY_DIR.format(v["name"], shown)
    return None


def pod_usage(pod: dict, used: storage.Usage, volumes: dict[str, int] | None) -> int:
    """pkg/kubelet/stats/helper.go:426-455 calcEphemeralStorage: each running container's
    writable layer and log, the local ephemeral volumes from the stats cache (disk
    emptyDirs; a Memory one is not one, pkg/volume/util/util.go:494-498), /etc/hosts."""
    disk = {
        v["name"]
        for v in pod["spec"].get("volumes") or []
        if "emptyDir" in v and (v["emptyDir"] or {}).get("medium") != "Memory"
    }
    total = sum(used.layers.values()) + sum(used.logs.values()) + storage.ETC_HOSTS
    return total + sum(n for name, n in (volumes or {}).items() if name in disk)


def _pod(pod: dict, used: storage.Usage, volumes: dict[str, int] | None) -> str | None:
    """EV/eviction_manager.go:558-581."""
    limit = pod_limit(pod["spec"])
    if limit is None or not pod_usage(pod, used, volumes) > limit[0]:
        return None
    return POD.format(_quantity(*limit))


def _container(pod: dict, used: storage.Usage) -> str | None:
    """EV/eviction_manager.go:583-609: a regular container with a non-zero limit whose log
    and writable layer (no dedicated image filesystem, as on kind) pass it."""
    for c in pod["spec"].get("containers") or []:
        limit = _limit(c)
        if not limit or not limit[0] or c["name"] not in used.layers:
            continue
        if used.logs.get(c["name"], 0) + used.layers[c["name"]] > limit[0]:
            limit_text = c["resources"]["limits"][EPHEMERAL]
            shown = canonical(parse(limit_text), binary=str(limit_text).endswith("i"))
            return CONTAINER.format(c["name"], shown)
    return None


def check(pod: dict, used: storage.Usage, volumes: dict[str, int] | None) -> Eviction | None:
    """EV/eviction_manager.go:506-532 for one pod: emptyDir, then pod, then container."""
    message = _empty_dir(pod, volumes) or _pod(pod, used, volumes) or _container(pod, used)
    if message is None or critical(pod):  # evictPod refuses critical pods (:612-618)
        return None
    return Eviction(pod, message, IMMEDIATE_EVICTION_GRACE, disruption=False)


def evictions(runtimes: list, now: float, base: float, period: float) -> tuple[Eviction, ...]:
    """EV/eviction_manager.go:506-532 localStorageEviction over the node's active pods
    (PodRuntimes): their usage now and the volume stats cache, measured every `period`
    since the kubelet started at `base` (timing.VOLUME_STATS_AGG_PERIOD)."""
    found = []
    for rt in runtimes:
        used, volumes = storage.observe(rt, now, base, period)
        if eviction := check(rt.obj, used, volumes):
            found.append(eviction)
    return tuple(found)
