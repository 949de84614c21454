"""Static pods of the control-plane node and their mirror pods (kubelet v1.36.3).

The control-plane node's kubelet reads its staticPodPath (cluster/staticpods.py writes
kubeadm's manifests there), defaults each pod as `pkg/kubelet/config/common.go:61-104`
applyDefaults does (name `<name>-<node>`, nodeName, the config hash as
`kubernetes.io/config.hash`, the NoExecute toleration of every static pod) and
`pkg/kubelet/config/config.go` adds (`kubernetes.io/config.seen`, `kubernetes.io/config.source:
file`), and makes each visible in the API as a mirror pod (`pkg/kubelet/pod/mirror_client.go:
69-107`: `kubernetes.io/config.mirror` = the hash, owned by the Node).

A mirror pod is only a view: deleting it does not stop the static pod. The kubelet deletes
a mirror pod that is being deleted (or no longer matches) at once and creates it again
(`pkg/kubelet/kubelet.go` syncPod: "Trying to delete pod" then CreateMirrorPod); the
containers go on running, so the new mirror pod shows the same container state under a new
UID (kubelet.py keeps the runtime across the swap).
"""

import datetime as dt
import json
import logging
import time
from pathlib import Path

import yaml
from lightkube import ALL_NS, ApiError, AsyncClient
from lightkube.codecs import from_dict
from lightkube.resources.core_v1 import Node, Pod

log = logging.getLogger(__name__)

HASH = "kubernetes.io/config.hash"  # pkg/kubelet/types/pod_update.go ConfigHashAnnotationKey
MIRROR = "kubernetes.io/config.mirror"  # ConfigMirrorAnnotationKey
SEEN = "kubernetes.io/config.seen"  # ConfigFirstSeenAnnotationKey
SOURCE = "kubernetes.io/config.source"  # ConfigSourceAnnotationKey
FILE_SOURCE = "file"  # pkg/kubelet/types/pod_update.go FileSource
NOEXECUTE_TOLERATION = {"operator": "Exists", "effect": "NoExecute"}  # common.go:92-97


def preloaded_images(version: str) -> list[str]:
    """What `kubeadm init` pulls onto the control-plane node before it starts anything
    (preflight: cmd/kubeadm/app/images/images.go:96-126 GetControlPlaneImages, with
    constants.go CoreDNSVersion v1.14.2, PauseVersion 3.10.2, etcd 3.6.8-0): its pods find
    them already present."""
    kubernetes = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy")
    return [
        *(f"registry.k8s.io/{name}:{version}" for name in kubernetes),
        "registry.k8s.io/coredns/coredns:v1.14.2",
        "registry.k8s.io/pause:3.10.2",
        "registry.k8s.io/etcd:3.6.8-0",
    ]


_FNV128_OFFSET = 0x6C62272E07BB014262B821756295C58D
_FNV128_PRIME = 0x0000000001000000000000000000013B


def _fnv128a(data: bytes) -> str:
    """hash/fnv New128a, as applyDefaults hashes a pod into its UID (common.go:63-72)."""
    h = _FNV128_OFFSET
    for byte in data:
        h = ((h ^ byte) * _FNV128_PRIME) & ((1 << 128) - 1)
    return f"{h:032x}"


def config_hash(pod: dict, node: str, source: str) -> str:
    """The pod's hash over its content, then `host:<node>` and `file:<path>` (common.go:
    63-72; upstream hashes the Go struct's printed form, this the canonical JSON)."""
    body = json.dumps(pod, sort_keys=True).encode()
    return _fnv128a(body + f"host:{node}".encode() + f"file:{source}".encode())


