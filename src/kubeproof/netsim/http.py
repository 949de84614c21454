"""An HTTP request from a pod, as far as the network decides it: the TCP connection as
`Network.connect` judges it, and when it lands on an ingress controller, the controller's
routing and its answers of its own. ingress-nginx (ingress.py): 404 from its default
backend, 503 with no endpoints, 502/504 when the upstream refuses or times out. Traefik
(traefik.py): 404 `404 page not found` without a router, 503 `no available server`, 502 `Bad
Gateway`, 504, and /ping on its internal entry point.

Sources (ingress-nginx v1.15.1): rootfs/etc/nginx/template/nginx.tmpl:669-680 (the default
server: `return 404`, used when no --default-backend-service is configured), rootfs/etc/
nginx/lua/balancer.lua:121-124 and :329-335 (a backend without endpoints has no balancer:
rewrite answers 503), internal/ingress/controller/endpointslices.go:156 (only ready endpoints
are upstream peers), internal/ingress/controller/config/config.go defaults:
proxy-connect-timeout 5 s (:858), proxy-next-upstream "error timeout" (:866), 3 tries
(:868), server-tokens off (:828).
The pages are nginx's own (src/http/ngx_http_special_response.c ngx_http_error_40x/50x_page
and ngx_http_error_tail with server_tokens off), lines ending CRLF."""

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from kubeproof.netsim import ingress, traefik
from kubeproof.netsim.connect import Network, Verdict
from kubeproof.netsim.objects import Pod
from kubeproof.netsim.services import endpoints, service_port

CONTROLLER_IMAGE = "registry.k8s.io/ingress-nginx/controller"
# the repositories of Traefik's image: k3s's mirror and the Docker Hub library's
TRAEFIK_IMAGES = ("rancher/mirrored-library-traefik", "traefik", "library/traefik")
# Go's net/http StatusText, which Traefik's answers carry
GO_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}

REASONS = {
    404: "Not Found",
    502: "Bad Gateway",
    503: "Service Temporarily Unavailable",
    504: "Gateway Time-out",
}


def nginx_page(status: int) -> str:
    title = f"{status} {REASONS[status]}"
    return (
        f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n"
        f"<center><h1>{title}</h1></center>\r\n"
        "<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    )


@dataclass
class Answer:
    status: int | None  # None: no HTTP answer at all (`verdict` says why)
    verdict: Verdict  # the TCP connection from the client
    body: str | None = None  # None with 200: the backend's own answer
    steps: list[str] = field(default_factory=list)
    upstream: str | None = None  # ns/pod:port that answered (the backend, via a controller)
    phrase: str | None = None  # the status line's reason phrase, when not nginx's
    path: str = "/"  # the path the upstream was asked for

    @property
    def reason(self) -> str:
        if self.phrase is not None:
            return self.phrase
        return "OK" if self.status == 200 else REASONS.get(self.status or 0, "")

    def explain(self) -> str:
        head = (
            f"HTTP {self.status} {self.reason}"
            if self.status
            else f"no answer ({self.verdict.code}): {self.verdict.reason}"
        )
        return "\n".join([head, *(f"  - {s}" for s in self.verdict.steps + self.steps)])


def controller_of(pod: Pod) -> ingress.Controller | None:
    """The ingress-nginx controller a pod runs (its container of that image, its flags)."""
    for container in pod.obj["spec"].get("containers") or []:
        image = container.get("image") or ""
        if image.split("@", 1)[0].rsplit(":", 1)[0] == CONTROLLER_IMAGE or image.startswith(
            CONTROLLER_IMAGE + "@"
        ):
            return ingress.Controller.from_args(
                (container.get("command") or []) + (container.get("args") or [])
            )
    return None


def traefik_of(pod: Pod) -> traefik.Config | None:
    """The Traefik a pod runs (its container of a Traefik image, its static flags)."""
    for container in pod.obj["spec"].get("containers") or []:
        image = (container.get("image") or "").split("@", 1)[0]
        repo = image.rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] else image
        if repo.removeprefix("docker.io/") in TRAEFIK_IMAGES:
            return traefik.Config.from_args(
                (container.get("command") or []) + (container.get("args") or [])
            )
    return None


def _admitted(net: Network) -> list[dict]:
    """The Ingresses as the apiserver stores them. Objects without a uid never went through
    an apiserver (manifests from files): the default class is filled in as admission
    would."""
    classes = net.objects.ingress_classes
    return [
        ing if ing["metadata"].get("uid") else ingress.admit(ing, classes)
        for ing in net.objects.ingresses
    ]


def served_ingresses(net: Network, controller: ingress.Controller) -> list[dict]:
    """The Ingresses of this ingress-nginx controller's class."""
    classes = net.objects.ingress_classes
    return [i for i in _admitted(net) if ingress.served(controller, i, classes)]


