"""The intended connectivity of a topology, as the probe matrix (which cells are probed and
which must connect) and as the text an agent is given. Both come from the topology's calls
and public ports only, so they cannot disagree."""

from dataclasses import dataclass
from typing import Literal

from kubeproof.netpol.topology import App, Port, Topology, Workload

Profile = Literal["full", "netarena"]


@dataclass(frozen=True, order=True)
class Probe:
    """One cell: a connection attempt from a workload's pod to a Service port by name."""

    source: str  # namespace/workload
    service: str
    namespace: str
    port: int
    protocol: str

    @property
    def target(self) -> str:
        """As netsim (and `nc`) dial it: through the cluster DNS."""
        return f"{self.service}.{self.namespace}:{self.port}/{self.protocol}"

    @property
    def key(self) -> str:
        return f"{self.source} -> {self.target}"


def probes(topology: Topology, profile: Profile = "full") -> list[Probe]:
    """Every workload against every port of every other app's Service; NetArena's profile
    leaves out the sources and targets NetArena does not probe."""
    skip_sources: set[str] = set()
    skip_targets: set[str] = set()
    if profile == "netarena":
        if topology.netarena is None:
            raise ValueError(f"{topology.name} has no NetArena probe set")
        skip_sources = set(topology.netarena.skip_sources)
        skip_targets = set(topology.netarena.skip_targets)
    out = []
    for w in topology.workloads():
        if w.app.name in skip_sources or w.name in skip_sources:
            continue
        for app in topology.apps:
            if app == w.app or app.name in skip_targets:
                continue
            for p in app.ports:
                out.append(Probe(w.key, app.name, app.namespace, p.port, p.protocol))
    return sorted(out)


def calls(topology: Topology, w: Workload) -> list[tuple[App, Port]]:
    return [
        (topology.callee(c, w.namespace), p)
        for c in w.calls
        for p in topology.called_ports(c, w.namespace)
    ]


def allowed(topology: Topology, probe: Probe) -> bool:
    w = next(w for w in topology.workloads() if w.key == probe.source)
    app = topology.app(f"{probe.namespace}/{probe.service}")
    port = next(p for p in app.ports if (p.port, p.protocol) == (probe.port, probe.protocol))
    return port.public or (app, port) in calls(topology, w)


def matrix(topology: Topology, profile: Profile = "full") -> dict[str, bool]:
    """The intended matrix: probe key -> whether it must connect."""
    return {p.key: allowed(topology, p) for p in probes(topology, profile)}


def _show(app: App, port: Port, here: str) -> str:
    name = app.name if app.namespace == here else f"{app.namespace}/{app.name}"
    return f"{name}:{port.port}/{port.protocol}"


def text(topology: Topology) -> str:
    """The intended communication pattern, as the agent reads it."""
    lines = [f"{topology.title}: the intended communication pattern.", "", "Services:"]
    for app in topology.apps:
        if not app.ports:
            continue
        ports = ", ".join(
            f"{p.port}/{p.protocol} ({p.name}"
            + (f", pod port {p.target_port}" if p.target_port else "")
            + (", public" if p.public else "")
            + ")"
            for p in app.ports
        )
        lines.append(f"- {app.namespace}/{app.name}: {ports}")
    lines += ["", "Allowed connections (every other connection between them must be denied):"]
    for app in topology.apps:
        for p in app.ports:
            if p.public:
                lines.append(f"- every pod, and clients outside the cluster -> {_show(app, p, '')}")
    for w in topology.workloads():
        targets = [_show(a, p, w.namespace) for a, p in calls(topology, w)]
        lines.append(f"- {w.namespace}/{w.name} -> {', '.join(targets) if targets else 'nothing'}")
    return "\n".join(lines) + "\n"
