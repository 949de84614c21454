"""Checks on what a workload means rather than how its spec is spelled: the effective value
of an environment variable, what a container sees at a path, whether every reference
resolves, where its pods may run, and the everyday "rolled out and serving" pair."""

from lightkube import ApiError

from kubeproof.verify.checks import read_object, rollout_complete, service_has_ready_endpoints
from kubeproof.verify.registry import Context, check
from kubeproof.verify.result import Result

ANY = object()


def _label(kind: str, namespace: str, name: str) -> str:
    return f"{kind} {namespace}/{name}"


def pod_spec(obj: dict) -> dict:
    """The pod template's spec of a Deployment, StatefulSet, DaemonSet, Job, CronJob or Pod."""
    spec = obj.get("spec") or {}
    if obj.get("kind") == "Pod" or "containers" in spec:
        return spec
    if "jobTemplate" in spec:
        return ((spec["jobTemplate"].get("spec") or {}).get("template") or {}).get("spec") or {}
    return (spec.get("template") or {}).get("spec") or {}


def _workload(ctx: Context, kind: str, namespace: str, name: str):
    obj, problem = read_object(ctx, kind, namespace, name)
    if obj is None:
        return None, problem
    obj.setdefault("kind", kind.rpartition("/")[2])
    return obj, None


def _containers(spec: dict, container: str | None) -> list[dict]:
    every = (spec.get("initContainers") or []) + (spec.get("containers") or [])
    return [c for c in every if container is None or c.get("name") == container]


class _Objects:
    """ConfigMaps and Secrets of a namespace, read once per check."""

    def __init__(self, ctx: Context, namespace: str):
        self.ctx, self.namespace, self.cache = ctx, namespace, {}

    def data(self, kind: str, name: str) -> dict | None:
        if (kind, name) not in self.cache:
            obj, _ = read_object(self.ctx, kind, self.namespace, name)
            if obj is None:
                self.cache[(kind, name)] = None
            else:
                data = dict(obj.get("data") or {})
                if kind == "Secret":
                    import base64

                    data = {
                        k: base64.b64decode(v).decode("utf-8", "replace") for k, v in data.items()
                    }
                    for k, v in (obj.get("stringData") or {}).items():
                        data[k] = v
                else:
                    data.update(obj.get("binaryData") or {})
                self.cache[(kind, name)] = data
        return self.cache[(kind, name)]


def effective_env(container: dict, objects: _Objects) -> dict[str, tuple[object, str]]:
    """var -> (value or None when it does not resolve, where it comes from), as the kubelet
    builds the environment: envFrom first in order, then env, later entries winning."""
    out: dict[str, tuple[object, str]] = {}
    for source in container.get("envFrom") or []:
        prefix = source.get("prefix") or ""
        for field, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
            ref = source.get(field)
            if ref:
                data = objects.data(kind, ref.get("name", ""))
                for k, v in (data or {}).items():
                    out[prefix + k] = (v, f"{kind} {ref.get('name')} key {k} (envFrom)")
    for var in container.get("env") or []:
        name = var.get("name")
        if "valueFrom" not in var:
            out[name] = (var.get("value", ""), "a literal value")
            continue
        vf = var["valueFrom"] or {}
        for field, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
            ref = vf.get(field)
            if ref:
                data = objects.data(kind, ref.get("name", ""))
                value = None if data is None else data.get(ref.get("key", ""))
                out[name] = (value, f"{kind} {ref.get('name')} key {ref.get('key')}")
        if "fieldRef" in vf:
            out[name] = (f"<{vf['fieldRef'].get('fieldPath')}>", "the downward API")
        if "resourceFieldRef" in vf:
            out[name] = (f"<{vf['resourceFieldRef'].get('resource')}>", "the downward API")
    return out


