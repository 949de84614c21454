"""What a container sees of its configuration: env vars resolved from the pod spec, Secrets,
ConfigMaps, the downward API and the Services of its namespace, and the files its volumes
mount — with the kubelet's own error wording when a reference is broken.

Env follows `makeEnvironmentVariables` (pkg/kubelet/kubelet_pods.go:734-985, v1.36.3)."""

import base64
from typing import Protocol

from kubeproof.nodesim import downward, servicelinks
from kubeproof.nodesim.expansion import expand


class World(Protocol):
    def secret(self, namespace: str, name: str) -> dict | None: ...
    def configmap(self, namespace: str, name: str) -> dict | None: ...
    def services(self) -> list[dict]: ...
    def node(self, name: str) -> dict | None: ...
    def changed_at(self, kind: str, namespace: str, name: str) -> float: ...


def _data(obj: dict, kind: str) -> dict[str, str]:
    if kind == "Secret":
        out = {
            k: base64.b64decode(v).decode(errors="replace")
            for k, v in (obj.get("data") or {}).items()
        }
        return out | (obj.get("stringData") or {})
    return dict(obj.get("data") or {}) | {k: "<binary>" for k in obj.get("binaryData") or {}}


def _lookup(world: World, kind: str, namespace: str, name: str) -> dict | None:
    return world.secret(namespace, name) if kind == "Secret" else world.configmap(namespace, name)


class ConfigError(Exception):
    """CreateContainerConfigError: the message is the kubelet's."""


def _referenced(world: World, kind: str, namespace: str, ref: dict) -> dict | None:
    """The Secret/ConfigMap a reference names; None if it is missing but optional."""
    obj = _lookup(world, kind, namespace, ref["name"])
    if obj is None and not ref.get("optional"):
        raise ConfigError(f'{kind.lower()} "{ref["name"]}" not found')
    return obj


def _refs(source: dict, secret_key: str, configmap_key: str) -> list[tuple[str, dict]]:
    """(kind, reference) of the Secret and ConfigMap references an env source holds."""
    pairs = (("Secret", source.get(secret_key)), ("ConfigMap", source.get(configmap_key)))
    return [(kind, ref) for kind, ref in pairs if ref]


def node_facts(pod: dict, world: World) -> tuple[list[str], dict[str, str]]:
    """(host IPs, allocatable) of the pod's node, as `getHostIPsAnyWay` and
    `getNodeAnyWay` give them to the downward API."""
    node = world.node(pod["spec"].get("nodeName", "")) or {}
    status = node.get("status") or {}
    host_ips = [a["address"] for a in status.get("addresses") or [] if a["type"] == "InternalIP"]
    if not host_ips:
        host_ips = [ip["ip"] for ip in (pod.get("status") or {}).get("hostIPs") or []]
    return host_ips, dict(status.get("allocatable") or {})


def service_env(pod: dict, world: World) -> dict[str, str]:
    """getServiceEnvVarMap (kubelet_pods.go:683-730); enableServiceLinks defaults to true."""
    links = pod["spec"].get("enableServiceLinks", True) is not False
    visible = servicelinks.visible_services(world.services(), pod["metadata"]["namespace"], links)
    return servicelinks.service_env(visible)


def resolve_env(pod: dict, container: dict, world: World, pod_ips: list[str]) -> dict[str, str]:
    """The container's environment, or ConfigError with the kubelet's message: envFrom,
    then env in order (a literal value has `$(VAR)` expanded against the variables so far
    and the service variables), then every service variable not already set."""
    namespace = pod["metadata"]["namespace"]
    services = service_env(pod, world)
    env: dict[str, str] = {}
    for source in container.get("envFrom") or []:
        for kind, ref in _refs(source, "secretRef", "configMapRef"):
            obj = _referenced(world, kind, namespace, ref)
            if obj is None:
                continue
            prefix = source.get("prefix", "")
            env |= {prefix + k: v for k, v in _data(obj, kind).items()}
    for var in container.get("env") or []:
        value = _env_value(var, pod, container, world, pod_ips, env, services)
        if value is not None:
            env[var["name"]] = value
    return env | {k: v for k, v in services.items() if k not in env}


def _env_value(var, pod, container, world, pod_ips, env, services) -> str | None:
    """One `env` entry's value (kubelet_pods.go:848-966); None: skipped (optional)."""
    namespace = pod["metadata"]["namespace"]
    if var.get("value"):
        return expand(var["value"], env, services)
    source = var.get("valueFrom")
    if not source:
        return ""
    if "fieldRef" in source:
        host_ips, _ = node_facts(pod, world)
        try:
            return downward.field_value(pod, source["fieldRef"]["fieldPath"], pod_ips, host_ips)
        except downward.DownwardError as exc:
            raise ConfigError(str(exc)) from None
    if "resourceFieldRef" in source:
        _, allocatable = node_facts(pod, world)
        try:
            return downward.resource_value(source["resourceFieldRef"], pod, container, allocatable)
        except downward.DownwardError as exc:
            raise ConfigError(str(exc)) from None
    for kind, ref in _refs(source, "secretKeyRef", "configMapKeyRef"):
        obj = _referenced(world, kind, namespace, ref)
        if obj is None:
            return None
        data = _data(obj, kind)
        if ref["key"] not in data:
            if ref.get("optional"):
                return None
            raise ConfigError(f"couldn't find key {ref['key']} in {kind} {namespace}/{ref['name']}")
        return data[ref["key"]]
    return ""


