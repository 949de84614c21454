"""Behaviour models: what an image does, declared in YAML so task authors describe apps and
the simulator derives what a kubelet would show.

    images:
      nginx:
        tags: ["1.25", "1.27", latest]
        ports: [{containerPort: 80, name: http}]
        health: ["/", "/healthz"]
        startupSeconds: 1
        memory: 24Mi
        logs: {start: ["start worker processes"]}

See docs/behaviour-models.md for every field.
"""

from functools import cache
from importlib import resources
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from kubeproof.errors import KubeproofError

DEFAULT_REGISTRY = "docker.io"


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class Port(_Model):
    container_port: int
    name: str | None = None
    protocol: str = "TCP"


class Logs(_Model):
    start: list[str] = Field(default_factory=list)  # printed when the process starts
    ready: list[str] = Field(default_factory=list)  # printed once it serves
    failure: list[str] = Field(default_factory=list)  # printed before it exits with an error
    success: list[str] = Field(default_factory=list)  # printed before a batch run exits 0


class Requirement(_Model):
    """An env var or config file the process needs; unmet, it logs `message` and exits."""

    env: str | None = None  # variable name
    file: str | None = None  # absolute path inside the container (a mounted key)
    values: list[str] | None = None  # accepted values; None accepts any non-empty value
    message: str = "missing required configuration"
    exit_code: int = 1


class ApiCall(_Model):
    """A Kubernetes API request the workload makes with its pod's ServiceAccount. Checked
    with a SubjectAccessReview against the real apiserver while the container runs; when
    denied the process logs the apiserver's `forbidden` message and, per `on_denied`,
    turns unready or exits."""

    verb: str
    resource: str
    group: str = ""
    subresource: str = ""
    namespace: str | None = None  # None: the pod's namespace; "": cluster-wide
    on_denied: str = Field("unready", pattern="^(unready|crash)$")


class Dependency(_Model):
    """An upstream the process connects to, read from an env var (`postgres://db:5432/x`,
    `db:5432`, `http://api`) or a mounted file holding such a URL. Checked through netsim
    (DNS, Service, endpoints, NetworkPolicy) while the container runs; unreachable, the
    process logs what a client library would and, per `on_failure`, turns unready or
    exits."""

    env: str | None = None
    file: str | None = None
    port: int = 80  # when the URL names none
    on_failure: str = Field("unready", pattern="^(unready|crash)$")


class Batch(_Model):
    """A process that ends by itself: a Job's pod, an init container."""

    seconds: float = 1.0
    exit_code: int = 0


class ImageModel(_Model):
    tags: list[str] = Field(default_factory=lambda: ["latest"])
    size_bytes: int = 50_000_000
    ports: list[Port] = Field(default_factory=list)
    health: list[str] = Field(default_factory=list)  # HTTP paths that answer 200
    startup_seconds: float = 0.5
    memory: str = "32Mi"  # working set
    cpu: str = "5m"
    logs: Logs = Field(default_factory=Logs)
    requires: list[Requirement] = Field(default_factory=list)
    api_calls: list[ApiCall] = Field(default_factory=list)
    dependencies: list[Dependency] = Field(default_factory=list)
    batch: Batch | None = None  # None: runs until stopped
    stop_seconds: float = 0.2  # from SIGTERM until it exits (shell images ignore SIGTERM)
    shell: bool = False  # interprets `sh -c` commands such as sleep/exit/echo (busybox)


class Catalog(_Model):
    images: dict[str, ImageModel]

    def resolve(self, image: str) -> tuple[str, str, ImageModel | None]:
        """(repository, tag, model); the model is None when the repository is unknown."""
        repo, tag = split_image(image)
        for name in _candidates(repo):
            if name in self.images:
                return repo, tag, self.images[name]
        return repo, tag, None

    def merged(self, other: "Catalog") -> "Catalog":
        return Catalog(images=self.images | other.images)


def split_image(image: str) -> tuple[str, str]:
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = name.rsplit(":", 1)
    else:
        tag = "latest"
    return name, (digest if digest else tag)


def _candidates(repo: str) -> list[str]:
    """nginx, library/nginx, docker.io/library/nginx all name the same image."""
    names = [repo]
    parts = repo.split("/")
    if parts[0] in (DEFAULT_REGISTRY, "index.docker.io", "registry-1.docker.io"):
        parts = parts[1:]
    if parts and parts[0] == "library":
        parts = parts[1:]
    names.append("/".join(parts))
    return names


def canonical(image: str) -> str:
    """The fully qualified reference a container runtime reports."""
    repo, tag = split_image(image)
    parts = repo.split("/")
    if "." not in parts[0] and ":" not in parts[0] and parts[0] != "localhost":
        parts = [DEFAULT_REGISTRY, *(["library"] if len(parts) == 1 else []), *parts]
    return "/".join(parts) + (f"@{tag}" if tag.startswith("sha256:") else f":{tag}")


def load(path: Path) -> Catalog:
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise KubeproofError(f"{path}: cannot read behaviour models: {exc}") from exc
    try:
        return Catalog.model_validate(data or {"images": {}})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise KubeproofError(f"{path}: {where}: {first['msg']}") from exc


@cache
def shipped() -> Catalog:
    with resources.as_file(resources.files("kubeproof.nodesim") / "images.yaml") as path:
        return load(path)