def _rfc3339_nano(t: float) -> str:
    """time.RFC3339Nano, which drops trailing zeros of the fraction (kubetypes.Timestamp)."""
    ns = int(t * 1e9)
    stamp = dt.datetime.fromtimestamp(ns // 1_000_000_000, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{ns % 1_000_000_000:09d}".rstrip("0")
    return f"{stamp}{'.' + fraction if fraction else ''}Z"


def static_pod(manifest: dict, node: str, source: str, seen: float) -> dict:
    """applyDefaults (common.go:61-104) and the config source's annotations."""
    pod = json.loads(json.dumps(manifest))
    uid = config_hash(pod, node, source)
    meta = pod.setdefault("metadata", {})
    meta.pop("creationTimestamp", None)
    meta["name"] = f"{meta['name']}-{node.lower()}"
    meta["namespace"] = meta.get("namespace") or "default"
    annotations = meta.setdefault("annotations", {}) or {}
    meta["annotations"] = annotations
    annotations[HASH] = uid
    annotations[SEEN] = _rfc3339_nano(seen)
    annotations[SOURCE] = FILE_SOURCE
    spec = pod.setdefault("spec", {})
    spec["nodeName"] = node
    tolerations = spec.setdefault("tolerations", [])
    if NOEXECUTE_TOLERATION not in tolerations:
        tolerations.append(dict(NOEXECUTE_TOLERATION))
    pod.pop("status", None)
    return pod


def load(directory: Path, node: str, seen: float) -> list[dict]:
    """The staticPodPath's pods, in file-name order (config/file.go reads the directory
    sorted); a file that does not decode is skipped, as the kubelet logs and skips it."""
    pods = []
    for path in sorted(directory.glob("*.yaml")) if directory.is_dir() else []:
        try:
            manifest = yaml.safe_load(path.read_text())
        except (OSError, yaml.YAMLError) as exc:
            log.warning("static pod %s: %s", path, exc)
            continue
        if isinstance(manifest, dict) and (manifest.get("metadata") or {}).get("name"):
            pods.append(static_pod(manifest, node, str(path), seen))
    return pods


def mirror_pod(pod: dict, node: str, node_uid: str) -> dict:
    """CreateMirrorPod (mirror_client.go:69-97)."""
    mirror = json.loads(json.dumps(pod))
    mirror["metadata"]["annotations"][MIRROR] = pod["metadata"]["annotations"][HASH]
    mirror["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "Node", "name": node, "uid": node_uid, "controller": True}
    ]
    return mirror


def is_mirror(pod: dict) -> bool:
    return MIRROR in ((pod.get("metadata") or {}).get("annotations") or {})


class MirrorPods:
    """One control-plane node's static pods, kept visible as mirror pods."""

    def __init__(self, client: AsyncClient, reader: AsyncClient, node: str, directory: Path):
        self.client = client  # the node's own credentials (NodeRestriction allows mirrors)
        # reads go through the simulator's own identity: the kubelet reads from its pod
        # informer, and the Node authorizer refuses a node a GET of a pod not yet its own
        self.reader = reader
        self.node = node
        self.pods = {p["metadata"]["name"]: p for p in load(directory, node, time.time())}

    def owns(self, pod: dict) -> bool:
        meta = pod.get("metadata") or {}
        want = self.pods.get(meta.get("name", ""))
        if want is None or meta.get("namespace") != want["metadata"]["namespace"]:
            return False
        return (meta.get("annotations") or {}).get(MIRROR) == want["metadata"]["annotations"][HASH]

    async def ensure(self) -> None:
        """Create every mirror pod that is missing; replace one being deleted."""
        node = await self.client.get(Node, self.node)
        uid = node.metadata.uid
        bound = {
            (p.metadata.namespace, p.metadata.name): p.to_dict()
            async for p in self.reader.list(
                Pod, namespace=ALL_NS, fields={"spec.nodeName": self.node}
            )
        }
        for name, pod in self.pods.items():
            namespace = pod["metadata"]["namespace"]
            current = bound.get((namespace, name))
            if current is not None and "deletionTimestamp" not in current["metadata"]:
                continue
            if current is not None:  # DeleteMirrorPod with a zero grace period
                try:
                    await self.client.delete(Pod, name, namespace=namespace, grace_period=0)
                except ApiError as exc:
                    if exc.status.code != 404:
                        raise
            try:
                await self.client.create(from_dict(mirror_pod(pod, self.node, uid)))
            except ApiError as exc:
                if exc.status.code != 409:
                    raise
