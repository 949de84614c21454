"""The writable volumes of a container whose script runs for real (realshell.py): host
directories under the node simulator's `containers/` directory, bound into its sandbox.

- emptyDir: one directory per pod and volume (`POD-UID/volumes/NAME`), shared by the pod's
  containers and kept across their restarts, gone with the pod (the kubelet's
  pods/UID/volumes/kubernetes.io~empty-dir/NAME).
- hostPath, and a claim whose PersistentVolume is a `hostPath` or `local` volume (static,
  or made by the local-path provisioner): one directory per node and path
  (`hostpath/NODE/HASH`), shared by every pod on that node that mounts the path and kept
  for the cluster's life, as the node's own directory is — so a Job that writes a file into
  its claim leaves it for the Deployment that mounts the same claim next.
- any other bound claim: one directory per PersistentVolume (`pv/NAME`), shared by the
  pods that mount it, as the volume's storage is.

A claim not bound to a volume the simulator has seen is left out (the path is then the
writable layer's, as before claims were mounted). A `subPath` into any of these is refused
(ValueError: the script is then read from its text): the directories under a volume are the
containers' to make, symlinks included, and the node simulator runs as root — the kubelet
opens each component without following links (pkg/volume/util/subpath/subpath_linux.go),
which a bind by path cannot. A shared directory is made world-writable (each pod runs as a
host uid of its own); a file one pod writes is another's to read, not to overwrite. Nested
hostPaths (one pod mounting /data, another /data/x) do not share files here."""

import hashlib
import os
from pathlib import Path

from kubeproof.nodesim.runbox import Mount


def mounts(base: Path, pod, spec: dict, world, uid: int | None) -> list[Mount]:
    """The host directories of the volumes `spec` (a container) mounts that a sandbox
    binds: emptyDir, hostPath and claims. `base`: the Runner's directory; `pod`: the pod's
    runtime; `world`: the simulator's WorldCache (claims and volumes), or None."""
    volumes = {v.get("name"): v for v in pod.obj["spec"].get("volumes") or []}
    found = []
    for m in spec.get("volumeMounts") or []:
        volume = volumes.get(m.get("name"))
        if volume is None:
            continue
        host = _directory(base, pod, volume, world, uid)
        if host is None:
            continue  # a ConfigMap, Secret, projected … volume: files of volumefiles.py
        if m.get("subPath") or m.get("subPathExpr"):
            raise ValueError(f"subPath of volume {m['name']!r} is not run for real")
        found.append(Mount(host, m["mountPath"], not m.get("readOnly", False)))
    return found


def _directory(base: Path, pod, volume: dict, world, uid: int | None) -> Path | None:
    name = volume["name"]
    if "emptyDir" in volume:
        if "/" in name or name.startswith("."):
            raise ValueError(f"bad volume name {name!r}")
        return _made(base / pod.uid / "volumes" / name, uid, 0o755)
    if "hostPath" in volume:
        return _node_path(base, pod, (volume["hostPath"] or {}).get("path", ""))
    if "persistentVolumeClaim" in volume:
        return _claimed(base, pod, (volume["persistentVolumeClaim"] or {}), world)
    return None


def _claimed(base: Path, pod, source: dict, world) -> Path | None:
    claim_name = source.get("claimName", "")
    claim = world.claim(pod.namespace, claim_name) if world is not None else None
    pv_name = ((claim or {}).get("spec") or {}).get("volumeName") or ""
    pv = world.volume(pv_name) if pv_name and world is not None else None
    if pv is None:  # not bound (or not seen yet): the path stays the writable layer's
        return None
    spec = pv.get("spec") or {}
    path = (spec.get("hostPath") or spec.get("local") or {}).get("path")
    if path:
        return _node_path(base, pod, path)
    if "/" in pv_name or pv_name.startswith("."):
        raise ValueError(f"bad volume name {pv_name!r}")
    return _made(base / "pv" / pv_name, None, SHARED_MODE)


def _node_path(base: Path, pod, path: str) -> Path:
    """The node's directory at `path`: one per node and normalised path (hashed: the name
    never walks out of the node's directory)."""
    node = pod.obj["spec"].get("nodeName") or ""
    if not path.startswith("/") or not node or "/" in node or node.startswith("."):
        raise ValueError(f"bad hostPath {path!r} on node {node!r}")
    key = hashlib.sha256(os.path.normpath(path).encode()).hexdigest()[:24]
    return _made(base / "hostpath" / node / key, None, SHARED_MODE)


# Every pod's containers run as root on a node, so one pod may remove what another made
# there (the local-path provisioner's teardown helper removes the directory its setup helper
# made). Pods run as uids of their own here: a sticky directory (1777, as /tmp) kept the
# teardown from removing the volume, and the claim's PersistentVolume was never deleted.
SHARED_MODE = 0o777


def _made(where: Path, uid: int | None, mode: int) -> Path:
    """The directory, made by us if it is not there (never through a link), handed to the
    pod's uid (`uid`) or open to every pod (`mode` SHARED_MODE)."""
    where.parent.mkdir(parents=True, exist_ok=True)
    if not where.is_symlink() and not where.exists():
        where.mkdir()
        os.chmod(where, mode)
        if uid is not None and os.geteuid() == 0:
            os.lchown(where, uid, uid)
    if where.is_symlink() or not where.is_dir():
        raise ValueError(f"{where} is not a directory")
    return where
