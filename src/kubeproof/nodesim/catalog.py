"""Behaviour models: what an image does, declared in YAML so task authors describe apps and
the simulator derives what a kubelet would show.

    images:
      shop/checkout:
        tags: [latest, "2.{0..4}", "2.4.{0..3}{,-alpine}"]
        ports: [{containerPort: 8080, name: http}]
        health: ["/healthz"]
        startupSeconds: 1
        memory: 24Mi
        logs: {start: ["checkout {version} starting"]}

See docs/behaviour-models.md for every field.
"""

import hashlib
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import core_schema

from kubeproof.errors import KubeproofError
from kubeproof.nodesim.servers import ServerRule, in_script, recognise

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
    # the file's syntax (formats.py: corefile); a file that does not parse stops the
    # process with the parser's message instead of `message`
    format: str | None = Field(None, pattern="^(corefile)$")
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
    # the one object it asks for (`get configmaps app-settings`; a list or watch with the
    # field selector metadata.name=…): the review names it, so a Role's resourceNames
    # applies. `$(VAR)` takes the container's env, as the kubelet expands command and args
    name: str | None = None
    # the line logged when denied (clientlog.py): None, `failed to <verb> <resource>: …`;
    # "reflector", the klog line of a client-go informer whose list or watch is refused;
    # else a wording where {error} is client-go's error text
    log: str | None = None

    @model_validator(mode="after")
    def _reflector_lists_or_watches(self) -> "ApiCall":
        if self.log == "reflector" and self.verb not in ("list", "watch"):
            raise ValueError("log: reflector is for a list or watch call")
        return self


class Dependency(_Model):
    """An upstream the process connects to, read from an env var (`postgres://db:5432/x`,
    `db:5432`, `http://api`) or a mounted file holding such a URL. Checked through netsim
    (DNS, Service, endpoints, NetworkPolicy) while the container runs; unreachable, the
    process logs what a client library would and, per `on_failure`, turns unready or
    exits."""

    env: str | None = None
    file: str | None = None
    port: int = 80  # when the URL names none
    # unready: NotReady while unreachable; crash: exits 1; log: keeps running and Ready,
    # logging `log` at each failed attempt and `recovered` once it answers again
    on_failure: str = Field("unready", pattern="^(unready|crash|log)$")
    log: str = "{error}"  # the error line: {target} is host:port, {error} netsim's dial error
    recovered: str | None = None  # the line once it answers again ({target})
    retry_seconds: float | None = None  # between logged attempts; None: every check (2 s)


class DiskWrite(_Model):
    """A file the process writes once it starts (`size`) and grows while it runs
    (`perSecond`); where it lands follows the container's mounts (storage.py)."""

    path: str  # absolute path inside the container
    size: str = "0"  # a quantity, written at start
    per_second: str = "0"  # a quantity added every second until the process stops


class Batch(_Model):
    """A process that ends by itself: a Job's pod, an init container."""

    seconds: float = 1.0
    exit_code: int = 0


_RANGE = re.compile(r"(\d+)\.\.(\d+)")
_TAG_OR_GLOB = re.compile(r"[\w*][\w.*-]{0,127}")
_VERSION = re.compile(r"\d+(?:\.\d+)*")
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
MAX_EXPANSION = 200_000


def expand(pattern: str) -> list[str]:
    """Shell-style brace expansion: `1.27.{0..5}{,-alpine}` → 1.27.0 … 1.27.5-alpine.
    `{a,b}` alternatives (an empty one too) and `{N..M}` number ranges, nested."""
    start = pattern.find("{")
    if start < 0:
        if "}" in pattern:
            raise ValueError(f"unbalanced braces in {pattern!r}")
        return [pattern]
    depth = 0
    for end in range(start, len(pattern)):
        depth += {"{": 1, "}": -1}.get(pattern[end], 0)
        if depth == 0:
            break
    else:
        raise ValueError(f"unbalanced braces in {pattern!r}")
    head, body, tail = pattern[:start], pattern[start + 1 : end], pattern[end + 1 :]
    if number_range := _RANGE.fullmatch(body):
        low, high = int(number_range[1]), int(number_range[2])
        if high < low:
            raise ValueError(f"empty range {{{body}}} in {pattern!r}")
        alternatives = [str(n) for n in range(low, high + 1)]
    else:
        alternatives, depth, begin = [], 0, 0
        for i, ch in enumerate(body):
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                alternatives.append(body[begin:i])
                begin = i + 1
        alternatives.append(body[begin:])
    tails = expand(tail)
    out = [x for alt in alternatives for x in expand(head + alt)]
    if len(out) * len(tails) > MAX_EXPANSION:
        raise ValueError(f"{pattern!r} names more than {MAX_EXPANSION} tags")
    return [a + b for a in out for b in tails]


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


