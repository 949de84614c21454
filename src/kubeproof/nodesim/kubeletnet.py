"""What a pod on the simulated node sees of the network and the API: netsim as its
`kubectl exec … wget|nc|nslookup` and its real scripts see it, the servers that answer,
the SubjectAccessReviews for its modelled API calls and the upstreams it depends on.
A part of the Kubelet (kubelet.py), which holds the state these read."""

import asyncio
import functools
import time
from typing import TYPE_CHECKING

from kubeproof.netsim import Network
from kubeproof.netsim import http as nethttp
from kubeproof.netsim.connect import declared_or_unknown
from kubeproof.netsim.objects import Pod as NetPod
from kubeproof.nodesim import access, apiwget, cgi, dependencies, pages, podnet, shell
from kubeproof.nodesim.cgi import CgiDeferred, CgiPlan
from kubeproof.nodesim.container import API_CHECK_SECONDS
from kubeproof.nodesim.pod import PodRuntime

if TYPE_CHECKING:
    from lightkube import AsyncClient

    from kubeproof.nodesim import catalog as catalog_mod
    from kubeproof.nodesim.world import WorldCache


class PodNetworking:
    """The Kubelet's network and API-access methods (mixed into Kubelet)."""

    admin: "AsyncClient"
    apiserver: str
    catalog: "catalog_mod.Catalog"
    loop: asyncio.AbstractEventLoop
    world: "WorldCache"
    _cgi_plan: CgiPlan | None

    def find_pod(self, namespace: str, name: str) -> PodRuntime | None:
        raise NotImplementedError  # the Kubelet's

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