def request(net: Network, source: str | Pod, url: str, host: str | None = None) -> Answer:
    """GET `url` from `source`, with a Host header `host` (default: the URL's)."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    verdict = net.connect(source, f"{parts.hostname}:{port}")
    if not verdict.allowed:
        return Answer(None, verdict)
    reached = sorted(verdict.endpoints)
    pod = net.objects.pods.get(reached[0].split(":", 1)[0]) if reached else None
    path = parts.path or "/"
    header = host or parts.netloc
    config = traefik_of(pod) if pod is not None else None
    if pod is not None and config is not None:
        entry = int(reached[0].rsplit(":", 1)[1].split("/", 1)[0])  # ns/pod:port/TCP
        return _traefik(net, pod, config, entry, parts.scheme, header, path, verdict)
    controller = controller_of(pod) if pod is not None else None
    # the request line's target: the path and its query (a CGI script reads the query)
    target = f"{path}?{parts.query}" if parts.query else path
    if controller is None:
        return Answer(200, verdict, upstream=reached[0] if reached else None, path=target)
    backend = ingress.route(served_ingresses(net, controller), header, path)
    if backend is None:
        step = f"ingress-nginx {pod.key}: no rule for host {header} path {path}: default backend"
        return Answer(404, verdict, nginx_page(404), [step])
    answer = _proxy(net, pod, backend, verdict)
    answer.path = target  # what the backend is asked for
    return answer


def _proxy(net: Network, controller: Pod, backend: ingress.Backend, verdict: Verdict) -> Answer:
    name = f"{backend.namespace}/{backend.service}"
    where = f"ingress {backend.ingress}: {backend.rule} -> service {name}:{backend.port}"
    svc = net.objects.services.get(name)
    entry = None
    if svc is not None:
        for p in (svc.get("spec") or {}).get("ports") or []:
            if p.get("protocol", "TCP") == "TCP" and backend.port in (p.get("port"), p.get("name")):
                entry = p
    if entry is None:
        detail = "no such Service" if svc is None else f"the Service has no port {backend.port}"
        return Answer(503, verdict, nginx_page(503), [f"{where}: {detail}"])
    entry = service_port(svc, entry["port"], "TCP") or entry
    ready = [e for e in endpoints(net.objects, svc, entry) if e.ready and e.port is not None]
    if not ready:
        return Answer(503, verdict, nginx_page(503), [f"{where}: no ready endpoints"])
    # the controller proxies to the endpoints' pod IPs itself: its own pod is the source
    upstream = net._to_pods(controller, [(e.pod, e.port) for e in ready], "TCP", [])
    steps = [where, *upstream.steps]
    if upstream.endpoints:  # proxy_next_upstream tries another peer on error or timeout
        return Answer(200, verdict, None, steps, sorted(upstream.endpoints)[0])
    status = 502 if upstream.code == "not-listening" else 504
    return Answer(status, verdict, nginx_page(status), steps)


def _traefik(
    net: Network,
    pod: Pod,
    config: traefik.Config,
    port: int,
    scheme: str,
    host: str,
    path: str,
    verdict: Verdict,
) -> Answer:
    """What Traefik answers on the entry point listening on `port` (netsim/traefik.py)."""
    entry = config.entry_points.get(port)
    where = f"traefik {pod.key} entry point {entry.name if entry else port}"

    def own(status: int, body: str, step: str) -> Answer:
        return Answer(status, verdict, body, [f"{where}: {step}"], phrase=GO_REASONS[status])

    if entry is not None and entry.tls and scheme != "https":
        # net/http's server answering a plain request on a TLS listener (server.go)
        return own(400, "Client sent an HTTP request to an HTTPS server.\n", "plain HTTP on TLS")
    if entry is None or entry.name == traefik.INTERNAL_ENTRY_POINT:
        if config.ping and path == "/ping":
            return own(200, "OK", "ping@internal")
        return own(404, traefik.NOT_FOUND, f"no router for {path}")
    found, _ = traefik.routers(
        config,
        net.objects,
        [i for i in _admitted(net) if traefik.served(config, i, net.objects.ingress_classes)],
    )
    router = traefik.match(config, found, host, path)
    if router is None:
        return own(404, traefik.NOT_FOUND, f"no router matches host {host} path {path}")
    name = f"{router.namespace}/{router.service}"
    step = f"ingress {router.ingress}: router `{router.rule}` -> service {name}:{router.port}"
    if not router.servers:
        return own(503, traefik.NO_SERVER, f"{step}: no server")
    # Traefik proxies from its own pod to the endpoints' addresses (no retry by default)
    upstream = net._to_pods(pod, list(router.servers), "TCP", [])
    steps = [step, *upstream.steps]
    if upstream.endpoints:
        first = sorted(upstream.endpoints)[0]
        return Answer(200, verdict, None, steps, first, GO_REASONS[200], path)
    status = 502 if upstream.code == "not-listening" else 504
    return Answer(status, verdict, GO_REASONS[status], steps, phrase=GO_REASONS[status])
