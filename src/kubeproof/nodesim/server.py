"""The kubelet's HTTPS endpoint, which the apiserver calls for `kubectl logs` and
`kubectl exec`.

Served for every node of the cluster on the cluster's address, port 10250 (each Node
reports that address as its InternalIP), inside the simulator's event loop.

Exec: kubectl >= 1.30 speaks WebSockets (`v5.channel.k8s.io`). The embedded apiserver runs
with `TranslateStreamCloseWebsocketRequests=false`, so it proxies that WebSocket to the
kubelet unchanged instead of translating it to SPDY; this endpoint answers it. Each binary
message starts with a channel byte: 1 stdout, 2 stderr, 3 the final metav1.Status.
"""

import asyncio
import datetime as dt
import functools
import hashlib
import json
import ssl
import time
from pathlib import Path

from aiohttp import web

from kubeproof.nodesim import (
    execstream,
    interactive,
    metrics,
    portforward,
    shell,
    staticlogs,
    tokens,
)
from kubeproof.nodesim.container import Container
from kubeproof.nodesim.etcfiles import hostname_and_domain
from kubeproof.nodesim.liveproc import EXEC_LIMIT
from kubeproof.nodesim.volumefiles import ContainerFiles

FOLLOW_POLL_SECONDS = 0.2
EXEC_PROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io")
STDOUT, STDERR, ERROR = 1, 2, 3


def _rfc3339(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _waiting_message(container: Container, pod: str) -> str:
    """validateContainerLogStatus (pkg/kubelet/kubelet_pods.go:1572-1581, v1.36.3)."""
    reason = container.reason or "ContainerCreating"
    if reason == "ErrImagePull":
        reason = "image can't be pulled"
    elif reason == "ImagePullBackOff":
        reason = "trying and failing to pull image"
    return f'container "{container.name}" in pod "{pod}" is waiting to start: {reason}'


def exit_status(code: int, argv: list[str]) -> dict:
    if code == 0:
        return {"metadata": {}, "status": "Success"}
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"command terminated with non-zero exit code: error executing command "
        f"{argv}, exit code {code}",
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
    }