@check
def env(
    ctx: Context,
    kind: str,
    namespace: str,
    name: str,
    var: str,
    value: object = ANY,
    container: str | None = None,
    secret: tuple[str, str] | None = None,
    configmap: tuple[str, str] | None = None,
) -> Result:
    """The effective value of environment variable `var` in the workload's pod template,
    wherever it is defined (a literal, `valueFrom`, `envFrom`; later entries win as in the
    kubelet): it equals `value`, and with `secret=(name, key)` or `configmap=(name, key)` it
    comes from that key, which exists. Without `container`, every container that sets it
    must agree (and one must)."""
    check = f"env {_label(kind, namespace, name)} {var}"
    obj, problem = _workload(ctx, kind, namespace, name)
    if obj is None:
        return Result(check, False, problem or "not found")
    objects = _Objects(ctx, namespace)
    seen = []
    for c in _containers(pod_spec(obj), container):
        found = effective_env(c, objects).get(var)
        if found is None:
            if container is not None:
                return Result(check, False, f"{var} is not set in container {c['name']}")
            continue
        got, source = found
        seen.append(c["name"])
        where = f"in {c['name']}: from {source}"
        if got is None:
            return Result(check, False, f"{where}, which does not exist")
        for want, kind_ in ((secret, "Secret"), (configmap, "ConfigMap")):
            if want is not None and not source.startswith(f"{kind_} {want[0]} key {want[1]}"):
                return Result(check, False, f"{where}, not {kind_} {want[0]} key {want[1]}")
        if value is not ANY and str(got) != str(value):
            return Result(check, False, f"{where} = {got!r}, want {value!r}")
    if not seen:
        return Result(check, False, f"{var} is not set in any container")
    return Result(check, True, f"set in {', '.join(seen)} as wanted")


def _mount_for(c: dict, path: str) -> dict | None:
    """The mount that decides what a container sees at a path: the longest mountPath that
    is the path or one of its parents."""
    best = None
    for m in c.get("volumeMounts") or []:
        mp = m.get("mountPath", "").rstrip("/") or "/"
        covers = path == mp or path.startswith(mp.rstrip("/") + "/")
        if covers and (best is None or len(mp) > len(best["mountPath"].rstrip("/"))):
            best = m
    return best


def _volume_files(volume: dict, objects: _Objects) -> tuple[str, dict[str, tuple[str, str]]]:
    """(description of the volume, file path in it -> (kind name, key)) for ConfigMap,
    Secret and projected volumes; other kinds hold no known files."""
    files: dict[str, tuple[str, str]] = {}

    def add(kind: str, ref_name: str, items: list | None) -> None:
        data = objects.data(kind, ref_name) or {}
        if items:
            for item in items:
                files[item.get("path", item.get("key"))] = (f"{kind} {ref_name}", item.get("key"))
        else:
            for k in data:
                files[k] = (f"{kind} {ref_name}", k)

    if "configMap" in volume:
        ref = volume["configMap"]
        add("ConfigMap", ref.get("name", ""), ref.get("items"))
        return f"ConfigMap {ref.get('name')}", files
    if "secret" in volume:
        ref = volume["secret"]
        add("Secret", ref.get("secretName", ""), ref.get("items"))
        return f"Secret {ref.get('secretName')}", files
    if "projected" in volume:
        names = []
        for source in (volume["projected"] or {}).get("sources") or []:
            if "configMap" in source:
                add(
                    "ConfigMap",
                    source["configMap"].get("name", ""),
                    source["configMap"].get("items"),
                )
                names.append(f"ConfigMap {source['configMap'].get('name')}")
            if "secret" in source:
                add("Secret", source["secret"].get("name", ""), source["secret"].get("items"))
                names.append(f"Secret {source['secret'].get('name')}")
        return f"projected ({', '.join(names)})", files
    if "persistentVolumeClaim" in volume:
        return f"PersistentVolumeClaim {volume['persistentVolumeClaim'].get('claimName')}", files
    if "emptyDir" in volume:
        return "emptyDir", files
    kinds = [k for k in volume if k != "name"]
    return (kinds[0] if kinds else "unknown volume"), files


