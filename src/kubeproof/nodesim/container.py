"""One container's life as a kubelet drives it: pull, create, run, probe, exit, back off,
restart. `advance(now)` moves it forward and returns the Events a kubelet would record."""

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from kubeproof.nodesim import probes
from kubeproof.nodesim.catalog import Catalog, canonical
from kubeproof.nodesim.config import ConfigError, World, resolve_env
from kubeproof.nodesim.expansion import command_and_args
from kubeproof.nodesim.process import FOREVER, Plan, plan
from kubeproof.nodesim.volumefiles import ContainerFiles

BACKOFF_BASE = 2.0  # seconds; a kubelet uses 10 s doubling to 300 s — trials need seconds
BACKOFF_CAP = 40.0
PULL_SECONDS = 0.3
ERR_IMAGE_PULL_SECONDS = 1.0  # how long ErrImagePull shows before ImagePullBackOff
TERMINATED_SECONDS = 0.5  # how long a crashed container shows Terminated before back-off
API_CHECK_SECONDS = 2.0  # how often a workload's API permissions are re-checked


@dataclass
class Event:
    type: str
    reason: str
    message: str
    field_path: str | None = None


def backoff(failures: int) -> float:
    return min(BACKOFF_BASE * 2 ** max(failures - 1, 0), BACKOFF_CAP)


