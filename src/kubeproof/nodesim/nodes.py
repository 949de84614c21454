"""Registering simulated Nodes and keeping them alive as a v1.36.3 kubelet does: status
with the upstream condition setters (nodestatus.py), a Lease renewed every 10 s, and the
kubelet's node events; annotations let a task break a node."""

import datetime as dt
import time
from typing import NamedTuple

from lightkube import ApiError, AsyncClient
from lightkube.codecs import from_dict
from lightkube.resources.coordination_v1 import Lease
from lightkube.resources.core_v1 import Node

from kubeproof.nodesim import nodestatus
from kubeproof.nodesim.container import Event
from kubeproof.nodesim.nodestatus import LEASE_SECONDS, PRESSURES
from kubeproof.nodesim.profile import NodeSpec

__all__ = ["LEASE_SECONDS", "PRESSURES"]

# annotations a task sets on a Node (as admin) to break it
SIMULATE_READY = "kubeproof.dev/simulate-ready"  # "false": the kubelet reports NotReady
SIMULATE_PRESSURE = "kubeproof.dev/simulate-pressure"  # e.g. "MemoryPressure,DiskPressure"
# "true": the kubelet stops (or loses the network): no Lease renewals, no status, no events,
# so the node lifecycle controller marks the node Unknown and taints it unreachable
SIMULATE_UNREACHABLE = "kubeproof.dev/simulate-unreachable"


class Health(NamedTuple):
    ready: bool = True
    pressure: tuple[str, ...] = ()
    stopped: bool = False

    @property
    def ready_error(self) -> str | None:
        return None if self.ready else nodestatus.RUNTIME_DOWN


def simulated_health(annotations: dict[str, str]) -> Health:
    ready = annotations.get(SIMULATE_READY, "true").lower() != "false"
    pressure = annotations.get(SIMULATE_PRESSURE, "")
    stopped = annotations.get(SIMULATE_UNREACHABLE, "false").lower() == "true"
    found = tuple(p for p in (x.strip() for x in pressure.split(",")) if p in PRESSURES)
    return Health(ready, found, stopped)


class NodeState:
    """What the simulated kubelet of one node keeps: the health the annotations ask for,
    the node's conditions as last seen on the server (the kubelet's node lister) and its
    status loop."""

    def __init__(self, name: str):
        self.name = name
        self.health = Health()
        self.conditions: list[dict] | None = None
        self.reporter = nodestatus.StatusReporter()

    def observe(self, node: dict) -> None:
        self.health = simulated_health(node["metadata"].get("annotations") or {})
        self.conditions = (node.get("status") or {}).get("conditions") or []

    def sync(self, now: float) -> tuple[list[dict] | None, list[Event]]:
        """One status round (every 10 s): the conditions to post, and the node events."""
        if self.conditions is None:
            return None, []  # not seen on the server yet
        h = self.health
        posted, reasons = self.reporter.sync(now, self.conditions, h.ready_error, h.pressure)
        if posted is not None:
            self.conditions = posted
        return posted, [status_event(self.name, r) for r in reasons]


def status_event(node: str, reason: str) -> Event:
    return Event("Normal", reason, nodestatus.node_event_message(node, reason))


def startup_events(node: str) -> list[Event]:
    """What a starting kubelet records on its Node, in order: BirthCry
    (pkg/kubelet/kubelet.go:3292-3295), the setters' first conditions on the initial node
    (pkg/kubelet/nodestatus/setters.go:599-606,661-668,723-730) and the node allocatable
    cgroup update (pkg/kubelet/cm/node_container_manager_linux.go:99)."""
    _, reasons = nodestatus.setters([], time.time(), None, ())
    return [
        Event("Normal", "Starting", "Starting kubelet."),
        *(status_event(node, r) for r in reasons),
        Event("Normal", "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods"),
    ]


KUBELET_PORT = 10250


def _now(micro: bool = False) -> str:
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ"
    return dt.datetime.now(dt.UTC).strftime(fmt)


def node_object(spec: NodeSpec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": spec.name,
            "labels": spec.labels,
            "annotations": {"node.alpha.kubernetes.io/ttl": "0", "kubeproof.dev/simulated": "true"},
        },
        "spec": {
            "podCIDR": spec.pod_cidr,
            "podCIDRs": [spec.pod_cidr],
            "taints": [t.model_dump(exclude_none=True) for t in spec.taints],
            "unschedulable": spec.unschedulable,
        },
    }


def node_status(spec: NodeSpec, address: str, version: str) -> dict:
    return {
        "capacity": spec.capacity,
        "allocatable": nodestatus.allocatable(spec.capacity),
        "conditions": nodestatus.setters([], time.time(), None, ())[0],
        "addresses": [
            {"type": "InternalIP", "address": address},
            {"type": "Hostname", "address": spec.name},
        ],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": KUBELET_PORT}},
        "nodeInfo": {
            "machineID": spec.name,
            "systemUUID": spec.name,
            "bootID": f"boot-{spec.name}",
            "kernelVersion": "6.1.0-kubeproof",
            "osImage": "kubeproof simulated node",
            "containerRuntimeVersion": "containerd://2.1.0",
            "kubeletVersion": version,
            "kubeProxyVersion": "",
            "operatingSystem": "linux",
            "architecture": "amd64",
        },
    }


async def register(
    admin: AsyncClient, node_client: AsyncClient, spec: NodeSpec, address: str, version: str
) -> None:
    try:
        await admin.create(from_dict(node_object(spec)))
    except ApiError as exc:
        if exc.status.code != 409:
            raise
    await node_client.patch(Node.Status, spec.name, {"status": node_status(spec, address, version)})
    await renew_lease(node_client, spec.name)


async def post_status(client: AsyncClient, name: str, conditions: list[dict]) -> None:
    """Conditions merged by type (strategic merge), as the kubelet's patchNodeStatus."""
    await client.patch(Node.Status, name, {"status": {"conditions": conditions}})


async def renew_lease(client: AsyncClient, name: str) -> None:
    body = {
        "holderIdentity": name,
        "leaseDurationSeconds": LEASE_SECONDS,
        "renewTime": _now(micro=True),
    }
    try:
        await client.patch(Lease, name, {"spec": body}, namespace="kube-node-lease")
    except ApiError as exc:
        if exc.status.code != 404:
            raise
        lease = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": name, "namespace": "kube-node-lease"},
            "spec": body,
        }
        await client.create(from_dict(lease))
