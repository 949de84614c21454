"""Node profiles: which simulated nodes a cluster has.

nodes:
  - name: worker          # with count > 1: worker-1, worker-2, ...
    count: 2
    zone: zone-a
    labels: {disktype: ssd}
    taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
    capacity: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "2"}
"""

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kubeproof.errors import KubeproofError

DEFAULT_CAPACITY = {"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"}


class Taint(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str
    value: str | None = None
    effect: str = "NoSchedule"


class NodeGroup(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    count: int = Field(1, ge=1, le=500)
    zone: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[Taint] = Field(default_factory=list)
    capacity: dict[str, str] = Field(default_factory=dict)
    unschedulable: bool = False

    def names(self) -> list[str]:
        if self.count == 1:
            return [self.name]
        return [f"{self.name}-{i}" for i in range(1, self.count + 1)]


class NodeSpec(BaseModel):
    """One simulated node, expanded from a group."""

    name: str
    index: int  # its pod CIDR is 10.244.<index>.0/24
    labels: dict[str, str]
    taints: list[Taint]
    capacity: dict[str, str]
    unschedulable: bool = False

    @property
    def pod_cidr(self) -> str:
        return f"10.244.{self.index}.0/24"


class NodeProfile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    nodes: list[NodeGroup] = Field(default_factory=list)

    @classmethod
    def workers(cls, count: int) -> "NodeProfile":
        if count <= 0:
            return cls(nodes=[])
        return cls(nodes=[NodeGroup(name="node" if count > 1 else "node-1", count=count)])

    def expand(self) -> list[NodeSpec]:
        specs: list[NodeSpec] = []
        for group in self.nodes:
            for name in group.names():
                labels = {
                    "kubernetes.io/hostname": name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                    "beta.kubernetes.io/os": "linux",
                    "beta.kubernetes.io/arch": "amd64",
                }
                if group.zone:
                    labels["topology.kubernetes.io/zone"] = group.zone
                specs.append(
                    NodeSpec(
                        name=name,
                        index=len(specs) + 1,
                        labels=labels | group.labels,
                        taints=group.taints,
                        capacity=DEFAULT_CAPACITY | group.capacity,
                        unschedulable=group.unschedulable,
                    )
                )
        names = [s.name for s in specs]
        if len(set(names)) != len(names):
            raise KubeproofError(f"node profile names a node twice: {sorted(names)}")
        return specs


def load(path: Path) -> NodeProfile:
    try:
        data = yaml.safe_load(path.read_text()) or {}
        return NodeProfile.model_validate(data)
    except (OSError, yaml.YAMLError) as exc:
        raise KubeproofError(f"{path}: cannot read node profile: {exc}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise KubeproofError(f"{path}: {where}: {first['msg']}") from exc
