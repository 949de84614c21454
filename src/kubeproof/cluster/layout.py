"""The files of one embedded cluster, all under its state directory."""

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Layout:
    root: Path

    @property
    def pki(self) -> Path:
        return self.root / "pki"

    @property
    def etcd_data(self) -> Path:
        return self.root / "etcd"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def record(self) -> Path:
        return self.root / "cluster.json"

    @property
    def audit_log(self) -> Path:
        return self.root / "audit" / "audit.log"

    @property
    def audit_policy(self) -> Path:
        return self.root / "audit" / "policy.yaml"

    @property
    def node_profile(self) -> Path:
        return self.root / "nodes.yaml"

    @property
    def static_pods(self) -> Path:
        """The control-plane node's staticPodPath (cluster/staticpods.py)."""
        return self.root / "manifests"

    @property
    def images(self) -> Path:
        """Behaviour models added to the shipped catalog for this cluster."""
        return self.root / "images.yaml"

    @property
    def admin_kubeconfig(self) -> Path:
        return self.root / "admin.kubeconfig"

    def kubeconfig(self, stem: str) -> Path:
        """Kubeconfig of a component identity (controller-manager, scheduler, admin)."""
        if stem == "admin":
            return self.admin_kubeconfig
        return self.root / "kubeconfigs" / f"{stem}.kubeconfig"

    def log(self, component: str) -> Path:
        return self.logs / f"{component}.log"

    def cert(self, stem: str) -> Path:
        return self.pki / f"{stem}.crt"

    def key(self, stem: str) -> Path:
        return self.pki / f"{stem}.key"
