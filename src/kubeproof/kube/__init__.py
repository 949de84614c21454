"""Small single-job helpers about Kubernetes objects, shared by the simulator, netsim and the
verifiers. This package imports nothing else of kubeproof's."""