class Tags:
    """The tags a repository has, as rules: each entry is a tag (`"1.27"`), a pattern with
    brace alternatives and number ranges (`"1.27.{0..5}{,-alpine}"`: every 1.27.x release,
    plain and alpine), or a glob (`"2.*"`: any tag starting `2.`). Any `sha256:` digest of
    a known repository resolves too (a registry serves a manifest by digest)."""

    def __init__(self, rules: Iterable[str]) -> None:
        self.rules = tuple(rules)
        exact: set[str] = set()
        globs: list[re.Pattern[str]] = []
        for rule in self.rules:
            for tag in expand(rule):
                if not _TAG_OR_GLOB.fullmatch(tag):
                    raise ValueError(f"{tag!r} (from {rule!r}) is not a valid tag")
                if "*" in tag:
                    parts = (re.escape(p) for p in tag.split("*"))
                    globs.append(re.compile(r"[\w.-]*".join(parts)))
                else:
                    exact.add(tag)
        self._exact = frozenset(exact)
        self._globs = globs
        self._releases: dict[str, list[str]] = {}  # "-alpine" → versions with that variant
        for tag in exact:
            head, dash, variant = tag.partition("-")
            if _VERSION.fullmatch(head):
                self._releases.setdefault(dash + variant, []).append(head)

    def __contains__(self, tag: object) -> bool:
        if not isinstance(tag, str):
            return False
        if tag in self._exact or DIGEST.fullmatch(tag):
            return True
        return any(glob.fullmatch(tag) for glob in self._globs)

    def __iter__(self) -> Iterator[str]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Tags):
            return self.rules == other.rules
        if isinstance(other, list | tuple):
            return self.rules == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.rules)

    def __repr__(self) -> str:
        return f"Tags({list(self.rules)!r})"

    def release(self, tag: str, current: dict[str, str]) -> tuple[str, str]:
        """(version, variant) the tag names: `1.27.4-alpine` → (1.27.4, -alpine); a floating
        `1.27` → the newest 1.27.N with the same variant; `stable-alpine` → (current
        [stable], -alpine); a bare variant such as `alpine` → (current[latest], -alpine).
        `current` names a release for any head (pause's `3.10` is not a floating 3.10.N).
        Without a version to name, (tag, "")."""
        if DIGEST.fullmatch(tag):
            return tag, ""
        head, dash, variant = tag.partition("-")
        suffix = dash + variant
        if head in current:
            return current[head], suffix
        if _VERSION.fullmatch(head):
            versions = self._releases.get(suffix, [])
            newer = [v for v in versions if v.startswith(head + ".")]
            if newer:
                depth = max(v.count(".") for v in newer)
                deepest = [v for v in newer if v.count(".") == depth]
                return max(deepest, key=_version_key), suffix
            return head, suffix
        if "latest" in current and tag not in ("", "latest"):
            return current["latest"], "-" + tag
        return current.get(tag, tag), ""

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> core_schema.CoreSchema:
        def build(rules: list[str]) -> "Tags":
            return cls(rules)

        from_list = core_schema.no_info_after_validator_function(
            build, core_schema.list_schema(core_schema.str_schema())
        )
        return core_schema.union_schema(
            [core_schema.is_instance_schema(cls), from_list],
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda tags: list(tags.rules)
            ),
        )


