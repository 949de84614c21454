"""Writing kubeconfig files. Admin kubeconfigs embed their certificates so they can be
copied anywhere; component kubeconfigs point at files in the cluster's PKI directory."""

import base64
from pathlib import Path

import yaml


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def write_cert_kubeconfig(
    path: Path,
    *,
    cluster: str,
    server: str,
    ca: Path,
    cert: Path,
    key: Path,
    user: str,
    embed: bool = True,
) -> Path:
    if embed:
        cluster_entry = {"server": server, "certificate-authority-data": _b64(ca)}
        user_entry = {"client-certificate-data": _b64(cert), "client-key-data": _b64(key)}
    else:
        cluster_entry = {"server": server, "certificate-authority": str(ca)}
        user_entry = {"client-certificate": str(cert), "client-key": str(key)}
    return _write(path, cluster, server, cluster_entry, user, user_entry)


def write_token_kubeconfig(
    path: Path,
    *,
    cluster: str,
    server: str,
    ca_pem: bytes,
    user: str,
    token: str,
    namespace: str | None = None,
) -> Path:
    cluster_entry = {
        "server": server,
        "certificate-authority-data": base64.b64encode(ca_pem).decode(),
    }
    return _write(path, cluster, server, cluster_entry, user, {"token": token}, namespace)


def _write(
    path: Path,
    cluster: str,
    server: str,
    cluster_entry: dict,
    user: str,
    user_entry: dict,
    namespace: str | None = None,
) -> Path:
    context: dict = {"cluster": cluster, "user": user}
    if namespace:
        context["namespace"] = namespace
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster, "cluster": cluster_entry}],
        "users": [{"name": user, "user": user_entry}],
        "contexts": [{"name": cluster, "context": context}],
        "current-context": cluster,
        "preferences": {},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    path.chmod(0o600)
    return path
