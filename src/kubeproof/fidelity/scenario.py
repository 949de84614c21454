"""Fidelity scenarios as data: `scenarios/*.yaml`, each file a list of scenarios.

A scenario is a pod (and the objects it reads), how long to watch it, when to delete it,
and what a v1.36.3 kubelet shows meanwhile — events, status fields, deletion time — with
the upstream `file:line` it follows. The same expectations are judged in golden mode (the
node simulator on a fake clock: times exact) and live (a cluster through kubectl: times in
a window). Format: docs/behaviour-models.md, "Fidelity suite".

Times are seconds from the pod's start on the node, in the kubelet's real timing; a timing
profile scales them. Messages may hold placeholders filled per run: `{pod}`,
`{namespace}`, `{uid}`, `{podIP}`, and `{d:N}` — N kubelet seconds as Go prints a
duration under the profile (`{d:10}` is `10s` real, `1s` fast).
"""

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from kubeproof.errors import KubeproofError

NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$")
# an upstream path and line(s): pkg/kubelet/kubelet_pods.go:1800-1809,1857
SOURCE = re.compile(r"^[\w.@/-]+\.(go|yaml|md):\d+(-\d+)?(,\d+(-\d+)?)*$")
PLACEHOLDER = re.compile(r"\{(pod|namespace|uid|podIP|d:\d+(?:\.\d+)?)\}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class Text(_Strict):
    """Something compared with an observed string: exact (`message`) or a regex that must
    match the whole of it (`match`), placeholders filled either way."""

    message: str | None = None
    match: str | None = None

    @model_validator(mode="after")
    def _one(self):
        if self.message is not None and self.match is not None:
            raise ValueError("give message or match, not both")
        if self.match is not None:
            try:
                re.compile(PLACEHOLDER.sub("x", self.match))
            except re.error as exc:
                raise ValueError(f"match is not a valid regex: {exc}") from exc
        return self


class EventExpect(Text):
    """An event the kubelet records on the pod (repeats fold into one, as the API shows
    them): its first occurrence, optionally at a time and at least `count` times."""

    type: Literal["Normal", "Warning"] | None = None
    reason: str
    container: str | None = None  # involvedObject.fieldPath names this container
    at: float | None = Field(None, ge=0)
    after: int | None = Field(None, ge=0)  # `at` counts from this earlier event's time
    count: int | None = Field(None, ge=1)  # at least this many times by `until`


class ContainerExpect(Text):
    state: Literal["waiting", "running", "terminated"] | None = None
    reason: str | None = None  # the state's reason (waiting or terminated)
    exit_code: int | None = Field(None, alias="exitCode")
    restart_count: int | None = Field(None, alias="restartCount")
    ready: bool | None = None
    started: bool | None = None
    last_state: Literal["terminated"] | None = Field(None, alias="lastState")
    last_reason: str | None = Field(None, alias="lastReason")
    last_exit_code: int | None = Field(None, alias="lastExitCode")


class ConditionExpect(Text):
    status: Literal["True", "False", "Unknown"] | None = None
    reason: str | None = None
    absent: bool = False  # the condition is not there at all


class StatusExpect(_Strict):
    """Fields of the pod's status at `at` seconds (default: at `until`)."""

    at: float | None = Field(None, ge=0)
    phase: Literal["Pending", "Running", "Succeeded", "Failed"] | None = None
    reason: str | None = None
    message: str | None = None
    containers: dict[str, ContainerExpect] = {}
    init_containers: dict[str, ContainerExpect] = Field({}, alias="initContainers")
    ephemeral_containers: dict[str, ContainerExpect] = Field({}, alias="ephemeralContainers")
    conditions: dict[str, ConditionExpect] = {}


class LogExpect(Text):
    """A line of the container's log (its current run, as `kubectl logs` shows it); the
    lines expected of one container are an ordered subsequence of its log."""

    container: str


class Update(_Strict):
    """One of the scenario's objects replaced `at` seconds after the pod's start (a
    ConfigMap edited while the pod runs)."""

    at: float = Field(ge=0)
    object: dict[str, Any]


class Debug(_Strict):
    """An ephemeral container added `at` seconds after the pod's start through the
    pods/ephemeralcontainers subresource, as `kubectl debug POD --image=...` adds it."""

    at: float = Field(ge=0)
    container: dict[str, Any] = Field(description="the EphemeralContainer (name and image)")

    @model_validator(mode="after")
    def _named(self):
        if not self.container.get("name") or not self.container.get("image"):
            raise ValueError("an ephemeral container needs a name and an image")
        return self


class Expect(_Strict):
    events: list[EventExpect] = []  # an ordered subsequence of the pod's events
    logs: list[LogExpect] = []
    absent: list[EventExpect] = []  # events that must not appear
    status: list[StatusExpect] = []
    ever: list[StatusExpect] = []  # shown by some status during the run (no `at`)
    never: list[StatusExpect] = []  # shown by no status during the run (no `at`)
    gone_at: float | None = Field(None, alias="goneAt", ge=0)  # deleted pod removed then

    @model_validator(mode="after")
    def _checks(self):
        for kind in ("ever", "never"):
            if any(s.at is not None for s in getattr(self, kind)):
                raise ValueError(f"{kind} entries take no `at`")
        for i, e in enumerate(self.events):
            if e.after is not None and e.after >= i:
                raise ValueError(f"events[{i}].after must name an earlier event")
            if e.after is not None and e.at is None:
                raise ValueError(f"events[{i}].after needs at")
        return self


class Scenario(_Strict):
    name: str
    source: str  # the upstream file:line this scenario follows (required)
    also: list[str] = []  # further upstream sources
    description: str = ""
    live: bool = True  # False: golden only (it needs what a live run cannot arrange)
    golden: bool = True  # False: live only (it needs the apiserver, e.g. RBAC decisions)
    # a known difference of the simulator from upstream: golden mode is expected to differ
    # (the tests hold it to that, so a fix is noticed); the report says so
    known: str | None = None
    objects: list[dict[str, Any]] = []  # Secrets, ConfigMaps, Services created first
    pod: dict[str, Any]
    node_images: list[str] = Field([], alias="nodeImages")  # golden: already on the node
    # golden: the node's capacity (over the profile's default); its eviction manager runs
    node_capacity: dict[str, str] = Field({}, alias="nodeCapacity")
    until: float = Field(gt=0)
    delete_at: float | None = Field(None, alias="deleteAt", ge=0)
    grace: int | None = Field(None, ge=0)
    updates: list[Update] = []
    debug: list[Debug] = []  # ephemeral containers added while the pod runs
    expect: Expect
    file: str = ""  # set by the loader

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not NAME.match(v):
            raise ValueError("a name is lowercase letters, digits and '-', at most 42")
        return v

    @field_validator("source", "also")
    @classmethod
    def _source(cls, v):
        for s in [v] if isinstance(v, str) else v:
            if not SOURCE.match(s):
                raise ValueError(f"{s!r} is not an upstream path:line (e.g. pkg/x/y.go:12-15)")
        return v

    @field_validator("pod")
    @classmethod
    def _pod(cls, v: dict) -> dict:
        spec = v.get("spec")
        if not isinstance(spec, dict) or not spec.get("containers"):
            raise ValueError("pod needs spec.containers")
        if v.get("kind", "Pod") != "Pod":
            raise ValueError("pod must be a Pod")
        return v

    @field_validator("objects")
    @classmethod
    def _objects(cls, v: list[dict]) -> list[dict]:
        for o in v:
            if o.get("kind") not in ("Secret", "ConfigMap", "Service"):
                raise ValueError("objects are Secrets, ConfigMaps or Services")
            if not (o.get("metadata") or {}).get("name"):
                raise ValueError(f"a {o['kind']} needs metadata.name")
        return v

    @model_validator(mode="after")
    def _capacity(self):
        if not (self.live or self.golden):
            raise ValueError("a scenario must run live, golden or both")
        if self.node_capacity and self.live:
            raise ValueError("nodeCapacity is golden-only (live: false)")
        return self

    @model_validator(mode="after")
    def _updates(self):
        known = {(o["kind"], o["metadata"]["name"]) for o in self.objects}
        for u in self.updates:
            key = (u.object.get("kind"), (u.object.get("metadata") or {}).get("name"))
            if key not in known:
                raise ValueError(f"update of {key[0]} {key[1]}: not one of the objects")
        return self

    @model_validator(mode="after")
    def _delete(self):
        if self.grace is not None and self.delete_at is None:
            raise ValueError("grace needs deleteAt")
        if self.expect.gone_at is not None and self.delete_at is None:
            raise ValueError("expect.goneAt needs deleteAt")
        return self

    @property
    def pod_name(self) -> str:
        return (self.pod.get("metadata") or {}).get("name") or self.name

    def sources(self) -> list[str]:
        return [self.source, *self.also]


@dataclass
class Problem:
    file: str
    line: int
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.where}: {self.message}"