class ImageModel(_Model):
    tags: Tags = Field(default_factory=lambda: Tags(["latest"]))
    current: dict[str, str] = Field(default_factory=dict)  # floating tag → release
    size_bytes: int = 50_000_000
    sizes: dict[str, int] = Field(default_factory=dict)  # tag glob → size (first match)
    env: dict[str, str] = Field(default_factory=dict)  # the image's ENV (PATH replaces)
    workdir: str = "/"  # the image's WORKDIR: where exec runs
    ports: list[Port] = Field(default_factory=list)
    health: list[str] = Field(default_factory=list)  # HTTP paths that answer 200
    pages: dict[str, str] = Field(default_factory=dict)  # path → body GET answers (pages.py)
    # the directory the image's own web server serves (nginx's default.conf root): a file
    # the container has there answers GET (pages.py), `pages` are the image's own files in
    # it, anything else is a 404 with `not_found` as its body
    document_root: str | None = None
    not_found: str | None = None
    startup_seconds: float = 0.5
    memory: str = "32Mi"  # working set
    cpu: str = "5m"
    logs: Logs = Field(default_factory=Logs)
    requires: list[Requirement] = Field(default_factory=list)
    api_calls: list[ApiCall] = Field(default_factory=list)
    dependencies: list[Dependency] = Field(default_factory=list)
    batch: Batch | None = None  # None: runs until stopped
    disk: list[DiskWrite] = Field(default_factory=list)  # local storage it writes
    stop_seconds: float = 0.2  # from SIGTERM until it exits (shell images ignore SIGTERM)
    # true: `sh -c` commands such as sleep/exit/echo are interpreted from their text;
    # "busybox": a shell script (sh/ash/bash -c) runs for real in a sandbox (runbox.py)
    shell: bool | Literal["busybox"] = False
    # the image's ENTRYPOINT: when empty, a container's `args` alone name the program
    entrypoint: list[str] = Field(default_factory=list)
    # the programs on the image's PATH (names) and their directories; None: the model does
    # not say, and any command starts. A command outside them fails to start (StartError)
    executables: list[str] | None = None
    bin_dirs: list[str] = Field(default_factory=lambda: ["/bin"])
    # where the image has kubectl (alpine/k8s: /usr/bin/kubectl): a script that runs for real
    # finds the cluster's stock kubectl there, and the pod a network namespace in which the
    # apiserver's ClusterIP answers (podnet.py)
    kubectl: str | None = None


SHELLS = ("sh", "ash", "bash", "dash")


def shell_invocation(argv: list[str]) -> tuple[list[str], str, str, list[str]] | None:
    """A shell's command line as the shell reads it (busybox ash's options: ash.c
    procargs/options): (its options but -c, "c" or "file", the script or the file, the words
    after it — $0 and the arguments, or the file's arguments). `sh -c SCRIPT`, `sh -ec
    SCRIPT`, `sh -e -c SCRIPT`, `sh -o pipefail -c SCRIPT`, `sh FILE ARGS…` (sh, ash, bash,
    dash, any directory); None for another command or a shell reading its stdin."""
    if not argv or argv[0].rsplit("/", 1)[-1] not in SHELLS:
        return None
    options: list[str] = []
    words = iter(argv[1:])
    for word in words:
        if word in ("-o", "+o"):
            options += [word, next(words, "")]
            continue
        if word == "--" or not word.startswith(("-", "+")) or word in ("-", "+"):
            if word == "--":
                word = next(words, "")
            if not word or word == "-" or word.startswith("-s"):
                return None
            return options, "file", word, list(words)
        if "c" in word[1:] and word[0] == "-":
            rest = word[1:].replace("c", "")
            options += [f"-{rest}"] if rest else []
            script = next(words, None)
            return None if script is None else (options, "c", script, list(words))
        if "s" in word[1:] or "i" in word[1:]:
            return None  # commands from stdin: nothing to run
        options.append(word)
    return None


def script_of(
    argv: list[str], files: Mapping[str, str] | None = None, workdir: str = "/"
) -> str | None:
    """The script of `sh [OPTIONS] -c SCRIPT [NAME ARGS…]` (shell_invocation), or of `sh
    FILE` when FILE is one of the container's mounted `files` (absolute path -> content: a
    ConfigMap's script, say; a relative FILE is the working directory's); None for another
    command, or a file of the image's own."""
    found = shell_invocation(argv)
    if found is None:
        return None
    if found[1] == "c":
        return found[2]
    if files is None:
        return None
    return files.get(posixpath.normpath(posixpath.join(workdir or "/", found[2])))


