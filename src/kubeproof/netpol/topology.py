"""Topologies as data: the application spec every other part of the netpol track derives
from (manifests, baseline policies, the intended matrix, the intent text), so they cannot
disagree. One YAML file per topology ships in `netpol/topologies/`."""

from functools import cache
from importlib import resources
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

Protocol = Literal["TCP", "UDP", "SCTP"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Port(Strict):
    name: str = Field(
        description="The Service port's name (and the container port's, when the "
        "topology has named_ports)."
    )
    port: int = Field(ge=1, le=65535, description="The Service port clients dial.")
    target_port: int | None = Field(
        None, ge=1, le=65535, description="The container port behind it (default: `port`)."
    )
    protocol: Protocol = "TCP"
    public: bool = Field(
        False,
        description="Reachable from every pod and from outside the cluster (the entry point "
        "users reach), not only from the declared callers.",
    )

    @property
    def pod_port(self) -> int:
        return self.target_port or self.port


class Call(Strict):
    service: str = Field(
        description="The callee app: `name`, or `namespace/name` in another namespace."
    )
    port: int | None = Field(None, description="The Service port it dials; none: every port.")


class Version(Strict):
    name: str = Field(description="The `version` label, e.g. v1; the Deployment is app-vN.")
    calls: list[Call] | None = Field(None, description="This version's calls (default: the app's).")


class App(Strict):
    name: str = Field(description="The app: its `app` label, its Service's and policy's name.")
    namespace: str = "default"
    image: str = Field(description="The container image of its Deployment(s).")
    container: str = Field("server", description="The container's name.")
    ports: list[Port] = Field(default_factory=list, description="No ports: no Service (a client).")
    calls: list[Call] = Field(default_factory=list, description="Which apps it calls, on what.")
    versions: list[Version] = Field(
        default_factory=list,
        description="One Deployment per version (labels app and version) behind one Service.",
    )

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


class Namespace(Strict):
    name: str
    labels: dict[str, str] = Field(
        default_factory=dict,
        description="Its labels; cross-namespace peers select it by them "
        "(by kubernetes.io/metadata.name when it has none).",
    )


class NetarenaProbes(Strict):
    """NetArena's probe set is not every pair: it leaves some sources and targets out."""

    skip_sources: list[str] = Field(default_factory=list, description="Workloads not probed from.")
    skip_targets: list[str] = Field(default_factory=list, description="Apps not probed.")


class Workload(Strict):
    """One Deployment: an app, or one version of it."""

    app: App
    version: str | None
    calls: tuple[Call, ...]

    @property
    def name(self) -> str:
        return f"{self.app.name}-{self.version}" if self.version else self.app.name

    @property
    def namespace(self) -> str:
        return self.app.namespace

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def labels(self) -> dict[str, str]:
        labels = {"app": self.app.name}
        if self.version:
            labels["version"] = self.version
        return labels


class Topology(Strict):
    name: str = Field(description="Its id in task ids, e.g. online-boutique.")
    title: str
    source: str = Field(description="Where the shape comes from (upstream project and version).")
    namespaces: list[Namespace]
    apps: list[App]
    named_ports: bool = Field(
        False,
        description="Container ports carry the Service port names and the baseline policies "
        "refer to them by name.",
    )
    open_egress: bool = Field(
        False,
        description="The per-service ingress policies also list Egress with one empty rule "
        "(egress open), as Online Boutique's upstream policies do.",
    )
    netarena: NetarenaProbes | None = Field(
        None, description="NetArena's probe set, for topologies it benchmarks."
    )

    @model_validator(mode="after")
    def _consistent(self) -> "Topology":
        names = {ns.name for ns in self.namespaces}
        apps = {a.key: a for a in self.apps}
        for app in self.apps:
            if app.namespace not in names:
                raise ValueError(f"{app.key}: namespace {app.namespace} is not declared")
            for call in [*app.calls, *(c for v in app.versions for c in v.calls or [])]:
                callee = apps.get(self._qualify(call.service, app.namespace))
                if callee is None or not callee.ports:
                    raise ValueError(f"{app.key} calls {call.service}, which serves nothing")
                if call.port is not None and call.port not in {p.port for p in callee.ports}:
                    raise ValueError(f"{app.key} calls {call.service}:{call.port}: no such port")
        return self

    @staticmethod
    def _qualify(service: str, namespace: str) -> str:
        return service if "/" in service else f"{namespace}/{service}"

    def app(self, key: str) -> App:
        return next(a for a in self.apps if a.key == key)

    def callee(self, call: Call, caller_namespace: str) -> App:
        return self.app(self._qualify(call.service, caller_namespace))

    def called_ports(self, call: Call, caller_namespace: str) -> list[Port]:
        ports = self.callee(call, caller_namespace).ports
        return [p for p in ports if call.port is None or p.port == call.port]

    def workloads(self) -> list[Workload]:
        out = []
        for app in self.apps:
            if not app.versions:
                out.append(Workload(app=app, version=None, calls=tuple(app.calls)))
            for v in app.versions:
                calls = app.calls if v.calls is None else v.calls
                out.append(Workload(app=app, version=v.name, calls=tuple(calls)))
        return out

    def namespace_labels(self, name: str) -> dict[str, str]:
        ns = next(n for n in self.namespaces if n.name == name)
        return dict(ns.labels) or {"kubernetes.io/metadata.name": name}


def names() -> list[str]:
    folder = resources.files("kubeproof.netpol") / "topologies"
    return sorted(
        p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
    )


@cache
def load(name: str) -> Topology:
    if name not in names():
        raise KeyError(f"no topology {name!r} (known: {', '.join(names())})")
    text = (resources.files("kubeproof.netpol") / "topologies" / f"{name}.yaml").read_text()
    return Topology.model_validate(yaml.safe_load(text))