class ScenarioError(KubeproofError):
    exit_code = 2

    def __init__(self, problems: list[Problem]):
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


def _line(node: yaml.Node | None, loc: tuple) -> int:
    """The line of the YAML node at a pydantic error location (else of its nearest parent)."""
    line = node.start_mark.line + 1 if node else 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            found = next((v for k, v in node.value if k.value == part), None)
            if found is None:
                key = next((k for k, _ in node.value if k.value == part), None)
                return key.start_mark.line + 1 if key else line
            node = found
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                return line
            node = node.value[part]
        else:
            return line
        line = node.start_mark.line + 1
    return line


def parse(text: str, file: str) -> list[Scenario]:
    """The scenarios of one file (a YAML list, or a mapping with `scenarios:`)."""
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ScenarioError(
            [Problem(file, mark.line + 1 if mark else 1, "file", f"invalid YAML: {exc}")]
        ) from None
    if isinstance(data, dict) and "scenarios" in data:
        root = next(v for k, v in root.value if k.value == "scenarios")
        data = data["scenarios"]
    if not isinstance(data, list):
        raise ScenarioError([Problem(file, 1, "file", "expected a list of scenarios")])
    scenarios, problems = [], []
    for i, item in enumerate(data):
        node = root.value[i] if isinstance(root, yaml.SequenceNode) else None
        label = item.get("name", f"#{i}") if isinstance(item, dict) else f"#{i}"
        try:
            scenarios.append(Scenario.model_validate({**item, "file": file}))
        except (ValidationError, TypeError) as exc:
            if isinstance(exc, TypeError):
                problems.append(Problem(file, _line(node, ()), label, "expected a mapping"))
                continue
            for error in exc.errors():
                loc = tuple(p for p in error["loc"] if p not in ("function-after",))
                where = ".".join(str(p) for p in loc) or "scenario"
                message = error["msg"].removeprefix("Value error, ")
                problems.append(Problem(file, _line(node, loc), f"{label}: {where}", message))
    if problems:
        raise ScenarioError(problems)
    return scenarios


