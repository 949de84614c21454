"""Ingress routing as Traefik v3's Kubernetes Ingress provider does it (k3s's bundled
Traefik, cluster/traefik.py): which Ingresses it serves, the routers it builds from them,
which router a request matches and what it answers of its own. Pure functions over plain
dicts and netsim's objects.

Sources (traefik v3.7.4): pkg/provider/kubernetes/ingress/kubernetes.go
loadConfigurationFromIngresses (:223-441: a router per rule host and path; a backend whose
Service is missing or lacks the port is skipped, as is one without endpoints unless
allowEmptyServices; an Ingress without rules and with a defaultBackend gives the
`PathPrefix("/")` router of priority MinInt32, the first one only), shouldProcessIngress
(:547-557: spec.ingressClassName must name an IngressClass of controller
traefik.io/ingress-controller (client.go:357-375), else the kubernetes.io/ingress.class
annotation must equal --providers.kubernetesingress.ingressClass, which is empty by
default: an Ingress with neither is served), loadService (:559-729: the Service port by
number or name; endpoints of EndpointSlices whose Serving condition is true), loadRouter
(:731-792: `Host("h") && PathPrefix("/p")`, Exact is `Path`, Prefix and
ImplementationSpecific are `PathPrefix`, a character-wise prefix, unless
strictPrefixMatching). pkg/muxer/http/mux.go: a router's priority is its rule's length
(:73-77) and the highest matching priority wins (:216-219); two of the same priority are
taken here by router name (Traefik's order among them is its map's). pkg/muxer/muxer.go
DomainMatchHostExpression (`*.foo` replaces the first label), matcher.go host/path/
pathPrefix. Answers: no router, http.NotFoundHandler (`404 page not found`,
pkg/server/router/router.go:212); no server, `no available server` 503 (pkg/server/
service/loadbalancer/wrr/wrr.go:173-177); a refused or failed upstream, 502 `Bad Gateway`
and a timeout 504 `Gateway Timeout` (pkg/proxy/httputil/proxy.go:173-232). Entry points:
routers attach to every entry point but the internal `traefik` one
(cmd/traefik/traefik.go:409-440), which serves /ping (`OK`, pkg/ping/ping.go:31-38)."""

from dataclasses import dataclass, field

from kubeproof.netsim import ingress as k8s_ingress
from kubeproof.netsim.objects import Objects, Pod
from kubeproof.netsim.services import endpoints

CONTROLLER_CLASS = "traefik.io/ingress-controller"
INTERNAL_ENTRY_POINT = "traefik"  # static.DefaultInternalEntryPointName
NOT_FOUND = "404 page not found\n"  # net/http NotFound
NO_SERVER = "no available server\n"  # http.Error adds the newline
MIN_PRIORITY = -(2**31)  # math.MinInt32: the default backend's router


@dataclass(frozen=True)
class EntryPoint:
    name: str
    tls: bool  # --entryPoints.NAME.http.tls


@dataclass(frozen=True)
class Config:
    """The static configuration of one Traefik container, from its command line."""

    entry_points: dict[int, EntryPoint] = field(default_factory=dict)  # by TCP port
    ingress_class: str = ""
    allow_empty_services: bool = False
    strict_prefix: bool = False
    ping: bool = False

    @classmethod
    def from_args(cls, args: list[str]) -> "Config":
        values: dict[str, str] = {}
        for arg in args:
            if arg.startswith("--"):
                flag, eq, value = arg[2:].partition("=")
                values[flag.lower()] = value if eq else "true"
        addresses: dict[str, int] = {}
        for flag, value in values.items():
            parts = flag.split(".")
            if len(parts) == 3 and parts[0] == "entrypoints" and parts[2] == "address":
                port = value.rsplit("/", 1)[0].rsplit(":", 1)[-1]
                proto = value.rsplit("/", 1)[1] if "/" in value else "tcp"
                if port.isdigit() and proto == "tcp":
                    addresses[parts[1]] = int(port)
        if not addresses:  # Traefik's default: one `http` entry point on :80
            addresses = {"http": 80}
        ping = values.get("ping", "false") == "true"
        if ping and INTERNAL_ENTRY_POINT not in addresses:
            addresses[INTERNAL_ENTRY_POINT] = 8080  # the implicit `traefik` entry point
        entry_points = {
            port: EntryPoint(name, values.get(f"entrypoints.{name}.http.tls") == "true")
            for name, port in addresses.items()
        }
        prefix = "providers.kubernetesingress."
        return cls(
            entry_points,
            values.get(prefix + "ingressclass", ""),
            values.get(prefix + "allowemptyservices", "false") == "true",
            values.get(prefix + "strictprefixmatching", "false") == "true",
            ping,
        )


