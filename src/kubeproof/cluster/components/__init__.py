"""One module per control-plane component, each building its own command line.

A component is started as its own OS process (never several in one process: they would
share global feature gates) and is healthy when its health URL answers `ok`.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from kubeproof.cluster.binaries import Binaries
from kubeproof.cluster.layout import Layout

PORTS = {
    "etcd": 2379,
    "etcd-peer": 2380,
    "kube-apiserver": 6443,
    "kube-controller-manager": 10257,
    "kube-scheduler": 10259,
    "kubelet": 10250,  # reserved for the node simulator's kubelet endpoint
}

# A trial cluster is mostly idle: a tight GC target keeps each Go process near its live heap
# (GOGC=25: -20% memory per cluster, same idle CPU; see benchmarks/cluster_start.py).
GO_RUNTIME_ENV = {"GOGC": os.environ.get("KUBEPROOF_GOGC", "25")}


def client_component_flags(ctx: "Context", name: str, identity: str) -> list[str]:
    """What the controller manager and the scheduler share: their kubeconfig for the API
    and for delegated authn/authz, their serving address, and open health endpoints. One
    instance runs per cluster, so no leader election (a warm start would otherwise wait
    out the snapshot's stale lease).

    Only the health endpoints skip authorization (probed anonymously, cluster/health.py);
    /metrics is authorized through the apiserver like any other path, so an anonymous
    request is refused (403). These are upstream's defaults, spelled out: k8s.io/apiserver
    v0.36.3 pkg/server/options/authorization.go NewDelegatingAuthorizationOptions
    (AlwaysAllowPaths /healthz, /readyz, /livez; exact paths, not /healthz/*)."""
    kubeconfig = ctx.layout.kubeconfig(identity)
    return [
        f"--kubeconfig={kubeconfig}",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        f"--bind-address={ctx.address}",
        f"--secure-port={PORTS[name]}",
        "--authorization-always-allow-paths=/healthz,/readyz,/livez",
        "--leader-elect=false",
        "--profiling=false",
    ]


@dataclass(frozen=True)
class Context:
    """What every component needs to build its flags."""

    layout: Layout
    address: str
    binaries: Binaries
    nodes: tuple[str, ...] = ()

    def url(self, component: str, scheme: str = "https") -> str:
        return f"{scheme}://{self.address}:{PORTS[component]}"


@dataclass(frozen=True)
class Component:
    name: str
    argv: list[str]
    health_url: str
    # client certificate for the health probe; None means the endpoint is always-allowed
    health_cert: tuple[Path, Path] | None = None
    # named checks that must be listed as passing in `<health_url>?verbose`
    required_checks: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=lambda: dict(GO_RUNTIME_ENV))


def all_components(ctx: Context) -> list[Component]:
    """In start order."""
    from kubeproof.cluster.components import (
        etcd,
        kube_apiserver,
        kube_controller_manager,
        kube_scheduler,
        nodesim,
    )

    components = [
        etcd.component(ctx),
        kube_apiserver.component(ctx),
        kube_controller_manager.component(ctx),
        kube_scheduler.component(ctx),
    ]
    if ctx.nodes:
        components.append(nodesim.component(ctx))
    return components


NAMES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "nodesim")
