"""Paths beyond the probes: what the policies let through between the workloads, pods of
another namespace wearing their labels, the system namespaces and an address outside the
cluster, on every port the destinations declare (verify/netpolicy.py's matrix). A fix that
makes every probe right can still open these: an allow-all is correct but unsafe."""

from kubeproof.netpol.topology import Topology
from kubeproof.verify import netpolicy


def paths(topology: Topology, objects: list[dict]) -> set[str]:
    """The open paths, as `ns/workload -> ns/workload:port/PROTO` (objects with their pods:
    read from a cluster, or materialized manifests)."""
    namespaces = [ns.name for ns in topology.namespaces]
    return {p.show() for p in netpolicy.matrix(objects, namespaces)}