def served(config: Config, ingress: dict, classes: list[dict]) -> bool:
    """shouldProcessIngress with the IngressClasses its client lists (those of Traefik's
    controller, and of --providers.kubernetesingress.ingressClass's name if set)."""
    name = (ingress.get("spec") or {}).get("ingressClassName")
    if name:
        return any(
            c["metadata"]["name"] == name
            and (c.get("spec") or {}).get("controller") == CONTROLLER_CLASS
            and (not config.ingress_class or c["metadata"]["name"] == config.ingress_class)
            for c in classes
        )
    annotation = (ingress["metadata"].get("annotations") or {}).get(
        k8s_ingress.INGRESS_CLASS_ANNOTATION, ""
    )
    return annotation == config.ingress_class or (
        not config.ingress_class and annotation == "traefik"
    )


@dataclass(frozen=True)
class Router:
    name: str  # the router key: namespace-ingress-host+path, normalized
    rule: str
    priority: int
    host: str  # "" matches any host
    path: str | None  # None: no path matcher
    exact: bool
    namespace: str
    service: str
    port: int | str
    servers: tuple[tuple[Pod, int], ...]  # the endpoints it balances over (pod, port)
    ingress: str  # ns/name of the Ingress it comes from


def _normalize(name: str) -> str:
    """provider.Normalize: every run of characters other than letters and digits is `-`."""
    out, dash = [], False
    for ch in name:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
            dash = False
        elif not dash:
            out.append("-")
            dash = True
    return "".join(out).strip("-")


def _load_service(objects: Objects, namespace: str, backend: dict):
    """loadService: (problem, servers). A problem skips the router."""
    service = backend.get("service") or {}
    svc = objects.services.get(f"{namespace}/{service.get('name')}")
    if svc is None:
        return "service not found", ()
    spec = svc.get("spec") or {}
    if spec.get("type") == "ExternalName":
        return f"externalName services not allowed: {namespace}/{service.get('name')}", ()
    want = service.get("port") or {}
    entry = next(
        (
            p
            for p in spec.get("ports") or []
            if (want.get("number") and want.get("number") == p.get("port"))
            or (want.get("name") and want.get("name") == p.get("name"))
        ),
        None,
    )
    if entry is None:
        return "service port not found", ()
    found = [e for e in endpoints(objects, svc, entry) if e.serving and e.port is not None]
    servers = {e.pod.key: (e.pod, e.port) for e in found}  # each address once
    return None, tuple(servers[k] for k in sorted(servers))


