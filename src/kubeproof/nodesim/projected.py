"""The configMap, secret, downwardAPI and projected volumes of a container whose script runs
for real (realshell.py), as host directories the kubelet's atomic writer lays out and
updates, bound read-only into its sandbox: so a running script that re-reads a mounted
file sees a ConfigMap's new data after the pod's next sync, as on a node.

The layout is AtomicWriter's (pkg/volume/util/atomic_writer.go Write): the files in a
timestamped directory `..YYYY_MM_DD_HH_MM_SS.NNNNNNNNN`, a `..data` symlink to it, and a
symlink `KEY -> ..data/KEY` per top-level entry; an update writes a new timestamped
directory, swaps `..data` by renaming a new link over it, fixes the top-level links and
removes the old directory, so a reader sees the old set or the new one, never a mix. When
the pod syncs is volumefiles.py's to say (ContainerFiles.projected). subPath mounts are
not here: they are bound once at start and never change (kubelet semantics).

The content is the cluster's (keys the apiserver validated), written by the node simulator
as root beneath its own directory; paths are still checked: no absolute path, no `..`, no
empty or dot-dot-prefixed component (AtomicWriter's validatePath)."""

import datetime
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from kubeproof.nodesim.runbox import Mount

KINDS = ("configMap", "secret", "downwardAPI", "projected")


def mount_paths(pod: dict, spec: dict) -> list[str]:
    """The mountPaths of the container's projected-kind volumes (subPath mounts left out)."""
    kinds = {
        v.get("name"): v for v in pod["spec"].get("volumes") or [] if any(k in v for k in KINDS)
    }
    return [
        m["mountPath"].rstrip("/") or "/"
        for m in spec.get("volumeMounts") or []
        if m.get("name") in kinds and not m.get("subPath") and not m.get("subPathExpr")
    ]


def _valid(relative: str) -> bool:
    parts = relative.split("/")
    return (
        bool(relative)
        and not relative.startswith("/")
        and all(p and p != ".." and not p.startswith("..") for p in parts)
    )


class Volumes:
    """One container run's projected volumes under `root`, one directory per mount path."""

    def __init__(self, root: Path, paths: list[str]) -> None:
        self.root = root
        self.paths = list(dict.fromkeys(paths))
        self._written: list[dict[str, str] | None] = [None] * len(self.paths)
        for n in range(len(self.paths)):
            (root / str(n)).mkdir(parents=True, exist_ok=True)

    def covers(self, path: str) -> bool:
        """Whether `path` lies in one of the volumes (it is then theirs, not a bound file)."""
        return any(path.startswith(p.rstrip("/") + "/") for p in self.paths)

    def mounts(self) -> list[Mount]:
        return [Mount(self.root / str(n), p, writable=False) for n, p in enumerate(self.paths)]

    def write(self, files: Mapping[str, str]) -> None:
        """Bring each volume to `files` (absolute path -> content), those that changed only."""
        for n, base in enumerate(self.paths):
            prefix = base.rstrip("/") + "/"
            mine = {p[len(prefix) :]: t for p, t in files.items() if p.startswith(prefix)}
            mine = {p: t for p, t in mine.items() if _valid(p)}
            # a file of a nested volume (mounted inside this one) is that volume's
            nested = [q.rstrip("/") + "/" for q in self.paths if q.startswith(prefix)]
            mine = {
                p: t for p, t in mine.items() if not any((prefix + p).startswith(q) for q in nested)
            }
            if mine != self._written[n]:
                _atomic_write(self.root / str(n), mine)
                self._written[n] = mine

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _atomic_write(directory: Path, files: dict[str, str]) -> None:
    stamp = datetime.datetime.now(datetime.UTC).strftime("..%Y_%m_%d_%H_%M_%S.%f")
    fresh = directory / stamp
    while fresh.exists():
        fresh = directory / (fresh.name + "0")
    fresh.mkdir(mode=0o755)
    for relative, text in files.items():
        target = fresh / relative
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "w") as out:
            out.write(text)
    data = directory / "..data"
    old = os.readlink(data) if data.is_symlink() else None
    link = directory / "..data_tmp"
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink(fresh.name, link)
    os.rename(link, data)  # the swap: readers see the old set or the new one
    tops = {relative.split("/", 1)[0] for relative in files}
    for top in tops:
        entry = directory / top
        if not entry.is_symlink():
            os.symlink(f"..data/{top}", entry)
    for entry in directory.iterdir():  # top-level links of keys that are gone
        if entry.is_symlink() and not entry.name.startswith("..") and entry.name not in tops:
            entry.unlink()
    if old and old != fresh.name and not old.startswith("/") and "/" not in old:
        shutil.rmtree(directory / old, ignore_errors=True)
