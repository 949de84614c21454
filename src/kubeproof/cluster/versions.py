"""Which Kubernetes and etcd releases kubeproof builds, read from the Go wrapper modules.

The `go.mod` files in `controlplane/` are the single source of truth: changing the
`require` line there changes what `kubeproof setup` builds and where it caches it.
"""

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kubeproof.errors import KubeproofError

KUBERNETES_MODULE = "k8s.io/kubernetes"
ETCD_MODULE = "go.etcd.io/etcd/server/v3"


def controlplane_dir() -> Path:
    """The Go wrapper modules: shipped inside the wheel, or at the repository root."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "controlplane", package.parent.parent / "controlplane"):
        if (candidate / "kubernetes" / "go.mod").is_file():
            return candidate
    raise KubeproofError(
        "cannot find the controlplane/ Go modules next to the kubeproof package",
        hint="reinstall kubeproof from its repository (pip install -e .)",
    )


def _required_version(go_mod: Path, module: str) -> str:
    match = re.search(rf"^\s*(?:require\s+)?{re.escape(module)}\s+(v\S+)", go_mod.read_text(), re.M)
    if not match:
        raise KubeproofError(f"{go_mod}: no `require {module} vX.Y.Z` line")
    return match.group(1)


@dataclass(frozen=True)
class Versions:
    kubernetes: str  # e.g. v1.36.3
    etcd: str  # e.g. v3.6.16

    @property
    def kubernetes_minor(self) -> str:
        return self.kubernetes.lstrip("v").split(".")[1]


@cache
def versions() -> Versions:
    root = controlplane_dir()
    return Versions(
        kubernetes=_required_version(root / "kubernetes" / "go.mod", KUBERNETES_MODULE),
        etcd=_required_version(root / "etcd" / "go.mod", ETCD_MODULE),
    )
