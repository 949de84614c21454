"""Reading a Harbor task's environment/: which services its docker-compose.yaml runs,
whether one of them is a Kubernetes cluster (k3s or kind) and with which nodes, which
service bootstraps it and with what mounts, and what each image's Dockerfile copies in.

Everything here is read, never run. What kubeproof cannot stand in for is a `Refusal`
with its reason, so an import never drops a task silently.
"""

import shlex
from pathlib import Path, PurePosixPath

import yaml
from pydantic import BaseModel, Field

COMPOSE_NAMES = ("docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml")
FILE_LIMIT = 1 << 20  # bytes of a compose file or Dockerfile: they are small
BIN_DIRS = ("/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin")


class Refusal(Exception):
    """The task cannot be imported; the message is the reason, short and countable."""


class Node(BaseModel):
    """One k3s server or agent (or kind node) of the compose file."""

    name: str = Field(description="--node-name, else the compose service's name.")
    labels: dict[str, str] = Field(default_factory=dict, description="--node-label values.")
    taints: list[str] = Field(default_factory=list, description="--node-taint values.")
    server: bool = Field(description="A control-plane (k3s server) node.")


class Copy(BaseModel):
    """A Dockerfile COPY: sources under environment/ and where they land in the image."""

    sources: list[str]
    target: str


class Image(BaseModel):
    """What a Dockerfile makes of the build context that matters to kubeproof."""

    workdir: str | None = None
    copies: list[Copy] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)


class Environment(BaseModel):
    """A Harbor environment that brings up Kubernetes, as kubeproof will rebuild it."""

    nodes: list[Node]
    bootstrap_command: list[str] = Field(description="The bootstrap service's command.")
    bootstrap_mounts: dict[str, str] = Field(
        description="Bootstrap service mounts: path inside → folder under environment/ "
        "(`./workspace/bootstrap`) or `scratch` for a named volume."
    )
    bootstrap_image: Image
    agent_image: Image
    notes: list[str] = Field(default_factory=list, description="What was mapped loosely.")
    disabled: list[str] = Field(
        default_factory=list, description="k3s's packaged components the server disables."
    )


def _read(path: Path) -> str:
    if path.is_symlink() or not path.is_file():
        raise Refusal(f"{path.name} is not a regular file")
    if path.stat().st_size > FILE_LIMIT:
        raise Refusal(f"{path.name} is over {FILE_LIMIT >> 10} KiB")
    return path.read_text(errors="replace")


