"""Ingress routing as ingress-nginx does it: which Ingresses a controller serves, which
server (host) and location (path) a request selects, and the backend Service port it goes
to. Pure functions over plain dicts (networking.k8s.io/v1 Ingress and IngressClass).

Sources: k8s.io/api@v0.36.3 networking/v1/types.go:284-318 (IngressSpec), :395-431 (host
matching), :453-508 (path types), :511-548 (backends); the DefaultIngressClass admission
plugin (kubernetes@v1.36.3 plugin/pkg/admission/network/defaultingressclass/admission.go:
85-155); ingress-nginx v1.15.1 internal/ingress/controller/store/store.go:1066-1091
(GetIngressClass), controller.go createServers (a server per host, its root location the
default backend or the Ingress's defaultBackend), location.go:33-80 (a Prefix path becomes
`location = /p` plus `location /p/`; ImplementationSpecific stays a plain nginx prefix),
template.go:534 (Exact is `location = /p`), nginx's location selection (an exact match
wins, else the longest prefix)."""

from dataclasses import dataclass

INGRESS_CLASS_ANNOTATION = (
    "kubernetes.io/ingress.class"  # networking/v1beta1 AnnotationIngressClass
)
DEFAULT_CLASS_ANNOTATION = (
    "ingressclass.kubernetes.io/is-default-class"  # well_known_annotations.go:24
)


@dataclass(frozen=True)
class Controller:
    """What an ingress-nginx controller serves: its flags (--controller-class,
    --ingress-class, --watch-ingress-without-class; defaults from ingress-nginx
    pkg/flags/flags.go)."""

    controller_class: str = "k8s.io/ingress-nginx"
    ingress_class: str = "nginx"
    watch_without_class: bool = False

    @classmethod
    def from_args(cls, args: list[str]) -> "Controller":
        values: dict[str, str] = {}
        for arg in args:
            if arg.startswith("--") and "=" in arg:
                flag, _, value = arg[2:].partition("=")
                values[flag] = value
            elif arg == "--watch-ingress-without-class":
                values["watch-ingress-without-class"] = "true"
        return cls(
            values.get("controller-class", cls.controller_class),
            values.get("ingress-class", cls.ingress_class),
            values.get("watch-ingress-without-class", "false") == "true",
        )


@dataclass(frozen=True)
class Backend:
    namespace: str
    service: str
    port: int | str  # a Service port number, or its name
    ingress: str  # ns/name of the Ingress that routed here
    rule: str  # how it matched, for explanations


def _created(obj: dict) -> str:
    return obj["metadata"].get("creationTimestamp") or ""


def default_class(classes: list[dict]) -> str | None:
    """The class the DefaultIngressClass admission plugin writes into an Ingress created
    without one: among classes annotated is-default-class "true", the newest (by creation,
    then name) (admission.go:129-155)."""
    defaults = [
        c
        for c in classes
        if (c["metadata"].get("annotations") or {}).get(DEFAULT_CLASS_ANNOTATION) == "true"
    ]
    defaults.sort(key=lambda c: c["metadata"]["name"])
    defaults.sort(key=_created, reverse=True)
    return defaults[0]["metadata"]["name"] if defaults else None


def admit(ingress: dict, classes: list[dict]) -> dict:
    """An Ingress as the apiserver stores it: without spec.ingressClassName and without the
    class annotation, the default class is filled in (admission.go:85-127). Live objects
    have been admitted already; manifests read from files have not."""
    spec = ingress.get("spec") or {}
    annotations = ingress["metadata"].get("annotations") or {}
    if spec.get("ingressClassName") or INGRESS_CLASS_ANNOTATION in annotations:
        return ingress
    name = default_class(classes)
    if name is None:
        return ingress
    return ingress | {"spec": spec | {"ingressClassName": name}}


def served(controller: Controller, ingress: dict, classes: list[dict]) -> bool:
    """ingress-nginx's GetIngressClass (store.go:1066-1091): spec.ingressClassName must name
    an IngressClass whose spec.controller is this controller's (its lister holds only
    those); else the annotation must equal --ingress-class; else only with
    --watch-ingress-without-class."""
    name = (ingress.get("spec") or {}).get("ingressClassName")
    if name:
        return any(
            c["metadata"]["name"] == name
            and (c.get("spec") or {}).get("controller") == controller.controller_class
            for c in classes
        )
    annotations = ingress["metadata"].get("annotations") or {}
    if INGRESS_CLASS_ANNOTATION in annotations:
        return annotations[INGRESS_CLASS_ANNOTATION] == controller.ingress_class
    return controller.watch_without_class


