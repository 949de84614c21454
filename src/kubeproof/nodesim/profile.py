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

# A kubeadm cluster's first node runs the control plane: `kubeadm init`'s mark-control-plane
# phase labels it and taints it NoSchedule (cmd/kubeadm/app/phases/markcontrolplane/
# markcontrolplane.go; constants.go LabelNodeRoleControlPlane, LabelExcludeFromExternalLB,
# ControlPlaneTaint), and its kubelet runs the static pods (cluster/staticpods.py). The
# node gets the first pod CIDR, 10.244.0.0/24, as the first node to register does.
CONTROL_PLANE_NODE = "control-plane"
CONTROL_PLANE_ROLE = "node-role.kubernetes.io/control-plane"
CONTROL_PLANE_LABELS = {
    CONTROL_PLANE_ROLE: "",
    "node.kubernetes.io/exclude-from-external-load-balancers": "",
}


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
    control_plane: bool = False  # runs the static pods of the cluster's staticPodPath

    @property
    def pod_cidr(self) -> str:
        return f"10.244.{self.index}.0/24"


class NodeProfile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    nodes: list[NodeGroup] = Field(default_factory=list)
    # the control-plane node beside the groups' nodes; embedded clusters turn it on when
    # the profile has any node (a profile may say false to leave it out)
    control_plane: bool | None = None

    @classmethod
    def workers(cls, count: int) -> "NodeProfile":
        if count <= 0:
            return cls(nodes=[])
        return cls(nodes=[NodeGroup(name="node" if count > 1 else "node-1", count=count)])

    def expand(self) -> list[NodeSpec]:
        specs: list[NodeSpec] = []
        if self.control_plane:
            specs.append(_control_plane())
        for group in self.nodes:
            for name in group.names():
                labels = _base_labels(name)
                if group.zone:
                    labels["topology.kubernetes.io/zone"] = group.zone
                specs.append(
                    NodeSpec(
                        name=name,
                        index=len(specs) + (0 if self.control_plane else 1),
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


def _base_labels(name: str) -> dict[str, str]:
    return {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "beta.kubernetes.io/arch": "amd64",
    }


def _control_plane() -> NodeSpec:
    return NodeSpec(
        name=CONTROL_PLANE_NODE,
        index=0,
        labels=_base_labels(CONTROL_PLANE_NODE) | CONTROL_PLANE_LABELS,
        taints=[Taint(key=CONTROL_PLANE_ROLE, effect="NoSchedule")],
        capacity=dict(DEFAULT_CAPACITY),
        control_plane=True,
    )


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
