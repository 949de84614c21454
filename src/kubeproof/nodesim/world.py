"""The simulator's view of the objects pods depend on — Secrets and ConfigMaps for their
configuration, Nodes for the downward API, Services, EndpointSlices, Namespaces,
NetworkPolicies and pods for their network — kept current by watches; every change wakes the
pods that wait on them, and each object remembers when it last changed (mounted volumes
show a change only from the pod's next sync on)."""

import asyncio
import logging
import time

from lightkube import ALL_NS, ApiError, AsyncClient
from lightkube.resources.core_v1 import (
    ConfigMap,
    Namespace,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Secret,
    Service,
)
from lightkube.resources.discovery_v1 import EndpointSlice
from lightkube.resources.networking_v1 import Ingress, IngressClass, NetworkPolicy
from lightkube.types import on_error_retry

# what netsim needs besides pods, which the kubelet's own pod watch supplies
NETWORK_KINDS = {
    "Service": Service,
    "EndpointSlice": EndpointSlice,
    "Namespace": Namespace,
    "NetworkPolicy": NetworkPolicy,
    # HTTP through an ingress controller (netsim/ingress.py)
    "Ingress": Ingress,
    "IngressClass": IngressClass,
}
# where a claim's files are, for scripts that run for real (volumedirs.py)
VOLUME_KINDS = {
    "PersistentVolumeClaim": PersistentVolumeClaim,
    "PersistentVolume": PersistentVolume,
}
log = logging.getLogger("kubeproof.nodesim")
CLUSTER_SCOPED = ("Namespace", "Node", "IngressClass", "PersistentVolume")
NOT_NETWORK = ("Secret", "ConfigMap", "Node", *VOLUME_KINDS)


class WorldCache:
    def __init__(self) -> None:
        self._objects: dict[tuple[str, str, str], dict] = {}
        self._changed_at: dict[tuple[str, str, str], float] = {}
        self.changed = asyncio.Event()
        self.synced = asyncio.Event()
        self._pending = 3 + len(NETWORK_KINDS) + len(VOLUME_KINDS)
        # the sandboxes shell scripts really run in (nodesim/realshell.Runner); None: none
        self.runner = None
        # netsim as `kubectl exec` in a pod sees it (Kubelet.exec_network), for exec probes
        # that run a network tool: answered on the node's loop, where the probe runs, and not
        # in the sandbox, whose wget would wait on that same loop (netbridge.py)
        self.exec_network = None

    def secret(self, namespace: str, name: str) -> dict | None:
        return self._objects.get(("Secret", namespace, name))

    def configmap(self, namespace: str, name: str) -> dict | None:
        return self._objects.get(("ConfigMap", namespace, name))

    def services(self) -> list[dict]:
        return [obj for (kind, _, _), obj in self._objects.items() if kind == "Service"]

    def of_kind(self, kind: str) -> list[dict]:
        return [obj for (k, _, _), obj in self._objects.items() if k == kind]

    def node(self, name: str) -> dict | None:
        return self._objects.get(("Node", "", name))

    def claim(self, namespace: str, name: str) -> dict | None:
        return self._objects.get(("PersistentVolumeClaim", namespace, name))

    def volume(self, name: str) -> dict | None:
        return self._objects.get(("PersistentVolume", "", name))

    def changed_at(self, kind: str, namespace: str, name: str) -> float:
        """When the object was last added, changed or deleted (0: never seen)."""
        return self._changed_at.get((kind, namespace, name), 0.0)

    async def run(self, client: AsyncClient) -> None:
        await asyncio.gather(
            self._watch(client, Secret, "Secret"),
            self._watch(client, ConfigMap, "ConfigMap"),
            self._watch(client, Node, "Node"),
            *(self._watch(client, resource, kind) for kind, resource in NETWORK_KINDS.items()),
            *(self._optional(client, resource, kind) for kind, resource in VOLUME_KINDS.items()),
        )

    async def _optional(self, client: AsyncClient, resource, kind: str) -> None:
        """A watch the pods can do without (a claim's files for scripts run for real): a
        refusal (a cluster whose RBAC predates it) is logged, not fatal to the others."""
        try:
            await self._watch(client, resource, kind)
        except ApiError as exc:
            log.warning("cannot watch %s: %s", kind, exc)
            self._pending -= 1
            if self._pending == 0:
                self.synced.set()

    def store_pod(self, op: str, pod: dict) -> None:
        self.store(op, "Pod", pod)

    def network_objects(self) -> list[dict]:
        """Pods, Services, EndpointSlices, Namespaces and NetworkPolicies, for netsim."""
        return [
            {"kind": kind, **obj}
            for (kind, _, _), obj in self._objects.items()
            if kind not in NOT_NETWORK
        ]

    async def _watch(self, client: AsyncClient, resource, kind: str) -> None:
        # list first so pods never see a Secret as missing that merely was not read yet
        scope = {} if kind in CLUSTER_SCOPED else {"namespace": ALL_NS}
        async for obj in client.list(resource, **scope):
            self.store("ADDED", kind, obj.to_dict())
        self._pending -= 1
        if self._pending == 0:
            self.synced.set()
        async for op, obj in client.watch(resource, on_error=on_error_retry, **scope):
            self.store(op, kind, obj.to_dict())
            # wake everyone waiting now; later waiters wait for the next change
            woken, self.changed = self.changed, asyncio.Event()
            woken.set()

    def store(self, op: str, kind: str, obj: dict, at: float | None = None) -> None:
        """Record a watch event (ADDED, MODIFIED, DELETED) seen at `at` (default: now)."""
        key = (kind, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
        self._changed_at[key] = time.time() if at is None else at
        if op == "DELETED":
            self._objects.pop(key, None)
        else:
            self._objects[key] = obj