def host_matches(rule_host: str, host: str) -> bool:
    """types.go:413-421: a precise host equals the Host header; `*.foo.com` matches a header
    whose first label is removed to give foo.com (one label only). Host names compare
    case-insensitively (RFC 3986 3.2.2)."""
    rule_host, host = rule_host.lower(), host.lower()
    if rule_host.startswith("*."):
        label, _, rest = host.partition(".")
        return bool(label) and rest == rule_host[2:]
    return rule_host == host


@dataclass(frozen=True)
class Location:
    exact: bool
    path: str
    backend: dict  # the IngressBackend
    ingress: dict
    path_type: str
    written: str  # the path as the Ingress has it


def locations(path: dict, ingress: dict) -> list[Location]:
    """The nginx locations one HTTPIngressPath becomes (location.go:33-80, template.go:534):
    Exact `= /p`; Prefix `/p/` plus `= /p` (one location for `/`); ImplementationSpecific
    a plain prefix `/p`, so `/foo` also takes `/foobar`."""
    kind = path.get("pathType") or "ImplementationSpecific"
    written = path.get("path") or "/"
    backend = path.get("backend") or {}
    made = lambda exact, p: Location(exact, p, backend, ingress, kind, written)  # noqa: E731
    if kind == "Exact":
        return [made(True, written)]
    if kind == "Prefix" and written != "/":
        normal = written if written.endswith("/") else written + "/"
        return [made(False, normal), made(True, written)]
    return [made(False, written)]


def select(locs: list[Location], path: str) -> Location | None:
    """nginx's choice: an exact location equal to the path, else the longest prefix. A
    prefix location ending in `/` also takes the path without it (nginx answers 301 to
    `/p/`, which wget and browsers follow)."""
    for loc in locs:
        if loc.exact and loc.path == path:
            return loc
    best = None
    for loc in locs:
        if loc.exact:
            continue
        hit = path.startswith(loc.path) or (loc.path.endswith("/") and path == loc.path[:-1])
        if hit and (best is None or len(loc.path) > len(best.path)):
            best = loc
    return best


def _backend(backend: dict, ingress: dict, rule: str) -> Backend | None:
    service = backend.get("service")
    if not service:
        return None  # a `resource` backend: ingress-nginx serves it by the default backend
    port = service.get("port") or {}
    return Backend(
        ingress["metadata"].get("namespace", "default"),
        service["name"],
        port.get("number") or port.get("name") or 0,
        f"{ingress['metadata'].get('namespace', 'default')}/{ingress['metadata']['name']}",
        rule,
    )


def route(ingresses: list[dict], host: str, path: str) -> Backend | None:
    """The backend a request for host+path reaches through the controller serving these
    Ingresses, or None: the controller's own default backend, which answers 404.

    A server per host, as createServers builds them: the rules of every Ingress naming the
    host exactly; failing that a wildcard host matching it; failing that the catch-all
    server `_` (rules without host). Ingresses are taken oldest first; a host+path already
    defined by an older one is skipped. Within the server the location nginx selects;
    none (its root location `/` is the default backend) goes to the defaultBackend of the
    Ingress that created the server; for `_`, of the oldest Ingress with a defaultBackend
    and no rules (controller.go:1335-1361, createServers)."""
    ordered = sorted(
        ingresses,
        key=lambda i: (_created(i), i["metadata"].get("namespace", ""), i["metadata"]["name"]),
    )
    host = host.split(":", 1)[0] if not host.startswith("[") else host
    names = [r.get("host") or "" for i in ordered for r in (i.get("spec") or {}).get("rules") or []]
    exact = [h for h in names if h and not h.startswith("*.") and host_matches(h, host)]
    wild = [h for h in names if h.startswith("*.") and host_matches(h, host)]
    server = exact[0] if exact else wild[0] if wild else ""
    locs: list[Location] = []
    seen: set[tuple[bool, str]] = set()
    owner: dict | None = None
    for ing in ordered:
        for rule in (ing.get("spec") or {}).get("rules") or []:
            if (rule.get("host") or "") != server:
                continue
            owner = owner or ing
            for p in (rule.get("http") or {}).get("paths") or []:
                for loc in locations(p, ing):
                    if (loc.exact, loc.path) not in seen:
                        seen.add((loc.exact, loc.path))
                        locs.append(loc)
    where = server or "_"
    loc = select(locs, path)
    if loc is not None:
        rule = f"host {where} path {loc.written} ({loc.path_type})"
        return _backend(loc.backend, loc.ingress, rule)
    if server:  # the root location of a host's server: its creator's defaultBackend
        fallback = [owner] if owner is not None else []
    else:  # the catch-all's: an Ingress with a defaultBackend and no rules at all
        fallback = [i for i in ordered if not (i.get("spec") or {}).get("rules")]
    for ing in fallback:
        default = (ing.get("spec") or {}).get("defaultBackend")
        if default:
            return _backend(default, ing, f"host {where}: no path matches {path}, defaultBackend")
    return None
