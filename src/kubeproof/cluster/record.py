"""The on-disk record of an embedded cluster (`cluster.json`), and the registry of all of
them: what `list`, `status` and `down` read, so they work from any process."""

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from kubeproof.cluster.layout import Layout
from kubeproof.cluster.process import ProcessRef
from kubeproof.errors import NotFoundError
from kubeproof.paths import clusters_root


class ComponentRecord(BaseModel):
    pid: int
    started: float

    def ref(self) -> ProcessRef:
        return ProcessRef(self.pid, self.started)


class ClusterRecord(BaseModel):
    name: str
    address: str
    server: str
    kubernetes_version: str
    etcd_version: str
    state_dir: Path
    start_mode: str  # "warm" or "cold"
    attached: bool
    owner_pid: int
    pgid: int = 0
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    startup_seconds: float | None = None
    # seconds spent in each start phase (files, etcd, kube-apiserver, controllers, bootstrap)
    phases: dict[str, float] = Field(default_factory=dict)
    components: dict[str, ComponentRecord] = Field(default_factory=dict)
    nodes: list[str] = Field(default_factory=list)  # simulated node names
    # the simulated kubelet's timing profile: real (the kubelet's own back-offs and grace
    # periods) or fast (every duration / 10, for the library's validation sweeps)
    timing: str = "real"

    @property
    def layout(self) -> Layout:
        return Layout(self.state_dir)

    def save(self) -> None:
        path = self.layout.record
        tmp = path.with_suffix(".tmp")
        tmp.write_text(self.model_dump_json(indent=2))
        tmp.replace(path)


def cluster_dir(name: str) -> Path:
    return clusters_root() / name


def load(name: str) -> ClusterRecord:
    path = Layout(cluster_dir(name)).record
    try:
        return ClusterRecord.model_validate_json(path.read_text())
    except FileNotFoundError:
        raise NotFoundError(
            f'cluster "{name}" not found', hint="`kubeproof cluster list` shows the clusters"
        ) from None


def all_records() -> list[ClusterRecord]:
    root = clusters_root()
    records = []
    if root.is_dir():
        for path in sorted(root.glob("*/cluster.json")):
            try:
                records.append(ClusterRecord.model_validate_json(path.read_text()))
            except (OSError, ValueError):
                continue
    return records


def leftover_dirs() -> list[Path]:
    """Cluster directories without a readable record: what a killed `up` leaves behind."""
    root = clusters_root()
    if not root.is_dir():
        return []
    known = {r.state_dir.resolve() for r in all_records()}
    return [p for p in sorted(root.iterdir()) if p.is_dir() and p.resolve() not in known]


def owner_gone(record: ClusterRecord) -> bool:
    """An attached cluster whose harness has exited: its processes died with it."""
    if not record.attached:
        return False
    try:
        os.kill(record.owner_pid, 0)
        return False
    except ProcessLookupError:
        return True
    except PermissionError:
        return False


def remove(record: ClusterRecord) -> None:
    shutil.rmtree(record.state_dir, ignore_errors=True)


def dump(records: list[ClusterRecord]) -> str:
    return json.dumps([r.model_dump(mode="json") for r in records], indent=2)
