"""`metrics.k8s.io` served from the behaviour models, so `kubectl top` answers and the real
HPA controller scales on it.

A container uses its model's `cpu` and `memory`; one whose script runs for real uses the
CPU it really used, as metrics-server rates its counter (cpurate.py: a pod shows once each
such container has two scrapes). A pod annotation overrides both for load tasks:
`kubeproof.dev/cpu-usage: 400m`, `kubeproof.dev/memory-usage: 300Mi` (split evenly between
the pod's running containers). The API is registered as an APIService backed by an
ExternalName Service that names the cluster's address, which the aggregator resolves
without kube-proxy.
"""

import datetime as dt
import re
import time
from decimal import Decimal

from lightkube import ApiError, AsyncClient
from lightkube.codecs import from_dict

from kubeproof.nodesim import storage
from kubeproof.nodesim.catalog import Catalog
from kubeproof.nodesim.cpurate import CpuRate
from kubeproof.nodesim.quantity import parse

GROUP, VERSION = "metrics.k8s.io", "v1beta1"
CPU_ANNOTATION = "kubeproof.dev/cpu-usage"
MEMORY_ANNOTATION = "kubeproof.dev/memory-usage"
SERVICE = "kubeproof-metrics"
WINDOW = "15s"
# the node's own use (kubelet, containerd, system daemons), part of the node's working set
# that `kubectl top node` shows and the eviction manager's memory.available subtracts
SYSTEM_CPU, SYSTEM_MEMORY = Decimal("0.05"), Decimal(300 * 2**20)


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _cpu(value: Decimal) -> str:
    return f"{int(value * 1_000_000_000)}n"


def _memory(value: Decimal) -> str:
    return f"{int(value / 1024)}Ki"


def pod_usage(
    pod, catalog: Catalog, now: float | None = None
) -> list[tuple[str, Decimal, Decimal]] | None:
    """(container, cpu cores, memory bytes) for running containers; None if none runs. A
    container's memory includes what it wrote into a Memory emptyDir: tmpfs pages are
    charged to the writer's cgroup (storage.py)."""
    running = [c for c in pod.app if c.stage == "running"]
    if not running:
        return None
    notes = pod.obj["metadata"].get("annotations") or {}
    tmpfs = storage.usage(pod, time.time() if now is None else now).memory
    rows = []
    for container in running:
        model = container.model or catalog.resolve(container.image)[2]
        cpu = parse(model.cpu) if model else Decimal("0.001")
        if (rate := _measured(container)) is not None:
            cpu = Decimal(f"{rate:.9f}")
        memory = parse(model.memory) if model else Decimal(2**20)
        if CPU_ANNOTATION in notes:
            cpu = parse(notes[CPU_ANNOTATION]) / len(running)
        if MEMORY_ANNOTATION in notes:
            memory = parse(notes[MEMORY_ANNOTATION]) / len(running)
        rows.append((container.name, cpu, memory + tmpfs.get(container.name, 0)))
    return rows


def _counted(container) -> CpuRate | None:
    """The scrapes of a running container's real CPU counter, if it has one."""
    live = getattr(container, "live", None)
    return getattr(live, "cpu", None) if live is not None and live.alive else None


def _measured(container) -> float | None:
    counted = _counted(container)
    return counted.rate() if counted is not None else None


def pod_metrics(pod, catalog: Catalog) -> dict | None:
    """The pod's PodMetrics; None when no container runs, or while a container whose CPU
    is really counted has no rate yet (metrics-server leaves such a pod out)."""
    usage = pod_usage(pod, catalog)
    waiting = [c for c in pod.app if c.stage == "running" and _counted(c) is not None]
    if usage is None or any(_measured(c) is None for c in waiting):
        return None
    meta = pod.obj["metadata"]
    return {
        "kind": "PodMetrics",
        "apiVersion": f"{GROUP}/{VERSION}",
        "metadata": {
            "name": meta["name"],
            "namespace": meta["namespace"],
            "labels": meta.get("labels") or {},
            "creationTimestamp": _now(),
        },
        "timestamp": _now(),
        "window": WINDOW,
        "containers": [
            {"name": name, "usage": {"cpu": _cpu(cpu), "memory": _memory(mem)}}
            for name, cpu, mem in usage
        ],
    }


def node_metrics(name: str, pods: list, catalog: Catalog) -> dict:
    cpu, memory = SYSTEM_CPU, SYSTEM_MEMORY
    for pod in pods:
        for _, c, m in pod_usage(pod, catalog) or []:
            cpu, memory = cpu + c, memory + m
    return {
        "kind": "NodeMetrics",
        "apiVersion": f"{GROUP}/{VERSION}",
        "metadata": {"name": name, "creationTimestamp": _now()},
        "timestamp": _now(),
        "window": WINDOW,
        "usage": {"cpu": _cpu(cpu), "memory": _memory(memory)},
    }


_TERM = re.compile(
    r"^\s*(!?)([\w./-]+)\s*(?:(==|=|!=)\s*([\w.-]*)|\s+(in|notin)\s+\(([^)]*)\))?\s*$"
)


def matches(selector: str, labels: dict[str, str]) -> bool:
    """Label selector in its string form: a=b, a!=b, a in (x,y), a notin (x), a, !a."""
    if not selector:
        return True
    for term in re.split(r",(?![^()]*\))", selector):
        m = _TERM.match(term)
        if not m:
            return False
        negate, key, op, value, set_op, values = m.groups()
        if set_op:
            allowed = {v.strip() for v in values.split(",")}
            ok = labels.get(key) in allowed
            if (set_op == "in") != ok:
                return False
        elif op:
            equal = labels.get(key) == value
            if (op == "!=") == equal:
                return False
        elif bool(negate) == (key in labels):
            return False
    return True


def discovery() -> dict:
    resources = [
        {
            "name": "nodes",
            "singularName": "",
            "namespaced": False,
            "kind": "NodeMetrics",
            "verbs": ["get", "list"],
        },
        {
            "name": "pods",
            "singularName": "",
            "namespaced": True,
            "kind": "PodMetrics",
            "verbs": ["get", "list"],
        },
    ]
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{GROUP}/{VERSION}",
        "resources": resources,
    }


async def register(client: AsyncClient, address: str, port: int) -> None:
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": SERVICE,
            "namespace": "kube-system",
            "labels": {"app.kubernetes.io/managed-by": "kubeproof"},
        },
        "spec": {"type": "ExternalName", "externalName": address},
    }
    api_service = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": f"{VERSION}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "version": VERSION,
            "insecureSkipTLSVerify": True,
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
            "service": {"namespace": "kube-system", "name": SERVICE, "port": port},
        },
    }
    for body in (service, api_service):
        try:
            await client.create(from_dict(body))
        except ApiError as exc:
            if exc.status.code != 409:
                raise
