"""kubeproof: benchmark AI agents on Kubernetes operations and prove what they did."""

__version__ = "0.1.0"