def ts(t: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Container:
    spec: dict
    field_path: str
    init: bool = False
    sidecar: bool = False
    stage: str = "pull"  # pull, pull-failed, pull-backoff, create, running, exited, backoff
    next_at: float = 0.0
    reason: str = "ContainerCreating"
    message: str = ""
    pull_failures: int = 0
    crashes: int = 0
    restart_count: int = 0
    started_at: float | None = None
    finished_at: float | None = None
    exit_code: int | None = None
    exit_reason: str | None = None
    last_state: dict | None = None
    container_id: str = ""
    ready: bool = False
    started: bool = False
    plan: Plan | None = None
    logs: list[tuple[float, str]] = field(default_factory=list)
    previous_logs: list[tuple[float, str]] = field(default_factory=list)
    probe_state: dict = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)  # a ContainerFiles once created
    # set by the kubelet when an API call is forbidden or a dependency unreachable: the
    # line the process logs about it (None: all is well)
    failing: str | None = None
    failing_mode: str = "unready"
    api_checked_at: float = 0.0
    _failing_logged: str | None = None

    @property
    def name(self) -> str:
        return self.spec["name"]

    @property
    def image(self) -> str:
        return self.spec["image"]

    @property
    def done(self) -> bool:
        """An init container that completed, or a sidecar that started."""
        if self.sidecar:
            return self.started
        return self.stage == "exited" and self.exit_code == 0

    def _event(self, kind: str, reason: str, message: str) -> Event:
        return Event(kind, reason, message, self.field_path)

    # -- the state machine ------------------------------------------------------------

    def advance(self, now: float, pod, world: World, catalog: Catalog) -> list[Event]:
        events: list[Event] = []
        for _ in range(8):  # several transitions may be due at once
            if now < self.next_at:
                break
            step = getattr(self, f"_on_{self.stage.replace('-', '_')}")
            before = (self.stage, self.next_at)
            events += step(now, pod, world, catalog)
            if (self.stage, self.next_at) == before:
                break
        return events

    def _on_pull(self, now, pod, world, catalog) -> list[Event]:
        policy = self.spec.get("imagePullPolicy", "IfNotPresent")
        _repo, tag, model = catalog.resolve(self.image)
        present = pod.node_images is not None and canonical(self.image) in pod.node_images
        ref = canonical(self.image)
        if policy == "Never" and not present:
            self.reason, self.message = (
                "ErrImageNeverPull",
                (f'Container image "{self.image}" is not present with pull policy of Never'),
            )
            self.next_at = FOREVER
            return [self._event("Warning", "ErrImageNeverPull", self.message)]
        if present and policy != "Always":
            self.stage, self.next_at = "create", now
            return [
                self._event(
                    "Normal", "Pulled", f'Container image "{self.image}" already present on machine'
                )
            ]
        events = [self._event("Normal", "Pulling", f'Pulling image "{self.image}"')]
        if model is None or tag not in model.tags:
            if model is None:
                cause = (
                    "pull access denied, repository does not exist or may require "
                    "authorization: server message: insufficient_scope: authorization failed"
                )
            else:
                cause = f"{ref}: not found"
            self.pull_failures += 1
            self.reason = "ErrImagePull"
            self.message = (
                f'failed to pull and unpack image "{ref}": failed to resolve reference '
                f'"{ref}": {cause}'
            )
            code = "NotFound" if model is not None else "Unknown"
            events += [
                self._event(
                    "Warning",
                    "Failed",
                    f'Failed to pull image "{self.image}": '
                    f"rpc error: code = {code} desc = {self.message}",
                ),
                self._event("Warning", "Failed", "Error: ErrImagePull"),
            ]
            self.stage, self.next_at = "pull-failed", now + ERR_IMAGE_PULL_SECONDS
            return events
        if pod.node_images is not None:
            pod.node_images.add(ref)
        seconds = PULL_SECONDS
        events.append(
            self._event(
                "Normal",
                "Pulled",
                f'Successfully pulled image "{self.image}" in {seconds}s ({seconds}s including '
                f"waiting). Image size: {model.size_bytes} bytes.",
            )
        )
        self.stage, self.next_at = "create", now + seconds
        return events

    def _on_pull_failed(self, now, pod, world, catalog) -> list[Event]:
        cause = self.message
        self.reason = "ImagePullBackOff"
        self.message = f'Back-off pulling image "{self.image}": ErrImagePull: {cause}'
        self.stage, self.next_at = "pull-backoff", now + backoff(self.pull_failures)
        return [
            self._event("Normal", "BackOff", f'Back-off pulling image "{self.image}"'),
            self._event("Warning", "Failed", "Error: ImagePullBackOff"),
        ]

    def _on_pull_backoff(self, now, pod, world, catalog) -> list[Event]:
        self.stage = "pull"
        return []

    def _on_create(self, now, pod, world, catalog) -> list[Event]:
        try:
            self.env = resolve_env(pod.obj, self.spec, world, [pod.ip])
        except ConfigError as exc:
            self.reason, self.message = "CreateContainerConfigError", str(exc)
            self.next_at = now + 2.0  # also woken at once when a Secret or ConfigMap changes
            return [self._event("Warning", "Failed", f"Error: {exc}")]
        self.files = ContainerFiles(lambda: pod.obj, self.spec, world, [pod.ip], now)
        _, _, model = catalog.resolve(self.image)
        assert model is not None
        if self.container_id:
            self.previous_logs, self.logs = self.logs, []
        self.container_id = hashlib.sha256(
            f"{pod.uid}/{self.name}/{self.restart_count}".encode()
        ).hexdigest()
        self.plan = plan(model, command_and_args(self.spec, self.env), self.env, self.files)
        self.started_at, self.finished_at = now, None
        self.exit_code = self.exit_reason = None
        self.reason = self.message = ""
        self.stage = "running"
        self.started = "startupProbe" not in self.spec
        self.ready = False
        self.probe_state = {}
        self.failing = self._failing_logged = None
        self.api_checked_at = 0.0
        self.logs += [(now, line) for line in self.plan.logs]
        self.next_at = now + min(self.plan.runs_for, 0.05)
        return [
            self._event("Normal", "Created", f"Created container: {self.name}"),
            self._event("Normal", "Started", f"Started container {self.name}"),
        ]

    def _on_running(self, now, pod, world, catalog) -> list[Event]:
        assert self.plan and self.started_at is not None
        _, _, model = catalog.resolve(self.image)
        exit_at = self.started_at + self.plan.runs_for
        if now >= exit_at:
            self.logs += [(exit_at, line) for line in self.plan.exit_logs]
            return self._exit(exit_at, self.plan.exit_code, self.plan.reason)
        if self.failing != self._failing_logged:
            self._failing_logged = self.failing
            if self.failing:
                self.logs.append((now, self.failing))
                if self.failing_mode == "crash":
                    return self._exit(now, 1, "Error")
        events = self._probe(now, pod, model)
        if self.stage != "running":
            return events
        if self.failing:
            self.ready = False
        upcoming = [exit_at, *(s["next"] for s in self.probe_state.values())]
        serving_at = self.started_at + model.startup_seconds
        if now < serving_at:
            upcoming.append(serving_at)  # it starts answering then: ready without a probe
        if model.api_calls or model.dependencies:
            upcoming.append(self.api_checked_at + API_CHECK_SECONDS)
        self.next_at = min(upcoming)
        return events

    def _probe(self, now, pod, model) -> list[Event]:
        events: list[Event] = []
        serving = now >= self.started_at + model.startup_seconds
        kinds = ["startupProbe"] if not self.started else ["livenessProbe", "readinessProbe"]
        if self.started and "readinessProbe" not in self.spec:
            self.ready = serving or not model.ports
        for kind in kinds:
            probe = self.spec.get(kind)
            if not probe:
                continue
            delay, period, failure_threshold, success_threshold = probes.timing(probe)
            state = self.probe_state.setdefault(
                kind, {"next": self.started_at + delay, "fail": 0, "ok": 0}
            )
            if now < state["next"]:
                continue
            state["next"] = now + period
            failure = probes.check(probe, self.spec, model, pod.ip, serving)
            label = {
                "startupProbe": "Startup",
                "livenessProbe": "Liveness",
                "readinessProbe": "Readiness",
            }[kind]
            if failure is None:
                state["fail"], state["ok"] = 0, state["ok"] + 1
                if kind == "readinessProbe" and state["ok"] >= success_threshold:
                    self.ready = True
                if kind == "startupProbe":
                    self.started = True
                    self.probe_state.pop(kind)
                    self._after_startup(now, serving, model)
                continue
            state["ok"], state["fail"] = 0, state["fail"] + 1
            events.append(self._event("Warning", "Unhealthy", f"{label} probe failed: {failure}"))
            if kind == "readinessProbe" and state["fail"] >= failure_threshold:
                self.ready = False
            if kind in ("livenessProbe", "startupProbe") and state["fail"] >= failure_threshold:
                events.append(
                    self._event(
                        "Normal",
                        "Killing",
                        f"Container {self.name} failed {label.lower()} probe, will be restarted",
                    )
                )
                events += self._exit(now, 137, "Error")
                break
        return events

    def _after_startup(self, now, serving, model) -> None:
        """Liveness and readiness probes begin once the startup probe has passed (their
        initial delays still count from the container's start)."""
        for kind in ("livenessProbe", "readinessProbe"):
            if kind in self.spec:
                delay = probes.timing(self.spec[kind])[0]
                self.probe_state[kind] = {
                    "next": max(now, self.started_at + delay),
                    "fail": 0,
                    "ok": 0,
                }
        if "readinessProbe" not in self.spec:
            self.ready = serving or not model.ports

    def _exit(self, at: float, code: int, reason: str) -> list[Event]:
        self.stage, self.finished_at = "exited", at
        self.exit_code, self.exit_reason = code, reason
        self.ready = False
        self.next_at = at + TERMINATED_SECONDS
        return []

    def _on_exited(self, now, pod, world, catalog) -> list[Event]:
        policy = "Always" if self.sidecar else pod.restart_policy
        if (
            policy == "Never"
            or (policy == "OnFailure" and self.exit_code == 0)
            or (self.init and not self.sidecar and self.exit_code == 0)
        ):
            self.next_at = FOREVER
            return []
        self.last_state = self._terminated()
        self.crashes += 1
        delay = backoff(self.crashes)
        self.stage, self.next_at = "backoff", now + delay
        self.reason = "CrashLoopBackOff"
        self.message = (
            f"back-off {delay:g}s restarting failed container={self.name} "
            f"pod={pod.name}_{pod.namespace}({pod.uid})"
        )
        return [
            self._event(
                "Warning",
                "BackOff",
                f"Back-off restarting failed container {self.name} in pod "
                f"{pod.name}_{pod.namespace}({pod.uid})",
            )
        ]

    def _on_backoff(self, now, pod, world, catalog) -> list[Event]:
        self.restart_count += 1
        self.stage = "create"
        return [
            self._event(
                "Normal", "Pulled", f'Container image "{self.image}" already present on machine'
            )
        ]

    # -- status -----------------------------------------------------------------------

    def _terminated(self) -> dict:
        return {
            "terminated": {
                "exitCode": self.exit_code,
                "reason": self.exit_reason,
                "startedAt": ts(self.started_at or 0),
                "finishedAt": ts(self.finished_at or 0),
                "containerID": f"containerd://{self.container_id}",
            }
        }

    def status(self) -> dict:
        if self.stage == "running":
            state = {"running": {"startedAt": ts(self.started_at or 0)}}
        elif self.stage == "exited":
            state = self._terminated()
        else:
            waiting = {"reason": self.reason}
            if self.message:
                waiting["message"] = self.message
            state = {"waiting": waiting}
        out = {
            "name": self.name,
            "image": self.image,
            "imageID": "",
            "ready": self.ready and self.stage == "running",
            "started": self.started and self.stage == "running",
            "restartCount": self.restart_count,
            "state": state,
            "lastState": self.last_state or {},
        }
        if self.container_id:
            ref = canonical(self.image).rsplit(":", 1)[0]
            digest = hashlib.sha256(canonical(self.image).encode()).hexdigest()
            out["imageID"] = f"{ref}@sha256:{digest}"
            out["containerID"] = f"containerd://{self.container_id}"
        return out
