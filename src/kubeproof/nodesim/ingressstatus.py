"""The ingress-nginx controller's status syncer, acted out by the node simulator for the
controller pods it runs: it writes status.loadBalancer.ingress of the Ingresses of the
controller's class.

As ingress-nginx v1.15.1 does it (internal/ingress/status/status.go): the leader syncs once
when it starts leading and then every UpdateInterval = 60 s (:45, :90-111). With neither
--publish-service nor --publish-status-address (the bare-metal manifest sets neither) the
addresses are the nodes of the controller's pods — pods with the leader's labels in its
namespace, Running and Ready (:183-236) — each node's ExternalIPs, else its InternalIPs
(internal/k8s/main.go:46-70 GetNodeIPs), sorted by IP (:262-270); an Ingress whose status
already holds them is skipped, the others updated (:273-320).

The leader is the controller pod whose container started first (leader election through
the `ingress-nginx-leader` Lease is not modelled: the first to start acquires it). Its
`updating Ingress status` log line is not modelled. A controller whose API calls are
refused (its model's apiCalls, nodesim/access.py) is unready, so it publishes nothing."""

import asyncio
import logging
import time

from lightkube import ApiError, AsyncClient
from lightkube.resources.networking_v1 import Ingress, IngressStatus

from kubeproof.netsim import Network
from kubeproof.netsim import http as nethttp
from kubeproof.netsim.objects import Pod as NetPod
from kubeproof.nodesim import timing

log = logging.getLogger("kubeproof.nodesim.ingress")
# the syncer's own polling of who leads; the status moves only on the leader's ticks
CHECK_SECONDS = timing.PLEG_RELIST


def addresses(leader: NetPod, pods: list[NetPod], nodes: dict[str, dict]) -> list[dict]:
    """runningAddresses without publish flags: the node IPs of the Running, Ready pods
    carrying the leader's labels in its namespace, sorted by IP."""
    out: list[dict] = []
    for pod in pods:
        if pod.namespace != leader.namespace or not leader.labels.items() <= pod.labels.items():
            continue
        if (pod.obj.get("status") or {}).get("phase") != "Running" or not pod.ready:
            continue
        node = nodes.get(pod.obj["spec"].get("nodeName") or "") or {}
        found = (node.get("status") or {}).get("addresses") or []
        external = [a["address"] for a in found if a["type"] == "ExternalIP" and a["address"]]
        internal = [a["address"] for a in found if a["type"] == "InternalIP" and a["address"]]
        for ip in external or internal:
            if not any(entry["ip"] == ip for entry in out):
                out.append({"ip": ip})
    return sorted(out, key=lambda entry: entry["ip"])


def pending(ingresses: list[dict], want: list[dict]) -> list[dict]:
    """The Ingresses whose status differs from `want` (ingressSliceEqual, status.go:334)."""
    out = []
    for ing in ingresses:
        current = ((ing.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        have = sorted(
            ({"ip": e["ip"]} if e.get("ip") else {"hostname": e.get("hostname")} for e in current),
            key=lambda e: (e.get("hostname") or "", e.get("ip") or ""),
        )
        if have != want:
            out.append(ing)
    return out


class StatusSyncer:
    def __init__(self, kubelet, client: AsyncClient):
        self.kubelet = kubelet
        self.client = client
        self.leader: str | None = None  # uid of the leading controller pod
        self.next_at = 0.0

    def _leader(self) -> tuple[str, NetPod] | None:
        """The running controller container that started first, and its pod."""
        best = None
        for rt in self.kubelet.pods_on(None):
            pod = NetPod(rt.obj)
            if nethttp.controller_of(pod) is None:
                continue
            for c in rt.app:
                started = c.started_at if c.stage == "running" else None
                if started is not None and (best is None or started < best[0]):
                    best = (started, rt.uid, pod)
        return (best[1], best[2]) if best else None

    async def run(self) -> None:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            try:
                await self.tick(time.time())
            except ApiError as exc:
                log.warning("ingress status: %s", exc.status.message)

    async def tick(self, now: float) -> None:
        found = self._leader()
        if found is None:
            self.leader = None
            return
        uid, leader = found
        if uid != self.leader:  # it starts leading: sync at once (status.go:93-94)
            self.leader, self.next_at = uid, now
        if now < self.next_at:
            return
        self.next_at = now + self.kubelet.timing(timing.INGRESS_STATUS_UPDATE_INTERVAL)
        world = self.kubelet.world
        net = Network.from_objects(world.network_objects())
        controller = nethttp.controller_of(leader)
        pods = list(net.objects.pods.values())
        nodes = {n["metadata"]["name"]: n for n in world.of_kind("Node")}
        want = addresses(leader, pods, nodes)
        for ing in pending(nethttp.served_ingresses(net, controller), want):
            # runUpdate (status.go:297-320): get the Ingress, UpdateStatus with the addresses
            meta = ing["metadata"]
            current = await self.client.get(Ingress, meta["name"], namespace=meta["namespace"])
            body = current.to_dict()
            body.setdefault("status", {})["loadBalancer"] = {"ingress": want}
            await self.client.replace(
                IngressStatus.from_dict(body), meta["name"], namespace=meta["namespace"]
            )
