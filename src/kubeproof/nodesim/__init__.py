"""The node simulator: simulated nodes whose pods behave as a v1.36 kubelet's would
(docs/behaviour-models.md); run as `python -m kubeproof.nodesim` by each embedded cluster."""
