"""The simulated kubelet for every node of one cluster: registers the nodes, renews their
Leases, and drives each pod bound to them through its PodRuntime, writing pod status and
Events with the node's own credentials (so the Node authorizer and NodeRestriction apply)."""

import asyncio
import contextlib
import functools
import json
import logging
import time
from pathlib import Path
from urllib.parse import urlsplit

from lightkube import ALL_NS, ApiError, AsyncClient
from lightkube.config.kubeconfig import KubeConfig
from lightkube.resources.core_v1 import Node, Pod
from lightkube.types import PatchType, on_error_retry

from kubeproof.netsim import Network
from kubeproof.netsim import http as nethttp
from kubeproof.netsim.connect import declared_or_unknown
from kubeproof.netsim.objects import Pod as NetPod
from kubeproof.nodesim import (
    access,
    admission,
    apiwget,
    cgi,
    dependencies,
    eviction,
    ingressstatus,
    localpath,
    localstorage,
    metrics,
    pages,
    podnet,
    realshell,
    shell,
    staticpods,
    timing,
    tokens,
)
from kubeproof.nodesim import catalog as catalog_mod
from kubeproof.nodesim import nodes as node_mod
from kubeproof.nodesim.cgi import CgiDeferred, CgiPlan
from kubeproof.nodesim.container import API_CHECK_SECONDS
from kubeproof.nodesim.events import Recorder
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


