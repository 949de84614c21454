"""Registering simulated Nodes and keeping them alive: status with conditions and capacity,
and a Lease renewed like a kubelet's so the node lifecycle controller sees them healthy."""

import datetime as dt
from decimal import Decimal

from lightkube import ApiError, AsyncClient
from lightkube.codecs import from_dict
from lightkube.resources.coordination_v1 import Lease
from lightkube.resources.core_v1 import Node

from kubeproof.nodesim.profile import RESERVED, NodeSpec
from kubeproof.nodesim.quantity import parse

LEASE_SECONDS = 40
# annotations a task sets on a Node (as admin) to break it
SIMULATE_READY = "kubeproof.dev/simulate-ready"  # "false": the kubelet reports NotReady
SIMULATE_PRESSURE = "kubeproof.dev/simulate-pressure"  # e.g. "MemoryPressure,DiskPressure"
PRESSURES = ("MemoryPressure", "DiskPressure", "PIDPressure")


def simulated_health(annotations: dict[str, str]) -> tuple[bool, tuple[str, ...]]:
    ready = annotations.get(SIMULATE_READY, "true").lower() != "false"
    pressure = annotations.get(SIMULATE_PRESSURE, "")
    return ready, tuple(p for p in (x.strip() for x in pressure.split(",")) if p in PRESSURES)


KUBELET_PORT = 10250


def _now(micro: bool = False) -> str:
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ"
    return dt.datetime.now(dt.UTC).strftime(fmt)


def allocatable(capacity: dict[str, str]) -> dict[str, str]:
    out = dict(capacity)
    for key, reserved in RESERVED.items():
        if key in capacity:
            left = parse(capacity[key]) - parse(reserved)
            out[key] = _format(key, max(left, Decimal(0)))
    return out


def _format(key: str, value: Decimal) -> str:
    if key == "cpu":
        return f"{int(value * 1000)}m"
    if key == "memory":
        return f"{int(value / 1024)}Ki"
    return str(int(value))


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


def conditions(ready: bool = True, pressure: tuple[str, ...] = ()) -> list[dict]:
    now = _now()
    rows = [
        ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ]
    out = []
    for kind, reason, message in rows:
        on = kind in pressure
        out.append(
            {
                "type": kind,
                "status": "True" if on else "False",
                "reason": f"KubeletHas{kind}" if on else reason,
                "message": f"kubelet has {kind[:-8].lower()} pressure" if on else message,
                "lastHeartbeatTime": now,
                "lastTransitionTime": now,
            }
        )
    out.append(
        {
            "type": "Ready",
            "status": "True" if ready else "False",
            "reason": "KubeletReady" if ready else "KubeletNotReady",
            "message": "kubelet is posting ready status" if ready else "container runtime is down",
            "lastHeartbeatTime": now,
            "lastTransitionTime": now,
        }
    )
    return out


def node_status(spec: NodeSpec, address: str, version: str) -> dict:
    return {
        "capacity": spec.capacity,
        "allocatable": allocatable(spec.capacity),
        "conditions": conditions(),
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


async def heartbeat(
    client: AsyncClient, name: str, ready: bool = True, pressure: tuple[str, ...] = ()
) -> None:
    await client.patch(Node.Status, name, {"status": {"conditions": conditions(ready, pressure)}})