class Catalog(_Model):
    images: dict[str, ImageModel]
    # programs recognised as servers from a container's command (servers.py)
    servers: list[ServerRule] = Field(default_factory=list)
    _resolved: dict[str, tuple[str, str, ImageModel | None]] = PrivateAttr(default_factory=dict)
    _per_command: dict[tuple[str, tuple[str, ...], str | None], ImageModel] = PrivateAttr(
        default_factory=dict
    )

    def for_container(
        self, image: str, argv: list[str], script: str | None = None
    ) -> ImageModel | None:
        """The model of one container: its image's, unless its command (command then args,
        expanded) starts a recognised server. A server run as the command replaces the
        image's program: it listens on its port (answering GET / if HTTP) and nothing of the
        image's app (logs, requirements, calls) applies. A server a shell script starts adds
        its port to the image's model; `script`: the script when a shell reads it from a
        file (script_of), else the `-c` script of `argv` is read."""
        model = self.resolve(image)[2]
        if model is None or not argv or not self.servers:
            return model
        script = script if script is not None else script_of(argv)
        # a script file may be a ConfigMap's 1 MiB: the cache keeps its digest, not its text
        digest = hashlib.sha256(script.encode()).hexdigest() if script is not None else None
        key = (image, tuple(argv), digest)
        if (hit := self._per_command.get(key)) is not None:
            return hit
        server = in_script(self.servers, script) if script else recognise(self.servers, argv)
        if server is not None:
            ports = [p for p in model.ports if p.container_port != server.port]
            health = sorted({*model.health, "/"}) if server.http else list(model.health)
            update: dict[str, Any] = {"ports": [*ports, Port(container_port=server.port)]}
            if script is None:
                # PID 1 is the server: forked to the background, the parent exits 0 at once
                batch = None if server.foreground else Batch(seconds=0.0, exit_code=0)
                health = ["/"] if server.http else []
                update |= {"ports": update["ports"][-1:], "logs": Logs(), "requires": []}
                update |= {"api_calls": [], "dependencies": [], "disk": [], "batch": batch}
                update |= {"shell": False}
            model = model.model_copy(update=update | {"health": health})
        self._per_command[key] = model
        return model

    def resolve(self, image: str) -> tuple[str, str, ImageModel | None]:
        """(repository, tag, model); the model is None when the repository is unknown. The
        model is the one of this image: its size and `{version}` in its logs follow the
        release the tag names."""
        if (hit := self._resolved.get(image)) is not None:
            return hit
        repo, tag = split_image(image)
        found: ImageModel | None = None
        for name in _candidates(repo):
            if name in self.images:
                found = self.images[name]
                break
        if found is not None and tag in found.tags:
            found = _of_release(found, canonical(image).rsplit("/", 1)[0], tag)
        self._resolved[image] = (repo, tag, found)
        return repo, tag, found

    def image_digest(self, image: str) -> str:
        """The repo digest (`sha256:…`) a runtime reports for the image: the digest itself
        when the reference names one; else stable per release, so a floating tag and the
        release it points at (`nginx:1.27`, `nginx:1.27.5`) share it."""
        _repo, tag = split_image(image)
        if DIGEST.fullmatch(tag):
            return tag
        model = self.resolve(image)[2]
        version, variant = model.tags.release(tag, model.current) if model else (tag, "")
        name = canonical(image).rsplit(":", 1)[0]
        return "sha256:" + hashlib.sha256(f"{name}:{version}{variant}".encode()).hexdigest()

    def merged(self, other: "Catalog") -> "Catalog":
        """This catalog with `other`'s models (a task's) taking precedence, and its server
        rules tried first."""
        return Catalog(images=self.images | other.images, servers=other.servers + self.servers)


def _of_release(model: ImageModel, where: str, tag: str) -> ImageModel:
    """The model as the image `tag` has it: its size (`sizes`, else `sizeBytes`, varied a
    little per release as real builds vary) and `{version}` (`{major}`: its first number) in
    its logs and env."""
    version, variant = model.tags.release(tag, model.current)
    size = model.size_bytes
    for glob, bytes_ in model.sizes.items():
        if not DIGEST.fullmatch(tag) and tag in Tags([glob]):
            size = bytes_
            break
    seed = hashlib.sha256(f"{where}:{version}{variant}".encode()).digest()
    size += round(size * ((int.from_bytes(seed[:4]) / 2**32) - 0.5) * 0.06)

    def text(value: str) -> str:
        return value.replace("{version}", version).replace("{major}", version.split(".")[0])

    logs = model.logs.model_copy(
        update={
            field: [text(line) for line in getattr(model.logs, field)]
            for field in ("start", "ready", "failure", "success")
        }
    )
    env = {name: text(value) for name, value in model.env.items()}
    not_found = text(model.not_found) if model.not_found is not None else None
    return model.model_copy(
        update={"size_bytes": size, "logs": logs, "env": env, "not_found": not_found}
    )


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
