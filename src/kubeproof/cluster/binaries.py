"""Locating the built control-plane binaries in the cache."""

import json
from dataclasses import dataclass
from pathlib import Path

from kubeproof.cluster.versions import Versions, versions
from kubeproof.errors import BinariesMissingError
from kubeproof.paths import cache_root

KUBERNETES_BINARIES = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl")
ETCD_BINARIES = ("etcd", "etcdutl")
STAMP = "versions.json"


def version_dir(v: Versions | None = None) -> Path:
    return cache_root() / (v or versions()).kubernetes


def bin_dir(v: Versions | None = None) -> Path:
    return version_dir(v) / "bin"


@dataclass(frozen=True)
class Binaries:
    dir: Path

    def __getitem__(self, name: str) -> str:
        return str(self.dir / name)

    @property
    def kubectl(self) -> str:
        return self["kubectl"]


def built_versions(directory: Path) -> dict[str, str]:
    """What the last successful build wrote into its stamp: binary name -> version."""
    try:
        return json.loads((directory / STAMP).read_text())
    except (OSError, ValueError):
        return {}


def missing_binaries(v: Versions | None = None) -> list[str]:
    v = v or versions()
    directory = bin_dir(v)
    stamp = built_versions(directory)
    wanted = {name: v.kubernetes for name in KUBERNETES_BINARIES}
    wanted |= {name: v.etcd for name in ETCD_BINARIES}
    return [
        name
        for name, version in wanted.items()
        if stamp.get(name) != version or not (directory / name).is_file()
    ]


def require_binaries() -> Binaries:
    missing = missing_binaries()
    if missing:
        raise BinariesMissingError(
            f"control-plane binaries for Kubernetes {versions().kubernetes} are not built"
            f" (missing: {', '.join(missing)})",
            hint="run `kubeproof setup` once (needs Go >= 1.26; the first build takes 15-30 min)",
        )
    return Binaries(bin_dir())
