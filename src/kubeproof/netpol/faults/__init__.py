"""Seeded faults: each kind offers the changes it can make to a topology's manifests (its
candidates), and each change records its root causes (object and field). The generator
(netpol/tasks.py) picks among them with the task's seed."""

from kubeproof.netpol.faults import incidents, netarena, rules
from kubeproof.netpol.faults.base import KINDS, Applied, Candidate, Context, RootCause

NETARENA = netarena.KINDS
INCIDENTS = incidents.KINDS + rules.KINDS

__all__ = ["INCIDENTS", "KINDS", "NETARENA", "Applied", "Candidate", "Context", "RootCause"]