def _command(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return shlex.split(value)
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return [str(v) for v in value]
    raise Refusal("a compose command that is neither a string nor a list")


def _flags(args: list[str], name: str) -> list[str]:
    """Every value of `--name=value` or `--name value` in args."""
    found = []
    for i, arg in enumerate(args):
        if arg.startswith(f"--{name}="):
            found.append(arg.split("=", 1)[1])
        elif arg == f"--{name}" and i + 1 < len(args):
            found.append(args[i + 1])
    return found


def _node(service: str, args: list[str], server: bool) -> Node:
    labels = {}
    for label in _flags(args, "node-label"):
        key, _, value = label.partition("=")
        labels[key] = value
    names = _flags(args, "node-name")
    return Node(
        name=names[0] if names else service,
        labels=labels,
        taints=_flags(args, "node-taint"),
        server=server,
    )


def dockerfile(path: Path) -> Image:
    """WORKDIR, ENV and COPY of a Dockerfile (line continuations joined)."""
    image = Image()
    if not path.is_file():
        return image
    text = _read(path).replace("\\\n", " ")
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        op = words[0].upper()
        if op == "WORKDIR" and len(words) > 1:
            image.workdir = words[1]
        elif op == "ENV" and len(words) > 1:
            if "=" in words[1]:
                for pair in words[1:]:
                    key, _, value = pair.partition("=")
                    image.env[key] = value.strip('"')
            elif len(words) > 2:
                image.env[words[1]] = " ".join(words[2:])
        elif op in ("COPY", "ADD"):
            parts = [w for w in words[1:] if not w.startswith("--")]
            if len(parts) >= 2:
                image.copies.append(Copy(sources=parts[:-1], target=parts[-1]))
    return image


def _cluster_service(name: str, service: dict) -> tuple[str, list[str]] | None:
    """("k3s"|"kind", args) if this service runs a Kubernetes node."""
    image = str(service.get("image") or "")
    if "rancher/k3s" in image or image.startswith("k3s"):
        return "k3s", _command(service.get("command"))
    if "kindest/node" in image:
        return "kind", _command(service.get("command"))
    return None


def _mounts(service: dict, env_dir: Path) -> dict[str, str]:
    mounts: dict[str, str] = {}
    for volume in service.get("volumes") or []:
        if isinstance(volume, dict):
            source, target = str(volume.get("source", "")), str(volume.get("target", ""))
        else:
            source, _, rest = str(volume).partition(":")
            target = rest.split(":")[0]
        if not target.startswith("/"):
            raise Refusal(f"a bootstrap volume with no absolute target: {volume}")
        if source.startswith((".", "/")):
            folder = (env_dir / source).resolve()
            if not folder.is_relative_to(env_dir.resolve()):
                raise Refusal(f"a bootstrap volume from outside environment/: {source}")
            if not folder.is_dir():
                raise Refusal(f"a bootstrap volume that is not a folder: {source}")
            mounts[target] = folder.relative_to(env_dir.resolve()).as_posix()
        else:  # a named volume shared between services: an empty, writable folder
            mounts[target] = "scratch"
    return mounts


def read_environment(env_dir: Path, gpus: int) -> Environment:
    """The environment, or a Refusal saying why kubeproof cannot rebuild it."""
    if gpus > 0:
        raise Refusal("needs a GPU ([environment] gpus > 0)")
    compose = next((env_dir / n for n in COMPOSE_NAMES if (env_dir / n).exists()), None)
    if compose is None:
        raise Refusal("no docker-compose.yaml: its environment is a plain container")
    try:
        data = yaml.safe_load(_read(compose)) or {}
    except yaml.YAMLError as exc:
        raise Refusal(f"docker-compose.yaml is not valid YAML: {str(exc)[:100]}") from exc
    services = data.get("services") if isinstance(data, dict) else None
    if not isinstance(services, dict):
        raise Refusal("docker-compose.yaml has no services")
    nodes: list[Node] = []
    notes: list[str] = []
    off: set[str] = set()
    for name, service in services.items():
        found = _cluster_service(name, service or {})
        if found is None:
            continue
        kind, args = found
        if kind == "kind":
            raise Refusal("needs kind (a kind cluster's own config is not read yet)")
        server = not args or args[0] == "server"
        disabled = {d for v in _flags(args, "disable") for d in v.split(",")}
        if server:  # a server without --disable=traefik runs it (the traefik addon)
            off |= disabled
        nodes.append(_node(name, args, server))
    if not nodes:
        raise Refusal("no Kubernetes in its environment (no k3s or kind service)")
    boot = [
        (n, s)
        for n, s in services.items()
        if isinstance(s, dict) and s.get("build") and s.get("command") and n != "main"
    ]
    if len(boot) != 1:
        raise Refusal(f"expected one bootstrap service with a build and a command, saw {len(boot)}")
    name, service = boot[0]
    build = service["build"]
    dockerfile_name = build.get("dockerfile", "Dockerfile") if isinstance(build, dict) else None
    if dockerfile_name is None or PurePosixPath(dockerfile_name).name != dockerfile_name:
        raise Refusal(f"bootstrap service {name} builds from outside environment/")
    notes += [
        f"compose service {n} not run"
        for n in services
        if n not in {name, "main"} and _cluster_service(n, services[n] or {}) is None
    ]
    return Environment(
        nodes=nodes,
        bootstrap_command=_command(service.get("command")),
        bootstrap_mounts=_mounts(service, env_dir),
        bootstrap_image=dockerfile(env_dir / dockerfile_name),
        agent_image=dockerfile(env_dir / "Dockerfile"),
        notes=notes,
        disabled=sorted(off),
    )
