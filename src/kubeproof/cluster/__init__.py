"""How a Kubernetes API comes to exist: embedded (our processes) or external (a kubeconfig)."""

from kubeproof.cluster.base import Cluster
from kubeproof.cluster.embedded import EmbeddedCluster
from kubeproof.cluster.external import ExternalCluster

__all__ = ["Cluster", "EmbeddedCluster", "ExternalCluster"]