def _sources(volume: dict) -> list[tuple[str, dict]]:
    """(kind, source) of each ConfigMap/Secret a volume (or projected volume) reads."""
    found = []
    if "secret" in volume:
        found.append(("Secret", {**volume["secret"], "name": volume["secret"].get("secretName")}))
    if "configMap" in volume:
        found.append(("ConfigMap", volume["configMap"]))
    for projected in (volume.get("projected") or {}).get("sources") or []:
        for kind, key in (("Secret", "secret"), ("ConfigMap", "configMap")):
            if key in projected:
                found.append((kind, projected[key]))
    return found


def referenced_objects(pod: dict) -> list[tuple[str, str]]:
    """(kind, name) of every ConfigMap/Secret the pod's volumes read."""
    volumes = pod["spec"].get("volumes") or []
    return [(kind, source.get("name") or "") for v in volumes for kind, source in _sources(v)]


def volume_error(pod: dict, world: World) -> tuple[str, str] | None:
    """(volume name, FailedMount message) for the first volume that cannot be mounted."""
    namespace = pod["metadata"]["namespace"]
    for volume in pod["spec"].get("volumes") or []:
        for kind, source in _sources(volume):
            problem = _source_problem(world, kind, namespace, source)
            if problem:
                name = volume["name"]
                return name, f'MountVolume.SetUp failed for volume "{name}" : {problem}'
    return None


def _source_problem(world: World, kind: str, namespace: str, source: dict) -> str | None:
    name = source.get("name") or ""
    obj = _lookup(world, kind, namespace, name)
    if obj is None:
        return None if source.get("optional") else f'{kind.lower()} "{name}" not found'
    data = _data(obj, kind)
    for item in source.get("items") or []:
        if item["key"] not in data and not source.get("optional"):
            # pkg/volume/configmap/configmap.go:292; pkg/volume/secret/secret.go:280
            if kind == "ConfigMap":
                return f"configmap references non-existent config key: {item['key']}"
            return f"references non-existent secret key: {item['key']}"
    return None


def volume_files(
    pod: dict, volume: dict, world: World, tokens: dict[tuple[str, str], str]
) -> dict[str, str]:
    """Relative path -> content of one configMap, secret, downwardAPI or projected volume;
    `tokens` holds serviceAccountToken contents by (volume, path)."""
    namespace = pod["metadata"]["namespace"]
    files: dict[str, str] = {}
    for kind, source in _sources(volume):
        obj = _lookup(world, kind, namespace, source.get("name") or "")
        if obj is None:
            continue
        data = _data(obj, kind)
        items = source.get("items") or [{"key": k, "path": k} for k in data]
        files |= {i["path"]: data[i["key"]] for i in items if i["key"] in data}
    projections = (volume.get("projected") or {}).get("sources") or []
    items = (volume.get("downwardAPI") or {}).get("items") or []
    items += [i for p in projections for i in (p.get("downwardAPI") or {}).get("items") or []]
    if items:
        files |= downward.volume_files(items, pod, node_facts(pod, world)[1])
    for projection in projections:
        if token := projection.get("serviceAccountToken"):
            files[token["path"]] = tokens.get((volume["name"], token["path"]), "")
    return files


def mounted_files(
    pod: dict,
    container: dict,
    world: World,
    tokens: dict[tuple[str, str], str] | None = None,
    sub_path: bool | None = None,
) -> dict[str, str]:
    """Absolute path -> content of every volume file the container mounts; `sub_path`
    True/False keeps only the subPath mounts or only the others."""
    volumes = {v["name"]: v for v in pod["spec"].get("volumes") or []}
    files: dict[str, str] = {}
    for mount in container.get("volumeMounts") or []:
        if sub_path is not None and bool(mount.get("subPath")) != sub_path:
            continue
        volume = volumes.get(mount["name"], {"name": mount["name"]})
        content = volume_files(pod, volume, world, tokens or {})
        if mount.get("subPath"):
            if mount["subPath"] in content:
                files[mount["mountPath"]] = content[mount["subPath"]]
            continue
        base = mount["mountPath"].rstrip("/")
        files |= {f"{base}/{path}": text for path, text in content.items()}
    return files
