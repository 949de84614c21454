"""The simulated kubelet for every node of one cluster: registers the nodes, renews their
Leases, and drives each pod bound to them through its PodRuntime, writing pod status and
Events with the node's own credentials (so the Node authorizer and NodeRestriction apply)."""

import asyncio
import contextlib
import json
import logging
import time
from pathlib import Path
from urllib.parse import urlsplit

from lightkube import ALL_NS, ApiError, AsyncClient
from lightkube.config.kubeconfig import KubeConfig
from lightkube.resources.core_v1 import Node, Pod
from lightkube.types import PatchType, on_error_retry

from kubeproof.nodesim import (
    admission,
    eviction,
    ingressstatus,
    localpath,
    localstorage,
    metrics,
    podnet,
    realshell,
    staticpods,
    timing,
    tokens,
)
from kubeproof.nodesim import catalog as catalog_mod
from kubeproof.nodesim import nodes as node_mod
from kubeproof.nodesim.cgi import CgiPlan
from kubeproof.nodesim.events import Recorder
from kubeproof.nodesim.kubeletnet import PodNetworking
from kubeproof.nodesim.pod import PodRuntime
from kubeproof.nodesim.profile import NodeSpec
from kubeproof.nodesim.world import WorldCache

log = logging.getLogger("kubeproof.nodesim")
# the Lease and the node status round share the kubelet's 10 s period (nodestatus.py)
LEASE_RENEW_SECONDS = node_mod.nodestatus.LEASE_RENEW_SECONDS
STATUS_UPDATE_SECONDS = node_mod.nodestatus.STATUS_UPDATE_SECONDS
IDLE_WAKE_SECONDS = 30


def client_for(kubeconfig: Path) -> AsyncClient:
    return AsyncClient(KubeConfig.from_file(kubeconfig), trust_env=False, field_manager="kubelet")


class PodTask:
    def __init__(self, runtime: PodRuntime, node: str):
        self.runtime = runtime
        self.node = node
        self.wake = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.last_status: dict | None = None