@check
def mount(
    ctx: Context,
    kind: str,
    namespace: str,
    name: str,
    path: str,
    container: str | None = None,
    configmap: str | None = None,
    secret: str | None = None,
    pvc: str | None = None,
    key: str | None = None,
) -> Result:
    """What the container sees at `path`: the mount with the longest mountPath above it
    decides (an emptyDir mounted over a data path shadows the claim), through `subPath`,
    projected volumes and `items`. It must come from the named ConfigMap, Secret or
    PersistentVolumeClaim and, with `key`, be that key's file, which exists. Without
    `container`, every container that mounts something there must agree (and one must)."""
    check = f"mount {_label(kind, namespace, name)} {path}"
    obj, problem = _workload(ctx, kind, namespace, name)
    if obj is None:
        return Result(check, False, problem or "not found")
    spec = pod_spec(obj)
    volumes = {v.get("name"): v for v in spec.get("volumes") or []}
    objects = _Objects(ctx, namespace)
    path = path.rstrip("/") or "/"
    want = (
        f"ConfigMap {configmap}"
        if configmap
        else f"Secret {secret}"
        if secret
        else f"PersistentVolumeClaim {pvc}"
        if pvc
        else None
    )
    seen = []
    for c in _containers(spec, container):
        m = _mount_for(c, path)
        if m is None:
            if container is not None:
                return Result(check, False, f"nothing is mounted at {path} in {c['name']}")
            continue
        seen.append(c["name"])
        volume = volumes.get(m.get("name"))
        if volume is None:
            return Result(
                check, False, f"{c['name']} mounts volume {m.get('name')}, which is not defined"
            )
        what, files = _volume_files(volume, objects)
        inner = path[len(m["mountPath"].rstrip("/")) :].lstrip("/")
        sub = (m.get("subPath") or "").strip("/")
        inner = "/".join(p for p in (sub, inner) if p)
        where = f"in {c['name']}: {path} is {what}" + (f" ({inner})" if inner else "")
        if want and not (what == want or (what.startswith("projected") and want in what)):
            return Result(check, False, f"{where}, not {want}")
        if key is not None:
            source = files.get(inner)
            if source is None:
                return Result(check, False, f"{where}: no such file in the volume")
            if source[1] != key or (want and source[0] != want):
                return Result(check, False, f"{where}: it holds {source[0]} key {source[1]}")
            kind_, _, ref = source[0].partition(" ")
            data = objects.data(kind_, ref)
            if data is None or key not in data:
                return Result(check, False, f"{where}: {source[0]} has no key {key}")
    if not seen:
        return Result(check, False, f"nothing is mounted at {path}")
    return Result(
        check,
        True,
        f"{path} in {', '.join(seen)} is {want or 'mounted'}" + (f", key {key}" if key else ""),
    )


@check
def references_valid(ctx: Context, kind: str, namespace: str, name: str) -> Result:
    """Every ConfigMap and Secret (with the keys it names), PersistentVolumeClaim and
    ServiceAccount the pod template uses exists, unless marked optional."""
    check = f"references_valid {_label(kind, namespace, name)}"
    obj, problem = _workload(ctx, kind, namespace, name)
    if obj is None:
        return Result(check, False, problem or "not found")
    spec = pod_spec(obj)
    objects = _Objects(ctx, namespace)
    broken: list[str] = []

    def need(kind_: str, ref: str, key: str | None, optional: bool, why: str) -> None:
        if optional:
            return
        data = objects.data(kind_, ref)
        if data is None:
            broken.append(f"{why}: {kind_} {ref} does not exist")
        elif key is not None and key not in data:
            broken.append(f"{why}: {kind_} {ref} has no key {key}")

    for c in _containers(spec, None):
        for source in c.get("envFrom") or []:
            for field, kind_ in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                if field in source:
                    ref = source[field]
                    need(
                        kind_,
                        ref.get("name", ""),
                        None,
                        ref.get("optional", False),
                        f"{c['name']} envFrom",
                    )
        for var in c.get("env") or []:
            vf = var.get("valueFrom") or {}
            for field, kind_ in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                if field in vf:
                    ref = vf[field]
                    need(
                        kind_,
                        ref.get("name", ""),
                        ref.get("key"),
                        ref.get("optional", False),
                        f"{c['name']} env {var.get('name')}",
                    )
    for v in spec.get("volumes") or []:
        why = f"volume {v.get('name')}"
        sources = [v] + [s for s in (v.get("projected") or {}).get("sources") or []]
        for s in sources:
            if "configMap" in s:
                ref = s["configMap"]
                for item in ref.get("items") or [None]:
                    need(
                        "ConfigMap",
                        ref.get("name", ""),
                        item and item.get("key"),
                        ref.get("optional", False),
                        why,
                    )
            if "secret" in s:
                ref = s["secret"]
                ref_name = ref.get("secretName") or ref.get("name", "")
                for item in ref.get("items") or [None]:
                    need(
                        "Secret",
                        ref_name,
                        item and item.get("key"),
                        ref.get("optional", False),
                        why,
                    )
        if "persistentVolumeClaim" in v:
            claim = v["persistentVolumeClaim"].get("claimName", "")
            found, _ = read_object(ctx, "PersistentVolumeClaim", namespace, claim)
            if found is None:
                broken.append(f"{why}: PersistentVolumeClaim {claim} does not exist")
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if account and account != "default":
        found, _ = read_object(ctx, "ServiceAccount", namespace, account)
        if found is None:
            broken.append(f"ServiceAccount {account} does not exist")
    return Result(check, not broken, "; ".join(broken) or "every reference resolves")