class KubeletServer:
    def __init__(self, kubelet):
        self.kubelet = kubelet

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/containerLogs/{ns}/{pod}/{container}", self.logs)
        for path in ("/exec/{ns}/{pod}/{container}", "/exec/{ns}/{pod}/{uid}/{container}"):
            app.router.add_route("*", path, self.exec)
        # pkg/kubelet/server/server.go:601-616 (v1.36.3): /attach, with or without the uid
        for path in ("/attach/{ns}/{pod}/{container}", "/attach/{ns}/{pod}/{uid}/{container}"):
            app.router.add_route("*", path, self.attach)
        # server.go:619-634: /portForward/{podNamespace}/{podID}[/{uid}]
        for path in ("/portForward/{ns}/{pod}", "/portForward/{ns}/{pod}/{uid}"):
            app.router.add_route("*", path, self.port_forward)
        api = f"/apis/{metrics.GROUP}/{metrics.VERSION}"
        app.router.add_get(api, self.metrics_discovery)
        app.router.add_get(f"{api}/nodes", self.node_metrics)
        app.router.add_get(f"{api}/nodes/{{name}}", self.node_metrics)
        app.router.add_get(f"{api}/pods", self.pod_metrics)
        app.router.add_get(f"{api}/namespaces/{{ns}}/pods", self.pod_metrics)
        app.router.add_get(f"{api}/namespaces/{{ns}}/pods/{{name}}", self.pod_metrics)
        return app

    # metrics.k8s.io -----------------------------------------------------------------

    async def metrics_discovery(self, request: web.Request) -> web.Response:
        return web.json_response(metrics.discovery())

    def _not_found(self, kind: str, name: str) -> web.HTTPNotFound:
        status = {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "message": f'{kind}.metrics.k8s.io "{name}" not found',
            "reason": "NotFound",
            "details": {"name": name, "group": metrics.GROUP, "kind": kind},
            "code": 404,
        }
        return web.HTTPNotFound(text=json.dumps(status), content_type="application/json")

    async def node_metrics(self, request: web.Request) -> web.Response:
        kubelet = self.kubelet
        selector = request.query.get("labelSelector", "")
        items = [
            metrics.node_metrics(name, kubelet.pods_on(name), kubelet.catalog)
            for name, spec in kubelet.specs.items()
            if metrics.matches(selector, spec.labels)
        ]
        if name := request.match_info.get("name"):
            found = [i for i in items if i["metadata"]["name"] == name]
            if not found:
                raise self._not_found("nodes", name)
            return web.json_response(found[0])
        return web.json_response(
            {
                "kind": "NodeMetricsList",
                "metadata": {},
                "items": items,
                "apiVersion": f"{metrics.GROUP}/{metrics.VERSION}",
            }
        )

    async def pod_metrics(self, request: web.Request) -> web.Response:
        ns, name = request.match_info.get("ns"), request.match_info.get("name")
        selector = request.query.get("labelSelector", "")
        items = []
        for pod in self.kubelet.pods_on(None):
            meta = pod.obj["metadata"]
            if ns and meta["namespace"] != ns:
                continue
            if name and meta["name"] != name:
                continue
            if not metrics.matches(selector, meta.get("labels") or {}):
                continue
            if (entry := metrics.pod_metrics(pod, self.kubelet.catalog)) is not None:
                items.append(entry)
        if name:
            if not items:
                raise self._not_found("pods", name)
            return web.json_response(items[0])
        return web.json_response(
            {
                "kind": "PodMetricsList",
                "metadata": {},
                "items": items,
                "apiVersion": f"{metrics.GROUP}/{metrics.VERSION}",
            }
        )

    async def start(self, address: str, port: int, cert: Path, key: Path, cas: list[Path]) -> None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(cert), str(key))
        # like a real kubelet, answer only clients with a certificate from the cluster CA
        # (the apiserver's kubelet client) or, for the metrics API, the front-proxy CA: an
        # agent's shell cannot read logs or exec behind RBAC's back
        context.verify_mode = ssl.CERT_REQUIRED
        for ca in cas:
            context.load_verify_locations(str(ca))
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        await web.TCPSite(runner, address, port, ssl_context=context).start()

    async def healthz(self, request: web.Request) -> web.Response:
        ok = self.kubelet.registered
        return web.Response(status=200 if ok else 503, text="ok" if ok else "registering nodes")

    def _container(self, request: web.Request) -> tuple[object, Container]:
        ns, name = request.match_info["ns"], request.match_info["pod"]
        pod = self.kubelet.find_pod(ns, name)
        if pod is None:
            raise web.HTTPNotFound(text=json.dumps({"message": f'pod "{name}" not found'}))
        wanted = request.match_info["container"]
        container = next((c for c in pod.containers() if c.name == wanted), None)
        if container is None:
            raise web.HTTPBadRequest(text=f'container "{wanted}" in pod "{name}" is not valid')
        return pod, container

    async def logs(self, request: web.Request) -> web.StreamResponse:
        pod, container = self._container(request)
        # a static pod's container log is its control-plane process's (staticlogs.py)
        static = staticlogs.source(self.kubelet, pod, container)
        query = request.query
        previous = query.get("previous") == "true"
        if previous:
            if not container.previous_logs and container.restart_count == 0:
                raise web.HTTPBadRequest(
                    text=f'previous terminated container "{container.name}" in pod '
                    f'"{pod.name}" not found'
                )
            lines = list(container.previous_logs)
        else:
            if not container.container_id:
                raise web.HTTPBadRequest(text=_waiting_message(container, pod.name))
            # (up to 10 MiB read off the event loop)
            lines = await asyncio.to_thread(static.read) if static else list(container.logs)
        if since := query.get("sinceSeconds"):
            cutoff = time.time() - float(since)
            lines = [entry for entry in lines if entry[0] >= cutoff]
        if tail := query.get("tailLines"):
            lines = lines[-int(tail) :] if int(tail) > 0 else []
        stamps = query.get("timestamps") == "true"

        def render(entries) -> bytes:
            return "".join(
                (f"{_rfc3339(t)} " if stamps else "") + f"{line}\n" for t, line in entries
            ).encode()

        body = render(lines)
        if limit := int(query.get("limitBytes") or 0):
            body = body[:limit]
        if query.get("follow") != "true" or previous:
            return web.Response(body=body, content_type="text/plain")
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        await response.write(body)
        sent, instance = len(container.logs), container.container_id
        while container.container_id == instance and _running(container):
            await asyncio.sleep(FOLLOW_POLL_SECONDS)
            fresh = await asyncio.to_thread(static.read_new) if static else container.logs[sent:]
            sent += len(fresh)
            if fresh:
                await response.write(render(fresh))
        await response.write_eof()
        return response

    async def exec(self, request: web.Request) -> web.StreamResponse:
        pod, container = self._container(request)
        if not _running(container):
            raise web.HTTPNotFound(text=f'container not found ("{container.name}")')
        ws = web.WebSocketResponse(protocols=EXEC_PROTOCOLS)
        if not ws.can_prepare(request).ok:
            raise web.HTTPBadRequest(
                text="the kubeproof kubelet speaks WebSocket exec (kubectl >= 1.30), not SPDY"
            )
        await ws.prepare(request)
        argv = request.query.getall("command", [])
        # the apiserver passes PodExecOptions as input/output/error/tty=1
        # (pkg/registry/core/pod/strategy.go:685-702, pkg/apis/core/types.go:6780-6786)
        stdin = None
        if request.query.get("input") == "1":
            try:
                stdin = await execstream.read_stdin(ws)
            except execstream.StdinTooLarge as exc:
                await self._fail(ws, str(exc))
                return ws
        if isinstance(container.files, ContainerFiles) and container.files.token_volumes():
            node = pod.obj["spec"].get("nodeName", "")
            if client := self.kubelet.clients.get(node):
                await tokens.ensure(container.files, pod.obj, client)
        hostname = hostname_and_domain(pod.obj)[0]
        model = container.model or self.kubelet.catalog.resolve(container.image)[2]
        net = self.kubelet.exec_network(pod)
        if container.live is not None:  # a script running for real: so does the command
            result = await asyncio.to_thread(
                shell.run, argv, container, hostname, net, model, EXEC_LIMIT, stdin
            )
        else:
            result = shell.run(argv, container, hostname, net, model, stdin=stdin)
        stdout, stderr = result.stdout, result.stderr
        if request.query.get("tty") == "1":  # a terminal has one output stream
            stdout, stderr = stdout + stderr, ""
        # surrogate escapes are the bytes a modelled file held that were not UTF-8
        frames = []
        if stdout and request.query.get("output", request.query.get("stdout")) != "0":
            frames.append(bytes([STDOUT]) + stdout.encode(errors="surrogateescape"))
        if stderr:
            frames.append(bytes([STDERR]) + stderr.encode(errors="surrogateescape"))
        if argv and argv[0].rsplit("/", 1)[-1] == "tar":
            # tar says "removing leading '/'" before it writes the archive; `kubectl cp`
            # stops reading once the archive ends, so a notice sent after it is never shown
            frames.reverse()
        for frame in frames:
            await ws.send_bytes(frame)
        await ws.send_bytes(bytes([ERROR]) + json.dumps(exit_status(result.code, argv)).encode())
        await ws.close()
        return ws

    async def attach(self, request: web.Request) -> web.StreamResponse:
        """`kubectl attach` and `kubectl debug -it`: what the container writes from now on,
        until it exits (the CRI attaches to the running process's streams; nothing before
        the attach is replayed). Its stdout and stderr come as one stream, as its log has
        them. What is typed on stdin reaches a modelled shell waiting on it
        (interactive.py); elsewhere it is read and dropped (see docs/behaviour-models.md)."""
        pod, container = self._container(request)
        if not _running(container):
            raise web.HTTPNotFound(text=f'container not found ("{container.name}")')
        ws = web.WebSocketResponse(protocols=EXEC_PROTOCOLS)
        if not ws.can_prepare(request).ok:
            raise web.HTTPBadRequest(
                text="the kubeproof kubelet speaks WebSocket attach (kubectl >= 1.30), not SPDY"
            )
        await ws.prepare(request)
        model = container.model or self.kubelet.catalog.resolve(container.image)[2]
        if request.query.get("input") == "1" and interactive.reads_stdin(container, model):
            hostname, net = hostname_and_domain(pod.obj)[0], self.kubelet.exec_network(pod)

            def run(line: str) -> shell.Result:
                return shell.run(["sh", "-c", line], container, hostname, net, model)

            wake = functools.partial(self.kubelet._wake, pod.uid)
            drain = asyncio.create_task(interactive.feed(ws, container, run, wake))
        else:  # stdin, and the client's close, read and dropped
            drain = asyncio.create_task(execstream.drain(ws))
        sent, instance = len(container.logs), container.container_id
        try:
            while container.container_id == instance and _running(container):
                if drain.done() and ws.closed:
                    return ws
                await asyncio.sleep(FOLLOW_POLL_SECONDS)
                sent = min(sent, len(container.logs))  # a rotated log dropped its head
                fresh, sent = container.logs[sent:], len(container.logs)
                if fresh:
                    text = "".join(f"{line}\n" for _, line in fresh)
                    await ws.send_bytes(bytes([STDOUT]) + text.encode(errors="surrogateescape"))
            await ws.send_bytes(bytes([ERROR]) + json.dumps(exit_status(0, [])).encode())
            await ws.close()
        finally:
            drain.cancel()
        return ws

    async def port_forward(self, request: web.Request) -> web.StreamResponse:
        """`kubectl port-forward` (portforward.py): 404s as getPortForward words them
        (server.go:1105-1113), then the SPDY session."""
        ns, name = request.match_info["ns"], request.match_info["pod"]
        pod = self.kubelet.find_pod(ns, name)
        if pod is None:
            raise web.HTTPNotFound(text="pod does not exist")
        if (uid := request.match_info.get("uid")) and uid != pod.uid:
            raise web.HTTPNotFound(text="pod not found")
        net = self.kubelet.exec_network(pod)

        async def answer(port: int, raw: bytes) -> bytes:
            line = raw.split(b"\r\n", 1)[0].decode(errors="replace").split(" ")
            path = line[1] if len(line) > 1 and line[1].startswith("/") else "/"
            host = next(
                (
                    h.split(b":", 1)[1].strip().decode(errors="replace")
                    for h in raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]
                    if h.lower().startswith(b"host:")
                ),
                None,
            )
            # what the workload's HTTP model answers an in-cluster client (shell.py's wget)
            _, status, body, _ = (
                net.http(f"http://{pod.ip}:{port}{path}", host)
                if net.http
                else (None, 200, None, "OK")
            )
            return portforward.http_response(status or 200, body if body is not None else "ok\n")

        sandbox = hashlib.sha256(f"sandbox/{pod.uid}".encode()).hexdigest()
        listens = functools.partial(self.kubelet.listens_on, pod)
        return await portforward.serve(request, sandbox, listens, answer)

    @staticmethod
    async def _fail(ws: web.WebSocketResponse, message: str) -> None:
        """A stream that cannot go on: the error channel's Status, then the close."""
        status = {"metadata": {}, "status": "Failure", "message": message}
        await ws.send_bytes(bytes([ERROR]) + json.dumps(status).encode())
        await ws.close()


def _running(container) -> bool:
    """Its process runs: also while it is being stopped (a terminating pod's container runs
    until it exits or its grace period ends), so exec, attach and a followed log reach it
    then, as on a node: containerd's CRI Exec refuses only a container whose state is not
    CONTAINER_RUNNING (internal/cri/server/container_exec.go), and a container stays
    running until its process exits."""
    return container.stage in ("running", "stopping")