def routers(config: Config, objects: Objects, ingresses: list[dict]) -> tuple[list, list]:
    """(the routers of the served Ingresses, log lines of what was skipped and why)."""
    out: list[Router] = []
    skipped: list[str] = []
    default_taken = False
    ordered = sorted(
        ingresses,
        key=lambda i: (
            i["metadata"].get("creationTimestamp") or "",
            i["metadata"].get("namespace", ""),
            i["metadata"]["name"],
        ),
    )
    for ing in ordered:
        meta, spec = ing["metadata"], ing.get("spec") or {}
        ns = meta.get("namespace", "default")
        where = f"ingress={meta['name']} namespace={ns}"
        rules = spec.get("rules") or []
        default = spec.get("defaultBackend")
        if not rules and default:
            if default_taken:
                skipped.append(f"The default backend already exists. {where}")
                continue
            problem, servers = _load_service(objects, ns, default)
            if problem is None and (servers or config.allow_empty_services):
                default_taken = True
                svc = default.get("service") or {}
                port = (svc.get("port") or {}).get("number") or (svc.get("port") or {}).get("name")
                out.append(
                    Router(
                        "default-router",
                        'PathPrefix("/")',
                        MIN_PRIORITY,
                        "",
                        "/",
                        False,
                        ns,
                        svc.get("name", ""),
                        port or 0,
                        servers,
                        f"{ns}/{meta['name']}",
                    )
                )
            elif problem:
                skipped.append(f"Cannot create service error={problem!r} {where}")
        for rule in rules:
            for pa in (rule.get("http") or {}).get("paths") or []:
                backend = pa.get("backend") or {}
                svc = backend.get("service")
                if not svc:
                    skipped.append(f"Resource backends are not supported {where}")
                    continue
                problem, servers = _load_service(objects, ns, backend)
                port_spec = svc.get("port") or {}
                port = port_spec.get("number") or port_spec.get("name") or 0
                svc_note = f"serviceName={svc.get('name')} servicePort={port}"
                if problem:
                    skipped.append(f"Cannot create service error={problem!r} {where} {svc_note}")
                    continue
                if not servers and not config.allow_empty_services:
                    skipped.append(f"Skipping service: no endpoints found {where} {svc_note}")
                    continue
                out.append(
                    _router(
                        config, ns, meta["name"], rule.get("host") or "", pa, svc, port, servers
                    )
                )
    return out, skipped


def _router(config, ns, name, host, pa, svc, port, servers) -> Router:
    """loadRouter: the rule text decides the priority (its length)."""
    path = pa.get("path") or ""
    exact = pa.get("pathType") == "Exact"
    parts = [f'Host("{host}")'] if host else []
    if path:
        matcher = "Path" if exact else "PathPrefix"
        if config.strict_prefix and not exact and path != "/":
            trimmed = path.rstrip("/")
            parts.append(f'(Path("{trimmed}") || PathPrefix("{trimmed}/"))')
        else:
            parts.append(f'{matcher}("{path}")')
    rule = " && ".join(parts)
    key = _normalize(f"{ns}-{name}-{host}{path}")
    return Router(
        key,
        rule,
        len(rule),
        host.lower(),
        path or None,
        exact,
        ns,
        svc.get("name", ""),
        port,
        servers,
        f"{ns}/{name}",
    )


def _path_matches(router: Router, config: Config, path: str) -> bool:
    if router.path is None:
        return True
    if router.exact:
        return path == router.path
    if config.strict_prefix and router.path != "/":
        trimmed = router.path.rstrip("/")
        return path == trimmed or path.startswith(trimmed + "/")
    return path.startswith(router.path)


def _host_matches(router_host: str, host: str) -> bool:
    """DomainMatchHostExpression, with the request's port and a trailing dot dropped."""
    if not router_host:
        return True
    host = host.lower().rstrip(".")
    if router_host.startswith("*"):
        labels = host.split(".")
        labels[0] = "*"
        return ".".join(labels) == router_host.rstrip(".")
    return host == router_host.rstrip(".")


def match(config: Config, found: list[Router], host: str, path: str) -> Router | None:
    """The router a request for host+path takes: the matching one of highest priority."""
    host = host if host.startswith("[") else host.split(":", 1)[0]
    ranked = sorted(found, key=lambda r: (-r.priority, r.name))
    for router in ranked:
        if _host_matches(router.host, host) and _path_matches(router, config, path):
            return router
    return None