class Kubelet(PodNetworking):
    def __init__(self, state_dir: Path, specs: list[NodeSpec], catalog: catalog_mod.Catalog):
        self.state_dir = state_dir
        record = json.loads((state_dir / "cluster.json").read_text())
        self.address = record["address"]
        self.version = record["kubernetes_version"]
        self.timing = timing.profile(record.get("timing", "real"))
        self.started = time.time()  # the stats analyzer's runs count from it (storage.py)
        self.specs = {s.name: s for s in specs}
        self.catalog = catalog
        self.admin = client_for(state_dir / "kubeconfigs" / "nodesim.kubeconfig")
        # host:port of the apiserver, where a script's own API requests go (apiwget.py)
        context = KubeConfig.from_file(state_dir / "kubeconfigs" / "nodesim.kubeconfig").get()
        self.apiserver = urlsplit(context.cluster.server).netloc if context else ""
        self.clients = {
            name: client_for(state_dir / "kubeconfigs" / f"node-{name}.kubeconfig")
            for name in self.specs
        }
        self.recorders = {name: Recorder(c, name) for name, c in self.clients.items()}
        self.world = WorldCache()
        self._cgi_plan: CgiPlan | None = None  # a script's request being answered (cgi.py)
        self.world.exec_network = self.exec_network  # exec probes' network tools (world.py)
        if realshell.available():  # shell scripts of busybox-like images run for real
            host, _, port = self.apiserver.rpartition(":")
            networks = (
                podnet.PodNetworks(
                    podnet.SERVICE, (host, int(port)), self._api_admitted, self._pod_lookup
                )
                if port.isdigit()
                else None
            )
            self.world.runner = realshell.Runner(
                state_dir / "containers",
                self._wake,
                self._script_network,
                networks,
                podnet.stock_kubectl(self.version),
                lambda image: bool((m := catalog.resolve(image)[2]) and m.kubectl),
                self.world,
            )
        self.pods: dict[str, PodTask] = {}
        self.images: dict[str, set[str]] = {name: set() for name in self.specs}
        self._next_ip = {name: 2 for name in self.specs}
        self.registered = False
        self.health = {name: node_mod.NodeState(name) for name in self.specs}
        # the control-plane node's static pods (staticpods.py); a mirror pod deleted through
        # the API leaves its static pod running: its runtime waits here for the new mirror
        self.mirrors = {
            name: staticpods.MirrorPods(
                self.clients[name], self.admin, name, state_dir / "manifests"
            )
            for name, spec in self.specs.items()
            if spec.control_plane
        }
        self.static_runtimes: dict[tuple[str, str], PodRuntime] = {}
        for name in self.mirrors:
            self.images[name] |= {
                catalog_mod.canonical(i) for i in staticpods.preloaded_images(self.version)
            }
        self.mirrors_changed = asyncio.Event()

    def pod_runtime(self, uid: str) -> PodRuntime | None:
        task = self.pods.get(uid)
        return task.runtime if task else None

    def pods_on(self, node: str | None) -> list[PodRuntime]:
        """Pod runtimes on one node, or on all of them."""
        return [t.runtime for t in self.pods.values() if node is None or t.node == node]

    def find_pod(self, namespace: str, name: str) -> PodRuntime | None:
        for task in self.pods.values():
            rt = task.runtime
            if rt.namespace == namespace and rt.name == name:
                return rt
        return None

    async def run(self) -> None:
        self.loop = asyncio.get_running_loop()
        world = asyncio.create_task(self.world.run(self.admin))
        await self.world.synced.wait()
        for spec in self.specs.values():
            await node_mod.register(
                self.admin, self.clients[spec.name], spec, self.address, self.version
            )
        await metrics.register(self.admin, self.address, node_mod.KUBELET_PORT)
        self.registered = True
        evictions = [self._eviction_manager(name) for name in self.specs]
        # ingress-nginx's status syncer, for the controller pods these nodes run
        ingress = ingressstatus.StatusSyncer(
            self,
            AsyncClient(
                KubeConfig.from_file(self.state_dir / "kubeconfigs" / "nodesim.kubeconfig"),
                trust_env=False,
                field_manager="nginx-ingress-controller",
            ),
        )
        # local-path-provisioner's volumes, for the provisioner pods these nodes run
        provisioner = localpath.LocalPathProvisioner(self)
        await asyncio.gather(
            world,
            ingress.run(),
            provisioner.run(),
            self._leases(),
            self._watch_pods(),
            self._watch_nodes(),
            self._keep_mirror_pods(),
            *evictions,
        )

    async def _keep_mirror_pods(self) -> None:
        """Mirror pods exist while their static pods run: created at start, created again
        at once when one is deleted, and checked on every sync period."""
        while self.mirrors:
            for mirrors in self.mirrors.values():
                try:
                    await mirrors.ensure()
                except ApiError as exc:
                    log.warning("mirror pods of %s: %s", mirrors.node, exc.status.message)
            self.mirrors_changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.mirrors_changed.wait(), timeout=LEASE_RENEW_SECONDS)

    async def _leases(self) -> None:
        """Each node's Lease renewal and status round, every 10 s, and its kubelet events;
        a stopped node (nodes.SIMULATE_UNREACHABLE) does none of it."""
        for name in self.specs:
            for event in node_mod.startup_events(name):
                await self.recorders[name].record_node(event)
        while True:
            await asyncio.sleep(LEASE_RENEW_SECONDS)
            for name, client in self.clients.items():
                state = self.health[name]
                if state.health.stopped:
                    continue
                try:
                    await node_mod.renew_lease(client, name)
                    posted, events = state.sync(time.time())
                    for event in events:
                        await self.recorders[name].record_node(event)
                    if posted is not None:
                        await node_mod.post_status(client, name, posted)
                except ApiError as exc:
                    log.warning("lease or status of %s: %s", name, exc.status.message)

    async def _eviction_manager(self, node: str) -> None:
        """The node's eviction manager loop (pkg/kubelet/eviction/eviction_manager.go:209-221):
        synchronize every monitoring period; after an eviction, again as soon as the pod is
        cleaned up (or 30 s have passed)."""
        while True:
            evicted: list[PodTask] = []
            if not self.health[node].health.stopped:
                try:
                    evicted = await self._synchronize(node)
                except ApiError as exc:
                    log.warning("eviction on %s: %s", node, exc.status.message)
            if not evicted:
                await asyncio.sleep(self.timing(timing.EVICTION_MONITORING_PERIOD))
                continue
            waited = 0.0  # waitForPodsCleanup (:447-470)
            while waited < timing.POD_CLEANUP_TIMEOUT and not all(
                t.runtime.stopped() for t in evicted
            ):
                await asyncio.sleep(self.timing(timing.POD_CLEANUP_POLL))
                waited += timing.POD_CLEANUP_POLL

    async def _synchronize(self, node: str) -> list[PodTask]:
        """One synchronize (eviction.py) over the node's pods at their modelled working
        sets and local storage (localstorage.py): the pressure it observes feeds the node's
        conditions (and admission), its event goes on the Node, the pods it picks are
        evicted."""
        now = time.time()
        tasks = {t.runtime.uid: t for t in self.pods.values() if t.node == node}
        usage = {
            uid: eviction.PodUsage(
                t.runtime.obj,
                tuple((c, int(m)) for c, _, m in metrics.pod_usage(t.runtime, self.catalog) or []),
            )
            for uid, t in tasks.items()
        }
        working_set = int(metrics.SYSTEM_MEMORY) + sum(u.memory for u in usage.values())
        live = [  # getAllocatedPods: admitted and not finished
            uid for uid, t in tasks.items() if not (t.runtime.rejected or t.runtime.terminal)
        ]
        period = self.timing(timing.VOLUME_STATS_AGG_PERIOD)
        over = localstorage.evictions([tasks[u].runtime for u in live], now, self.started, period)
        capacity = self.specs[node].capacity
        decision = eviction.synchronize(capacity, working_set, [usage[u] for u in live], over)
        if decision.pressure:
            self.health[node].reporter.pressure(now, decision.pressure)
        for event in decision.events:
            await self.recorders[node].record_node(event)
        evicted = []
        for victim in decision.evictions:
            task = tasks[victim.pod["metadata"]["uid"]]
            rt = task.runtime
            for event in rt.evict(
                now, self.catalog, victim.message, victim.grace, victim.disruption
            ):
                await self.recorders[node].record(rt.obj, event)
            task.wake.set()  # the pod worker writes the Failed status and stops the containers
            evicted.append(task)
        return evicted

    async def _watch_nodes(self) -> None:
        """Tasks break a node by annotating it (see nodes.SIMULATE_*); the node then
        reports what a kubelet in that state would, and the real controllers react."""
        async for _op, obj in self.admin.watch(Node, on_error=on_error_retry):
            name = obj.metadata.name
            if name not in self.specs:
                continue
            # read at the next status round, as a kubelet notices within its 10 s period
            self.health[name].observe(obj.to_dict())

    async def _watch_pods(self) -> None:
        async for op, obj in self.admin.watch(Pod, namespace=ALL_NS, on_error=on_error_retry):
            pod = obj.to_dict()
            self.world.store_pod(op, pod)
            node = pod["spec"].get("nodeName")
            if node not in self.specs:
                continue
            uid = pod["metadata"]["uid"]
            mirrors = self.mirrors.get(node)
            mirrored = mirrors is not None and mirrors.owns(pod)
            if mirrored and (op == "DELETED" or "deletionTimestamp" in pod["metadata"]):
                self._park_static(uid, pod)  # the static pod runs on (staticpods.py)
                self.mirrors_changed.set()
                continue
            if op == "DELETED":
                self._forget(uid)
                continue
            task = self.pods.get(uid)
            if task is None:
                self._start(pod, node)
                continue
            was_deleting = "deletionTimestamp" in task.runtime.obj["metadata"]
            task.runtime.obj = pod
            if "deletionTimestamp" in pod["metadata"] and not was_deleting:
                task.wake.set()
            elif task.runtime.resize.desired_differs(pod["spec"]):
                task.wake.set()  # HandlePodUpdates: a resize (kubelet.go:2927-2939)
            elif len(pod["spec"].get("ephemeralContainers") or []) > len(task.runtime.ephemeral):
                task.wake.set()  # an ephemeral container to start (ephemeral.py)

    def _park_static(self, uid: str, pod: dict) -> None:
        task = self.pods.pop(uid, None)
        if task is None:
            return
        if task.task:
            task.task.cancel()
        key = (pod["metadata"]["namespace"], pod["metadata"]["name"])
        self.static_runtimes[key] = task.runtime

    def _start(self, pod: dict, node: str) -> None:
        key = (pod["metadata"]["namespace"], pod["metadata"]["name"])
        if (runtime := self.static_runtimes.pop(key, None)) is not None:
            runtime.obj = pod  # the new mirror pod of a static pod that kept running
            task = PodTask(runtime, node)
            task.task = asyncio.create_task(self._drive(task))
            self.pods[pod["metadata"]["uid"]] = task
            return
        index = self.specs[node].index
        if pod["spec"].get("hostNetwork"):
            ip = self.address  # podIPs are the node's hostIPs (kubelet_pods.go:2024-2031)
        else:
            ip = f"10.244.{index}.{self._next_ip[node]}"
            self._next_ip[node] = self._next_ip[node] + 1 if self._next_ip[node] < 254 else 2
        runtime = PodRuntime(pod, ip, self.images[node], self.timing)
        runtime.host_ip = self.address
        task = PodTask(runtime, node)
        self._admit(task, pod, node)
        task.task = asyncio.create_task(self._drive(task))
        self.pods[pod["metadata"]["uid"]] = task

    def _admit(self, task: PodTask, pod: dict, node: str) -> None:
        """HandlePodAdditions (pkg/kubelet/kubelet.go:2868-2876): a pod that is not yet
        terminal is admitted against the node's active pods, or rejected."""
        if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
            return
        if rejection := self._judge(pod, node):
            task.runtime.reject(rejection)

    def _judge(self, pod: dict, node: str) -> admission.Rejection | None:
        """canAdmitPod (allocation_manager.go:611-625) against the node's other active
        pods (GetActivePods: admitted, not finished) at their allocated resources."""
        uid = pod["metadata"]["uid"]
        active = [
            {"spec": t.runtime.resize.allocated_spec(t.runtime.obj["spec"])}
            for u, t in self.pods.items()
            if t.node == node
            and u != uid
            and not t.runtime.rejected
            and not (t.runtime.terminal and t.runtime.stopped())
        ]
        spec = self.specs[node]
        node_obj = self.world.node(node) or {
            **node_mod.node_object(spec),
            "status": {"allocatable": node_mod.nodestatus.allocatable(spec.capacity)},
        }
        pressure = self.health[node].reporter.pressure(time.time(), ())
        return admission.admit(pod, node_obj, active, pressure)

    def _wake(self, uid: str) -> None:
        """A live script exited or an exec probe's command ended (called from their threads):
        sync its pod now."""
        task = self.pods.get(uid)
        if task is not None:
            self.loop.call_soon_threadsafe(task.wake.set)

    def _forget(self, uid: str) -> None:
        if self.world.runner is not None:
            self.world.runner.forget(uid)
        task = self.pods.pop(uid, None)
        if task and task.task:
            task.task.cancel()
            self.recorders[task.node].forget(uid)

    async def _drive(self, task: PodTask) -> None:
        rt = task.runtime
        recorder = self.recorders[task.node]
        try:
            while True:
                if self.health[task.node].health.stopped:
                    # an unreachable kubelet: its processes go on, nothing reaches the API
                    # (a deleted pod stays Terminating until the node is back, row 101)
                    await asyncio.sleep(1.0)
                    continue
                if "deletionTimestamp" in rt.obj["metadata"]:
                    await self._terminate(task)
                    return
                await self._check_api_access(rt)
                await self._request_tokens(rt, task.node)
                now = time.time()
                for event in rt.sync_resize(now, lambda pod: self._judge(pod, task.node)):
                    await recorder.record(rt.obj, event)
                for event in rt.advance(now, self.world, self.catalog):
                    await recorder.record(rt.obj, event)
                await self._sync_status(task, now)
                await self._sleep(task, rt)
        except asyncio.CancelledError:
            raise
        except Exception:  # one pod's failure must not stop the node
            log.exception("pod %s/%s", rt.namespace, rt.name)

    async def _request_tokens(self, rt: PodRuntime, node: str) -> None:
        """The projected ServiceAccount tokens of a pod with a script that runs for real,
        before its containers start (it reads the file at once; tokens.PodTokens); a
        failed request fails the pod's mount and is retried with it."""
        if self.world.runner is None or rt.terminal or rt.stopping:
            return
        if rt.tokens is None:
            scripts = [
                realshell.runs_for_real(self.catalog.for_container(image, argv), argv)
                for image, argv in tokens.script_argvs(rt.obj)
            ]
            if not any(scripts):
                return
            rt.tokens = tokens.PodTokens(rt.obj)
        if rt.tokens.token_volumes() and (client := self.clients.get(node)) is not None:
            rt.tokens.error = await tokens.ensure(rt.tokens, rt.obj, client)

    async def _sync_status(self, task: PodTask, now: float) -> None:
        """Write the pod's status when it differs from the last written."""
        rt = task.runtime
        status = rt.status(now, rt.obj.get("status") or {})
        if status != task.last_status:
            await self._write_status(self.clients[task.node], rt, status)
            task.last_status = status

    async def _write_status(self, client: AsyncClient, rt: PodRuntime, status: dict) -> None:
        try:
            await client.patch(
                Pod.Status,
                rt.name,
                {"status": status},
                namespace=rt.namespace,
                patch_type=PatchType.MERGE,
            )
        except ApiError as exc:
            if exc.status.code != 404:
                log.warning("status of %s/%s: %s", rt.namespace, rt.name, exc.status.message)

    async def _sleep(self, task: PodTask, rt: PodRuntime) -> None:
        delay = max(0.0, min(rt.next_at() - time.time(), IDLE_WAKE_SECONDS))
        waits = [asyncio.ensure_future(task.wake.wait())]
        if rt.config_blocked():
            waits.append(asyncio.ensure_future(self.world.changed.wait()))
        try:
            await asyncio.wait(waits, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        task.wake.clear()

    async def _terminate(self, task: PodTask) -> None:
        """A deleted pod: its containers are stopped as the kubelet stops them (preStop,
        SIGTERM, SIGKILL when the grace period ends; nodesim/termination.py), the pod
        stays Terminating meanwhile, and goes once none runs."""
        rt = task.runtime
        recorder = self.recorders[task.node]
        client = self.clients[task.node]
        for event in rt.kill(time.time(), self.catalog):
            await recorder.record(rt.obj, event)
        while not rt.stopped():
            await asyncio.sleep(max(0.0, min(rt.next_at() - time.time(), IDLE_WAKE_SECONDS)))
            now = time.time()
            for event in rt.advance(now, self.world, self.catalog):
                await recorder.record(rt.obj, event)
            await self._sync_status(task, now)
        try:
            await client.delete(Pod, rt.name, namespace=rt.namespace, grace_period=0)
        except ApiError as exc:
            if exc.status.code != 404:
                log.warning("delete %s/%s: %s", rt.namespace, rt.name, exc.status.message)