def load(paths: list[Path] | None = None) -> list[Scenario]:
    """Every scenario: the shipped ones, or those of the given files. Names are unique."""
    found: list[Scenario] = []
    problems: list[Problem] = []
    if paths is None:
        texts = [
            (f"scenarios/{entry.name}", entry.read_text())
            for entry in sorted(
                resources.files("kubeproof.fidelity").joinpath("scenarios").iterdir(),
                key=lambda e: e.name,
            )
            if entry.name.endswith(".yaml")
        ]
    else:
        texts = [(str(p), p.read_text()) for p in paths]
    for file, text in texts:
        try:
            found += parse(text, file)
        except ScenarioError as exc:
            problems += exc.problems
    seen: dict[str, str] = {}
    for s in found:
        if s.name in seen:
            problems.append(Problem(s.file, 1, s.name, f"name also used in {seen[s.name]}"))
        seen[s.name] = s.file
    if problems:
        raise ScenarioError(problems)
    return found


def select(scenarios: list[Scenario], names: list[str]) -> list[Scenario]:
    if not names:
        return scenarios
    by_name = {s.name: s for s in scenarios}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise KubeproofError(
            f"no such scenario: {', '.join(unknown)}",
            hint="`kubeproof fidelity --list` names them",
        )
    return [by_name[n] for n in names]