class Kubelet:
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
        """A live script exited (called from its watcher thread): sync its pod now."""
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

    async def _check_api_access(self, rt: PodRuntime) -> None:
        """SubjectAccessReviews for the API calls running workloads make, and netsim for
        the upstreams they depend on."""
        now = time.time()
        for container in rt.app:
            model = container.model or self.catalog.resolve(container.image)[2]
            if container.stage != "running" or not model:
                continue
            if not (model.api_calls or model.dependencies):
                continue
            if now - container.api_checked_at < API_CHECK_SECONDS:
                continue
            container.api_checked_at = now
            previous, container.failing = container.failing, None
            if model.dependencies:
                self._check_dependencies(rt, container, model, now)
                if container.failing:
                    continue
            for call in model.api_calls:
                name = access.object_name(call, container.env)
                allowed = await access.allowed(self.admin, rt.obj, call, name)
                if not allowed:
                    container.failing = access.refusal(previous, rt.obj, call, name, now)
                    container.failing_mode = call.on_denied
                    break

    def _check_dependencies(self, rt: PodRuntime, container, model, now: float) -> None:
        net, me = self._network_view(rt)
        for index, dep in enumerate(model.dependencies):
            where = dependencies.target(dep, container.env, container.files)
            if where is None:
                continue  # an unset URL is a `requires` matter, not a network one
            problem = dependencies.failure(net, me, where)
            if dep.on_failure == "log":  # it keeps serving: only its log tells
                attempts = container.dependency_attempts.setdefault(
                    (container.container_id, index), dependencies.Attempts()
                )
                container.logs += [
                    (now, line) for line in attempts.attempt(dep, where, problem, now)
                ]
            elif problem:
                container.failing = dependencies.wording(dep, where, problem)
                container.failing_mode = dep.on_failure
                return

    def _network_view(self, rt: PodRuntime) -> tuple[Network, NetPod]:
        net = Network.from_objects(
            self.world.network_objects(), listening=self._listens, corefile=self._loaded_corefile
        )
        me = NetPod(rt.obj | {"status": (rt.obj.get("status") or {}) | {"podIP": rt.ip}})
        return net, me

    def exec_network(self, rt: PodRuntime) -> shell.Net:
        """netsim as `kubectl exec … wget|curl|nc|nslookup` in this pod sees it."""
        net, me = self._network_view(rt)

        def connect(where: str) -> str | None:
            verdict = net.connect(me, where)
            return None if verdict.allowed else verdict.code

        def get(url: str, host: str | None) -> tuple[str | None, int | None, str | None, str]:
            answer = nethttp.request(net, me, url, host)  # through an ingress controller too
            if answer.status is None:
                return answer.verdict.code, None, None, ""
            if answer.status == 200 and answer.body is None and answer.upstream:
                page = self.page(answer.upstream, answer.path)
                if page is not None:
                    return None, page.status, page.body, page.reason
            return None, answer.status, answer.body, answer.reason

        return shell.Net(connect, lambda name: net.lookup(me, name), get)

    def _script_network(
        self, rt: PodRuntime, argv: list[str], direct: bool = False
    ) -> tuple[str, str, int]:
        """A real script's wget or nslookup (netbridge.py, from its thread): answered on
        the node's loop as `kubectl exec` in that pod is — but a wget to the cluster's API
        is sent to the apiserver, from this thread, with the script's own headers.
        `direct`: the loop is blocked on the request this one serves (a CGI script,
        cgi.py), so it is answered from this thread, the loop's state standing still."""
        call = apiwget.parse(argv[1:]) if argv[0] == "wget" else None
        plan = CgiPlan()

        def answer() -> tuple[apiwget.Route | None, tuple[str, str, int]]:
            if call is not None and (found := apiwget.route(*self._network_view(rt), call)):
                return found, ("", "", 0)
            result = shell.network_tool(argv, self.exec_network(rt))
            return None, (result.stdout, result.stderr, result.code)

        async def on_loop() -> tuple[apiwget.Route | None, tuple[str, str, int]] | None:
            # a CGI script the request reaches runs in this thread, not on the loop (the
            # node's heartbeats and every other pod's go on meanwhile): the request is
            # answered again once the scripts' pages are in (CgiPlan)
            self._cgi_plan = None if direct else plan
            try:
                return answer()
            except CgiDeferred:
                return None
            finally:
                self._cgi_plan = None

        if direct:
            found, result = answer()
        else:
            for _ in range(CgiPlan.ROUNDS):
                future = asyncio.run_coroutine_threadsafe(on_loop(), self.loop)
                answered = future.result(30)
                if answered is not None:
                    break
                plan.run_pending()
            else:
                return "", f"{argv[0]}: download timed out\n", 1
            found, result = answered
        if found is None or call is None:
            return result
        return apiwget.perform(call, found, self.apiserver)

    def _api_admitted(self, rt: PodRuntime) -> bool:
        """Whether a connection of this pod's kubectl gets to the apiserver now (podnet.py;
        from a relay thread): its egress policy, decided on the node's loop."""

        async def decide() -> bool:
            return apiwget.reachable(*self._network_view(rt), *podnet.SERVICE)

        return asyncio.run_coroutine_threadsafe(decide(), self.loop).result(timeout=30)

    def _pod_lookup(self, rt: PodRuntime, name: str) -> tuple[str, list[str]]:
        """What the cluster DNS answers this pod for `name` (poddns.py, from its thread)."""

        async def look() -> tuple[str, list[str]]:
            net, me = self._network_view(rt)
            return net.lookup(me, name)

        return asyncio.run_coroutine_threadsafe(look(), self.loop).result(timeout=30)

    def page(self, upstream: str, path: str) -> pages.Page | None:
        """What the server behind `upstream` (ns/pod:port/TCP) answers GET `path`, if
        its model knows (nodesim/pages.py)."""
        where, _, port = upstream.split("/TCP", 1)[0].rpartition(":")
        namespace, _, name = where.partition("/")
        rt = self.find_pod(namespace, name)
        if rt is None or not port.isdigit():
            return None
        for container in rt.app:
            model = container.model or self.catalog.resolve(container.image)[2]
            if container.stage != "running" or model is None:
                continue
            if any(p.container_port == int(port) for p in model.ports):
                plan = self._cgi_plan
                if plan is not None and cgi.wanted(path) and getattr(container, "live", None):
                    # a real script's request: the CGI runs in its thread (on_loop above),
                    # its own wget answered on the loop as any script's
                    key = (upstream, path)
                    if key not in plan.pages:
                        network = functools.partial(self._script_network, rt)
                        plan.pending[key] = functools.partial(
                            pages.served,
                            container, model, self.catalog.servers, int(port), path, rt, network,
                        )  # fmt: skip
                        raise CgiDeferred
                    return plan.pages[key]
                network = functools.partial(self._script_network, rt, direct=True)
                return pages.served(
                    container, model, self.catalog.servers, int(port), path, rt, network
                )
        return None

    def _loaded_corefile(self, pod: NetPod) -> str | None:
        """The Corefile a CoreDNS pod's running process has loaded (nodesim/corefilereload.py):
        cluster DNS answers by it, not by its ConfigMap (netsim/coredns.py)."""
        rt = self.find_pod(pod.namespace, pod.name)
        for container in rt.app if rt else []:
            if container.stage == "running" and container.reload is not None:
                return container.reload.loaded
        return None

    def listens_on(self, rt: PodRuntime, port: int) -> bool:
        """Whether something in the pod listens on TCP `port` (what `kubectl port-forward`
        reaches on localhost: no Service, no NetworkPolicy in between)."""
        return self._listens(self._network_view(rt)[1], port, "TCP")

    def _listens(self, pod: NetPod, port: int, protocol: str) -> bool:
        """A destination listens when its model serves the port and it has started."""
        rt = self.find_pod(pod.namespace, pod.name)
        if rt is None:
            return declared_or_unknown(pod, port, protocol)
        now = time.time()
        for container in rt.app:
            # the container's own model: a server its command starts listens (servers.py)
            model = container.model or self.catalog.resolve(container.image)[2]
            if container.stage != "running" or model is None:
                continue
            serving = now >= (container.started_at or now) + model.startup_seconds
            if serving and any(p.container_port == port for p in model.ports):
                return True
        return False

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
