"""The Docker-link style variables a kubelet gives every container for the Services it may
reach: `getServiceEnvVarMap` (pkg/kubelet/kubelet_pods.go:683-730) over `FromServices`
(pkg/kubelet/envvars/envvars.go:32-113), k8s.io/kubernetes v1.36.3."""

from collections.abc import Iterable

MASTER_SERVICES = {"kubernetes"}  # kubelet_pods.go `masterServices`, always from `default`


def _ip_set(service: dict) -> bool:
    """v1helper.IsServiceIPSet: a ClusterIP that is neither empty nor `None`."""
    ip = (service.get("spec") or {}).get("clusterIP") or ""
    return ip not in ("", "None")


def _name(text: str) -> str:
    return text.replace("-", "_").upper()  # makeEnvVariableName, envvars.go:64-70


def visible_services(services: Iterable[dict], namespace: str, links: bool) -> list[dict]:
    """The Services a pod in `namespace` gets variables for (kubelet_pods.go:702-723):
    `default/kubernetes` always, its own namespace's only with enableServiceLinks; a
    same-named Service of its own namespace wins over the master one."""
    chosen: dict[str, dict] = {}
    for service in services:
        if not _ip_set(service):
            continue
        meta = service["metadata"]
        name = meta["name"]
        if meta.get("namespace") == "default" and name in MASTER_SERVICES:
            chosen.setdefault(name, service)
        elif meta.get("namespace") == namespace and links:
            chosen[name] = service
    # upstream walks a Go map (random order); sort for a stable environment
    return [chosen[name] for name in sorted(chosen)]


def service_env(services: Iterable[dict]) -> dict[str, str]:
    """FromServices (envvars.go:32-62) and makeLinkVariables (envvars.go:72-113)."""
    env: dict[str, str] = {}
    for service in services:
        spec = service["spec"]
        ip, ports = spec["clusterIP"], spec.get("ports") or []
        if not ports:
            continue
        prefix = _name(service["metadata"]["name"])
        env[f"{prefix}_SERVICE_HOST"] = ip
        env[f"{prefix}_SERVICE_PORT"] = str(ports[0]["port"])
        for port in ports:
            if port.get("name"):
                env[f"{prefix}_SERVICE_PORT_{_name(port['name'])}"] = str(port["port"])
        host = f"[{ip}]" if ":" in ip else ip  # net.JoinHostPort
        for i, port in enumerate(ports):
            protocol = port.get("protocol") or "TCP"
            url = f"{protocol.lower()}://{host}:{port['port']}"
            if i == 0:
                env[f"{prefix}_PORT"] = url
            base = f"{prefix}_PORT_{port['port']}_{protocol.upper()}"
            env[base] = url
            env[f"{base}_PROTO"] = protocol.lower()
            env[f"{base}_PORT"] = str(port["port"])
            env[f"{base}_ADDR"] = ip
    return env
