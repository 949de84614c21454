"""An HTTP request from a pod, as far as the network decides it: the TCP connection as
`Network.connect` judges it, and when it lands on an ingress-nginx controller, the
controller's routing (ingress.py) and its answers of its own — 404 from its default
backend, 503 with no endpoints, 502/504 when the upstream refuses or times out.

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

from kubeproof.netsim import ingress
from kubeproof.netsim.connect import Network, Verdict
from kubeproof.netsim.objects import Pod
from kubeproof.netsim.services import endpoints, service_port

CONTROLLER_IMAGE = "registry.k8s.io/ingress-nginx/controller"

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
    upstream: str | None = None  # ns/pod:port the controller proxied to

    @property
    def reason(self) -> str:
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


def served_ingresses(net: Network, controller: ingress.Controller) -> list[dict]:
    """The Ingresses of this controller's class. Objects without a uid never went through
    an apiserver (manifests from files): the default class is filled in as admission
    would."""
    classes = net.objects.ingress_classes
    out = []
    for ing in net.objects.ingresses:
        if not ing["metadata"].get("uid"):
            ing = ingress.admit(ing, classes)
        if ingress.served(controller, ing, classes):
            out.append(ing)
    return out


def request(net: Network, source: str | Pod, url: str, host: str | None = None) -> Answer:
    """GET `url` from `source`, with a Host header `host` (default: the URL's)."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    verdict = net.connect(source, f"{parts.hostname}:{port}")
    if not verdict.allowed:
        return Answer(None, verdict)
    reached = sorted(verdict.endpoints)
    pod = net.objects.pods.get(reached[0].split(":", 1)[0]) if reached else None
    controller = controller_of(pod) if pod is not None else None
    if controller is None:
        return Answer(200, verdict)
    path = parts.path or "/"
    header = host or parts.netloc
    backend = ingress.route(served_ingresses(net, controller), header, path)
    if backend is None:
        step = f"ingress-nginx {pod.key}: no rule for host {header} path {path}: default backend"
        return Answer(404, verdict, nginx_page(404), [step])
    return _proxy(net, pod, backend, verdict)


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
