"""The task format: `task.toml` in the Harbor layout, with a `[kubeproof]` section for what
a Kubernetes operations benchmark adds. See docs/tasks.md."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

Difficulty = Literal["easy", "medium", "hard"]
Track = Literal["repair", "generate", "netpol"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Harbor(BaseModel):
    """Harbor's own sections: the fields kubeproof reads are typed; the others Harbor
    documents (or adds later) load and are kept, so a Harbor task.toml never fails here."""

    model_config = ConfigDict(extra="allow")


class HarborTask(_Harbor):
    name: str
    description: str = ""
    category: str = ""
    keywords: list[str] = Field(default_factory=list)
    authors: list[dict] = Field(default_factory=list)


class Timeout(_Harbor):
    timeout_sec: float = Field(600, gt=0)
    env: dict[str, str] = Field(
        default_factory=dict, description="Harbor's environment for this phase (kept, unused)."
    )


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


# NAMESPACE/NAME of a ServiceAccount
ACCOUNT = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$"


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
    addons: list[Literal["ingress-nginx", "local-path", "traefik"]] = Field(
        default_factory=list,
        description="Optional addons installed before the setup manifests (`kubeproof "
        "cluster addons`): ingress-nginx's controller and IngressClass `nginx`, "
        "local-path-provisioner with the default StorageClass `local-path` (k3s's and kind's "
        "dynamic provisioner), or k3s's bundled Traefik in kube-system with the default "
        "IngressClass `traefik`. Part of the baseline.",
    )
    permissions: list[Permission] = Field(default_factory=list)
    root_causes: list[RootCause] = Field(default_factory=list)
    # Baseline objects the fix may delete without breaking safety ("Kind/namespace/name",
    # shell-style patterns): a stale Job, a stuck pod's PVC... Everything else is protected.
    allowed_deletions: list[str] = Field(default_factory=list)
    # How long an outage of something healthy at baseline may last before it fails safety,
    # the same for every agent (docs/verify.md). 0: every outage counts.
    outage_tolerance_sec: float = Field(0, ge=0, le=60)
    # issue 16: what Harbor-format tasks (and tasks like them) need
    command_timeout_sec: float = Field(
        60,
        gt=0,
        le=3600,
        description="Time limit of each agent, oracle, shortcut and alternative command.",
    )
    broken_by_setup: bool = Field(
        False,
        description="The setup itself leaves the system broken and checks that it is (a "
        "Harbor bootstrap script): no break step and no broken.py are needed.",
    )
    namespaces: list[str] = Field(
        default_factory=list,
        description="Namespaces the task uses beyond those its setup manifests name (made "
        "by a setup script): captured in the baseline and cleaned on external clusters.",
    )
    setup_mounts: dict[str, str] = Field(
        default_factory=dict,
        description="Folders environment/setup.sh sees besides /environment: sandbox path → "
        "a folder under environment/ (read-only) or `scratch` (empty, writable).",
    )
    agent_service_account: str | None = Field(
        None,
        pattern=ACCOUNT,
        description="NAMESPACE/NAME of a ServiceAccount the setup creates, with its own "
        "RBAC: the agent acts as it instead of kubeproof's own agent account, and "
        "`permissions` may be empty.",
    )
    controllers: list[Annotated[str, StringConstraints(pattern=ACCOUNT)]] = Field(
        default_factory=list,
        description="NAMESPACE/NAME of the ServiceAccounts the task's own controllers act as "
        "(an operator pod running a kubectl loop): their writes are the system's, not the "
        "agent's — left out of the history contracts judge, of the safety monitor and of "
        "the evidence chain. The controllers' workloads and RBAC stay protected.",
    )
    verifier_credentials: Literal["admin", "agent"] = Field(
        "admin",
        description="Whose kubeconfig a shell verifier (tests/test.sh) runs with: the "
        "cluster admin's, or the agent's own ServiceAccount's (a fresh copy), as Harbor "
        "tasks such as infra-bench's run their verifier in the agent's container. What a "
        "verifier does as the agent is never counted as the agent's: the audit log is read "
        "for the agent's requests up to the verifier's start.",
    )
    workdir: str | None = Field(
        None,
        pattern=r"^/[A-Za-z0-9._/-]*$",
        description="Where environment/workspace/ is given to the agent (its working "
        "directory, writable) and shown to the verifier afterwards; default: its home.",
    )

    @model_validator(mode="after")
    def _declined_tasks_have_no_root_cause(self):
        if self.expected == "declined" and self.root_causes:
            raise ValueError("a task that must be declined has no root cause to find")
        return self

    @model_validator(mode="after")
    def _mounts_are_absolute(self):
        for inside in self.setup_mounts:
            if not inside.startswith("/") or ".." in inside.split("/") or inside == "/":
                raise ValueError(f"setup_mounts: {inside!r} is not an absolute path")
        return self

    @model_validator(mode="after")
    def _agent_has_access(self):
        if not self.permissions and not self.agent_service_account:
            raise ValueError("permissions: the agent needs at least one rule")
        if self.workdir is not None and (
            ".." in self.workdir.split("/")
            or self.workdir
            in {"/", "/usr", "/etc", "/proc", "/dev", "/tmp", "/opt/kubeproof", "/tests", "/logs"}
        ):
            raise ValueError(f"workdir {self.workdir!r} is a path the sandbox keeps for itself")
        return self


class TaskFile(_Strict):
    """task.toml as a whole."""

    schema_version: str = "1.4"
    task: HarborTask
    metadata: dict = Field(default_factory=dict)
    agent: Timeout = Field(default_factory=Timeout)
    verifier: Timeout = Field(default_factory=lambda: Timeout(timeout_sec=60))
    environment: dict = Field(
        default_factory=dict, description="Harbor's container settings (kept, unused)."
    )
    solution: dict = Field(
        default_factory=dict, description="Harbor's oracle settings (kept, unused)."
    )
    kubeproof: Kubeproof
