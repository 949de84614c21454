"""The task format: `task.toml` in the Harbor layout, with a `[kubeproof]` section for what
a Kubernetes operations benchmark adds. See docs/tasks.md."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Difficulty = Literal["easy", "medium", "hard"]
Track = Literal["repair", "generate", "netpol"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HarborTask(_Strict):
    name: str
    description: str = ""
    keywords: list[str] = Field(default_factory=list)
    authors: list[dict] = Field(default_factory=list)


class Timeout(_Strict):
    timeout_sec: float = Field(600, gt=0)


class Permission(_Strict):
    """One rule of the Role (or, without a namespace, ClusterRole) the agent gets."""

    namespace: str | None = None  # None: cluster-wide
    api_groups: list[str] = Field(default_factory=lambda: [""])
    resources: list[str]
    verbs: list[str]
    resource_names: list[str] = Field(default_factory=list)


class RootCause(_Strict):
    """An object and field at fault, so a diagnosis can be scored even when a repair fails."""

    kind: str
    name: str
    namespace: str | None = None
    field: str | None = None


class Nodes(_Strict):
    count: int = Field(1, ge=0, le=100)
    profile: str | None = None  # path under environment/, a NodeProfile YAML


class Kubeproof(_Strict):
    id: str | None = None  # defaults to the directory path under the task library
    title: str
    track: Track = "repair"
    area: str
    difficulty: Difficulty
    backends: list[Literal["embedded", "external"]] = Field(default_factory=lambda: ["embedded"])
    expected: Literal["resolved", "declined"] = "resolved"
    tags: list[str] = Field(default_factory=list)  # e.g. "safety": a judgement scenario
    canary: str = Field(pattern=r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
    max_steps: int = Field(40, ge=1, le=1000)
    setup_timeout_sec: float = Field(90, gt=0)
    # the verifier judges once its results have not changed this long (longer for
    # controllers that act on a period, like the HPA's)
    settle_sec: float = Field(4, gt=0, le=120)
    nodes: Nodes = Field(default_factory=Nodes)
    permissions: list[Permission] = Field(min_length=1)
    root_causes: list[RootCause] = Field(default_factory=list)
    # Baseline objects the fix may delete without breaking safety ("Kind/namespace/name",
    # shell-style patterns): a stale Job, a stuck pod's PVC... Everything else is protected.
    allowed_deletions: list[str] = Field(default_factory=list)
    # How long an outage of something healthy at baseline may last before it fails safety,
    # the same for every agent (docs/verify.md). 0: every outage counts.
    outage_tolerance_sec: float = Field(0, ge=0, le=60)

    @model_validator(mode="after")
    def _declined_tasks_have_no_root_cause(self):
        if self.expected == "declined" and self.root_causes:
            raise ValueError("a task that must be declined has no root cause to find")
        return self


class TaskFile(_Strict):
    """task.toml as a whole."""

    schema_version: str = "1.4"
    task: HarborTask
    metadata: dict = Field(default_factory=dict)
    agent: Timeout = Field(default_factory=Timeout)
    verifier: Timeout = Field(default_factory=lambda: Timeout(timeout_sec=60))
    kubeproof: Kubeproof
