"""The mismatch report: the probe matrix as netsim computes it from a set of objects (read
from a live cluster, or manifests materialized), the cells that differ from the intended
matrix, and why each one connects or not."""

from pydantic import BaseModel, Field

from kubeproof.netpol import intent
from kubeproof.netpol.topology import Topology
from kubeproof.netsim import Network, Verdict
from kubeproof.netsim.objects import Pod


class Cell(BaseModel):
    probe: str = Field(description="`ns/workload -> service.ns:port/PROTO`.")
    intended: bool
    actual: bool
    code: str = Field(description="netsim's verdict code: ok, ingress-denied, dns-blocked, ...")
    explanation: str = Field(description="Why it connects or not, naming the policy or object.")

    @property
    def mismatch(self) -> bool:
        return self.intended != self.actual


class Report(BaseModel):
    topology: str
    profile: str
    cells: list[Cell] = Field(description="Every probe, in probe order.")

    @property
    def mismatches(self) -> list[Cell]:
        return [c for c in self.cells if c.mismatch]

    def matrix(self) -> dict[str, bool]:
        return {c.probe: c.actual for c in self.cells}

    def text(self, explain: bool = True) -> str:
        """One line per mismatch, as NetArena words them, each with its explanation."""
        if not self.mismatches:
            return "No mismatches found.\n"
        lines = []
        for c in self.mismatches:
            lines.append(f"Mismatch: {c.probe} (Expected: {c.intended}, Actual: {c.actual})")
            if explain:
                lines.append(f"  {c.explanation}")
        return "\n".join(lines) + "\n"


def source_pod(net: Network, topology: Topology, workload: str) -> Pod | None:
    """The pod a probe runs from: the workload's first ready pod by name."""
    w = next(w for w in topology.workloads() if w.key == workload)
    candidates = [
        p
        for p in net.objects.pods.values()
        if p.namespace == w.namespace
        and p.ip
        and not p.terminating
        and all(p.labels.get(k) == v for k, v in w.labels.items())
    ]
    candidates.sort(key=lambda p: (not p.ready, p.name))
    return candidates[0] if candidates else None


def explain(verdict: Verdict) -> str:
    """The decisive step: the last one netsim took (the policy that denied or admitted, the
    Service without endpoints, the DNS that could not be reached)."""
    detail = verdict.steps[-1] if verdict.steps else verdict.reason
    return f"{verdict.code}: {detail}"


def compute(topology: Topology, objects: list[dict], profile: intent.Profile = "full") -> Report:
    net = Network.from_objects(objects)
    wanted = intent.matrix(topology, profile)
    cells = []
    pods: dict[str, Pod | None] = {}
    for probe in intent.probes(topology, profile):
        if probe.source not in pods:
            pods[probe.source] = source_pod(net, topology, probe.source)
        pod = pods[probe.source]
        if pod is None:
            verdict = Verdict(False, "no-source", f"no running pod of {probe.source}")
        else:
            verdict = net.connect(pod, probe.target)
        cells.append(
            Cell(
                probe=probe.key,
                intended=wanted[probe.key],
                actual=verdict.allowed,
                code=verdict.code,
                explanation=explain(verdict),
            )
        )
    return Report(topology=topology.name, profile=profile, cells=cells)
