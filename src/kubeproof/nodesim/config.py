"""What a container sees of its configuration: env vars resolved from the pod spec,
Secrets and ConfigMaps, and the files its volumes mount — with the kubelet's own error
wording when a reference is broken."""

import base64
from dataclasses import dataclass, field
from typing import Protocol


class World(Protocol):
    def secret(self, namespace: str, name: str) -> dict | None: ...
    def configmap(self, namespace: str, name: str) -> dict | None: ...


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


def resolve_env(container: dict, namespace: str, world: World) -> dict[str, str]:
    """The container's environment, or ConfigError with the kubelet's message."""
    env: dict[str, str] = {}
    for source in container.get("envFrom") or []:
        for kind, key in (("Secret", "secretRef"), ("ConfigMap", "configMapRef")):
            ref = source.get(key)
            if not ref:
                continue
            obj = _referenced(world, kind, namespace, ref)
            if obj is None:
                continue
            prefix = source.get("prefix", "")
            env |= {prefix + k: v for k, v in _data(obj, kind).items()}
    for var in container.get("env") or []:
        if "value" in var or "valueFrom" not in var:
            env[var["name"]] = _expand(var.get("value", ""), env)
            continue
        source = var["valueFrom"]
        for kind, key in (("Secret", "secretKeyRef"), ("ConfigMap", "configMapKeyRef")):
            ref = source.get(key)
            if not ref:
                continue
            obj = _referenced(world, kind, namespace, ref)
            if obj is None:
                break
            data = _data(obj, kind)
            if ref["key"] not in data:
                if ref.get("optional"):
                    break
                raise ConfigError(
                    f"couldn't find key {ref['key']} in {kind} {namespace}/{ref['name']}"
                )
            env[var["name"]] = data[ref["key"]]
        if "fieldRef" in source:
            env[var["name"]] = f"<{source['fieldRef']['fieldPath']}>"
    return env


def _expand(value: str, env: dict[str, str]) -> str:
    for name, current in env.items():
        value = value.replace(f"$({name})", current)
    return value


@dataclass
class Mounts:
    """Files visible in the container: absolute path -> content."""

    files: dict[str, str] = field(default_factory=dict)


def volume_error(pod: dict, world: World) -> tuple[str, str] | None:
    """(volume name, FailedMount message) for the first volume that cannot be mounted."""
    namespace = pod["metadata"]["namespace"]
    for volume in pod["spec"].get("volumes") or []:
        for kind, key, name_field in (
            ("Secret", "secret", "secretName"),
            ("ConfigMap", "configMap", "name"),
        ):
            source = volume.get(key)
            if source is None:
                continue
            problem = _source_problem(world, kind, namespace, source, source.get(name_field, ""))
            if problem:
                return volume[
                    "name"
                ], f'MountVolume.SetUp failed for volume "{volume["name"]}" : {problem}'
        for projected in (volume.get("projected") or {}).get("sources") or []:
            for kind, key in (("Secret", "secret"), ("ConfigMap", "configMap")):
                source = projected.get(key)
                if source is None:
                    continue
                problem = _source_problem(world, kind, namespace, source, source.get("name", ""))
                if problem:
                    return volume["name"], (
                        f'MountVolume.SetUp failed for volume "{volume["name"]}" : {problem}'
                    )
    return None


def _source_problem(world: World, kind: str, namespace: str, source: dict, name: str) -> str | None:
    obj = _lookup(world, kind, namespace, name)
    if obj is None:
        return None if source.get("optional") else f'{kind.lower()} "{name}" not found'
    data = _data(obj, kind)
    for item in source.get("items") or []:
        if item["key"] not in data and not source.get("optional"):
            return f"{kind.lower()} references non-existent {kind.lower()} key: {item['key']}"
    return None


def mounted_files(pod: dict, container: dict, world: World) -> dict[str, str]:
    """Absolute path -> content of every ConfigMap/Secret key the container mounts."""
    namespace = pod["metadata"]["namespace"]
    volumes = {v["name"]: v for v in pod["spec"].get("volumes") or []}
    files: dict[str, str] = {}
    for mount in container.get("volumeMounts") or []:
        volume = volumes.get(mount["name"], {})
        sources = []
        if "secret" in volume:
            sources.append(("Secret", volume["secret"], volume["secret"].get("secretName", "")))
        if "configMap" in volume:
            sources.append(("ConfigMap", volume["configMap"], volume["configMap"].get("name", "")))
        for projected in (volume.get("projected") or {}).get("sources") or []:
            for kind, key in (("Secret", "secret"), ("ConfigMap", "configMap")):
                if key in projected:
                    sources.append((kind, projected[key], projected[key].get("name", "")))
        for kind, source, name in sources:
            obj = _lookup(world, kind, namespace, name)
            if obj is None:
                continue
            data = _data(obj, kind)
            items = source.get("items") or [{"key": k, "path": k} for k in data]
            for item in items:
                if item["key"] not in data:
                    continue
                path = f"{mount['mountPath'].rstrip('/')}/{item['path']}"
                if mount.get("subPath"):
                    if mount["subPath"] != item["path"]:
                        continue
                    path = mount["mountPath"]
                files[path] = data[item["key"]]
    return files