@check
def healthy(
    ctx: Context, namespace: str, name: str, service: str | None = None, kind: str = "Deployment"
) -> Result:
    """The workload (a Deployment unless `kind` says StatefulSet) has rolled out completely
    and its Service (same name unless `service` says otherwise) has a ready endpoint for
    every replica."""
    check = f"healthy {namespace}/{name}"
    obj, problem = _workload(ctx, kind, namespace, name)
    if obj is None:
        return Result(check, False, problem or "not found")
    want = (obj.get("spec") or {}).get("replicas", 1)
    if kind == "Deployment":
        rollout = rollout_complete.__kubeproof__(ctx, namespace, name)
        if not rollout.passed:
            return Result(check, False, rollout.reason)
    else:
        ready = (obj.get("status") or {}).get("readyReplicas") or 0
        if ready < want:
            return Result(check, False, f"{ready}/{want} ready")
    try:
        endpoints = service_has_ready_endpoints.__kubeproof__(ctx, namespace, service or name, want)
    except ApiError as exc:
        return Result(check, False, f"service {service or name}: {exc.status.message}")
    return Result(check, endpoints.passed, f"{want} replica(s) rolled out; {endpoints.reason}")


@check
def env_target(
    ctx: Context,
    kind: str,
    namespace: str,
    name: str,
    var: str,
    service: str,
    port: int | None = None,
    container: str | None = None,
    scheme: str | None = None,
    path: str | None = None,
) -> Result:
    """The effective value of `var` (a URL or `host:port`, however it is set) names the
    Service `service` ("ns/name") as cluster DNS resolves it from the pod's namespace —
    short, namespaced or fully qualified names alike — on `port` (and `scheme`, `path` if
    given). Without `container`, every container that sets it must agree (and one must)."""
    from urllib.parse import urlsplit

    from kubeproof.netsim import dns
    from kubeproof.netsim.live import read
    from kubeproof.netsim.objects import Objects

    check = f"env_target {_label(kind, namespace, name)} {var}"
    obj, problem = _workload(ctx, kind, namespace, name)
    if obj is None:
        return Result(check, False, problem or "not found")
    objects = _Objects(ctx, namespace)
    world = None
    seen = []
    for c in _containers(pod_spec(obj), container):
        found = effective_env(c, objects).get(var)
        if found is None:
            continue
        value, source = found
        seen.append(c["name"])
        if value is None:
            return Result(check, False, f"in {c['name']}: from {source}, which does not exist")
        text = str(value)
        parts = urlsplit(text if "://" in text else f"//{text}")
        host = (parts.hostname or "").rstrip(".") + (
            "." if (parts.hostname or "").endswith(".") else ""
        )
        try:
            got_port = parts.port
        except ValueError:
            got_port = None
        problems = []
        if world is None:
            world = Objects.build(read(ctx.client))
        answer = dns.resolve(world, host, namespace)
        svc = answer.service or {}
        meta = svc.get("metadata") or {}
        target = f"{meta.get('namespace')}/{meta.get('name')}" if svc else answer.kind
        if target != service:
            problems.append(f"{host or '(no host)'} resolves to {target}, not {service}")
        if port is not None and got_port not in (port, None if scheme else port):
            problems.append(f"port {got_port}, want {port}")
        if scheme is not None and parts.scheme != scheme:
            problems.append(f"scheme {parts.scheme or '(none)'}, want {scheme}")
        if path is not None and parts.path != path:
            problems.append(f"path {parts.path or '(none)'}, want {path}")
        if problems:
            return Result(
                check, False, f"in {c['name']}: {var}={text} ({source}): " + "; ".join(problems)
            )
    if not seen:
        return Result(check, False, f"{var} is not set in any container")
    return Result(check, True, f"{var} names {service} in {', '.join(seen)}")
