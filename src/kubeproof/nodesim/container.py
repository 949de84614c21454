"""One container's life as a kubelet drives it: pull, create, run, probe, exit, back off,
restart. `advance(now)` moves it forward and returns the Events a kubelet would record.

Wording, reasons and timings follow kubelet v1.36.3: image pulls and their back-off
(pkg/kubelet/images/image_manager.go, "IM" below), container start and crash-loop back-off
(pkg/kubelet/kuberuntime/kuberuntime_container.go "KRC", kuberuntime_manager.go "KRM"), and
what the status shows when (the PLEG relist, pkg/kubelet/pleg/generic.go). Durations come
from `timing.py` scaled by the cluster's timing profile.
"""

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from kubeproof.nodesim import execprobe, formats, hooks, pages, probes, termination
from kubeproof.nodesim.catalog import Catalog, canonical, script_of
from kubeproof.nodesim.config import ConfigError, World, resolve_env
from kubeproof.nodesim.expansion import command_and_args
from kubeproof.nodesim.kubeevent import Event, ts
from kubeproof.nodesim.process import FOREVER, Plan, plan
from kubeproof.nodesim.pulling import ImagePulling
from kubeproof.nodesim.realshell import runs_for_real
from kubeproof.nodesim.timing import (
    CONTAINER_BACKOFF_INITIAL,
    CONTAINER_BACKOFF_MAX,
    DEFAULT_GRACE,
    IMAGE_BACKOFF_INITIAL,
    IMAGE_BACKOFF_MAX,
    MINIMUM_GRACE,
    PLEG_RELIST,
    REAL,
    SYNC_ERROR_REQUEUE,
    Backoff,
    Timing,
    go_duration,
)
from kubeproof.nodesim.volumefiles import ContainerFiles

API_CHECK_SECONDS = 2.0  # how often a workload's API permissions are re-checked


@dataclass
class Container(ImagePulling):
    spec: dict
    field_path: str
    init: bool = False
    sidecar: bool = False
    timing: Timing = REAL
    # pull, pull-failed, pull-backoff, create, running, exited, backoff, invalid
    stage: str = "pull"
    next_at: float = 0.0
    reason: str = ""  # a waiting reason of its own; "" shows the pod's default
    message: str = ""
    pull_backoff: Backoff | None = None
    crash_backoff: Backoff | None = None
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
    _pull_error: str = ""  # the last pull's error, for ImagePullBackOff's message
    seen_at: float = 0.0  # when the PLEG relist sees the current run
    image_id: str = ""  # repo@digest as the runtime reports it (one per release)
    stop: object = None  # termination.Stop while the kubelet stops it
    before_seen: dict | None = None  # the state shown until then (a restart's previous)
    failing_mode: str = "unready"
    # the kubelet's reason cache (kubelet_pods.go:2620-2650): the last sync's error for
    # this container, shown as its waiting state while it waits to be restarted
    sync_error: tuple[str, str] | None = None
    exit_message: str = ""  # the terminated state's message (runtime's, then the app's)
    hook_until: float | None = None  # a postStart hook runs until then
    hook_error: str | None = None  # … and then fails with this message
    owner: object = None  # the Pod, as of the last advance (hooks run against it)
    model: object = None  # the ImageModel it was created from
    api_checked_at: float = 0.0
    _failing_logged: str | None = None
    # (container id, index) → dependencies.Attempts of a `log`-mode dependency
    dependency_attempts: dict = field(default_factory=dict)
    # a config file the running process re-reads (CoreDNS's reload plugin): what it serves
    reload: object = None
    # a script running for real (liveproc.Live) and the Runner of its sandbox (realshell.py)
    live: object = None
    runner: object = None
    projected: object = None  # its volume directories while it runs for real (projected.py)
    stop_deadline: float = 0.0  # when a stopping live script is killed

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

    def __post_init__(self) -> None:
        t = self.timing
        self.pull_backoff = Backoff(t(IMAGE_BACKOFF_INITIAL), t(IMAGE_BACKOFF_MAX))
        self.crash_backoff = Backoff(t(CONTAINER_BACKOFF_INITIAL), t(CONTAINER_BACKOFF_MAX))

    # -- the state machine ------------------------------------------------------------

    def advance(self, now: float, pod, world: World, catalog: Catalog) -> list[Event]:
        self.owner = pod
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

    def _on_create(self, now, pod, world, catalog) -> list[Event]:
        try:
            self.env = resolve_env(pod.obj, self.spec, world, [pod.ip])
        except ConfigError as exc:
            self.reason, self.message = "CreateContainerConfigError", str(exc)
            # retried at the pod worker's next sync (kubelet.go:225); a Secret or ConfigMap
            # appearing does not by itself resync the pod
            self.next_at = now + self.timing(SYNC_ERROR_REQUEUE)
            return [self._event("Warning", "Failed", f"Error: {exc}")]
        # the files' clock: `now` advancing with real time (a golden run's fake epoch does
        # not make reads walk through decades of volume syncs)
        offset = now - time.time()
        self.files = ContainerFiles(
            lambda: pod.obj, self.spec, world, [pod.ip], now, lambda: time.time() + offset
        )
        spec = command_and_args(self.spec, self.env)
        argv = [*(spec.get("command") or []), *(spec.get("args") or [])]
        # by image and command (servers.py), a script a shell reads from a mounted file too
        image_model = catalog.resolve(self.image)[2]
        workdir = self.spec.get("workingDir") or (image_model.workdir if image_model else "/")
        script = script_of(argv, self.files.at_start, workdir)
        model = catalog.for_container(self.image, argv, script)
        assert model is not None
        self.model = model
        # the repo digest the runtime reports: a floating tag and its release share it
        name = canonical(self.image).split("@", 1)[0]
        if "@" not in canonical(self.image):
            name = name.rsplit(":", 1)[0]
        self.image_id = f"{name}@{catalog.image_digest(self.image)}"
        if self.container_id:
            self.previous_logs, self.logs = self.logs, []
        self.container_id = hashlib.sha256(
            f"{pod.uid}/{self.name}/{self.restart_count}".encode()
        ).hexdigest()
        self.plan = plan(model, spec, self.env, self.files)
        self.live = None
        runner = getattr(world, "runner", None)
        if runner is not None and not self.plan.start_error and runs_for_real(model, argv):
            # the script itself says what it logs and when it exits (realshell.py); a
            # sandbox that cannot start leaves the script read from its text
            self.live = runner.try_start(self, pod, argv, model)
        if self.live is not None:
            # (what it writes with dd/fallocate is still counted from its text: storage.py)
            self.runner, self.plan = runner, Plan(runs_for=FOREVER, disk=self.plan.disk)
        self.started_at, self.finished_at = now, None
        self.exit_code = self.exit_reason = None
        self.reason = self.message = self.exit_message = ""
        self.sync_error = self.hook_error = self.hook_until = None
        if self.plan.start_error:
            return self._start_failed(now, self.plan.start_error)
        self.reload = None
        if self.plan.runs_for == FOREVER:
            self.reload = formats.reloader(model, self.files, now, self.timing, self.container_id)
        self.stage = "running"
        self.started = "startupProbe" not in self.spec
        self.ready = False
        self.probe_state = {}
        self.failing = self._failing_logged = None
        self.api_checked_at = 0.0
        self.logs += [(now, formats.stamp(line, now)) for line in self.plan.logs]
        # the status shows it running once the PLEG relists; one that exits first is seen
        # exited (and was never Running or Ready)
        self.seen_at = now + PLEG_RELIST  # not scaled: model run times are not either
        self.next_at = min(now + self.plan.runs_for, self.seen_at)
        events = [  # KRC:289, KRC:298
            self._event("Normal", "Created", "Container created"),
            self._event("Normal", "Started", "Container started"),
        ]
        handler = (self.spec.get("lifecycle") or {}).get("postStart")
        if handler:
            # KRC:318-337: the sync waits for the hook; the status shows the container
            # running only after it (the relist after the sync)
            outcome = hooks.run(handler, self, pod, model, self.timing)
            self.hook_until, self.hook_error = now + outcome.seconds, outcome.error
            self.seen_at = max(self.seen_at, self.hook_until + PLEG_RELIST)
            self.next_at = min(self.next_at, self.hook_until)
        return events

    def _start_failed(self, now: float, error: str) -> list[Event]:
        """StartContainer failed (KRC:291-296): containerd leaves the container exited with
        reason StartError, exit code 128, its error as message and no start time
        (internal/cri/server/container_start.go); the kubelet records `Failed` and keeps
        the error as RunContainerError (pkg/kubelet/container/sync_result.go:87)."""
        self.started_at = None
        self._exit(now, 128, "StartError")
        self.exit_message = error
        self.sync_error = ("RunContainerError", error)
        return [
            self._event("Normal", "Created", "Container created"),
            self._event("Warning", "Failed", f"Error: {error}"),
        ]

    def _on_running(self, now, pod, world, catalog) -> list[Event]:
        assert self.plan and self.started_at is not None
        model = self.model or catalog.resolve(self.image)[2]
        exit_at = self.started_at + self.plan.runs_for
        if self.live is not None and not self.live.alive:
            return self._exit(self.live.finished_at, self.live.exit_code, self.live.reason)
        volumes = self.projected
        if self.live is not None and volumes is not None and isinstance(self.files, ContainerFiles):
            volumes.write(self.files.projected())  # type: ignore[attr-defined]  # the pod's sync
        if self.hook_until is not None and now >= self.hook_until and exit_at > self.hook_until:
            self.hook_until, error = None, self.hook_error
            if error:
                return self._post_start_failed(now, pod, model, error)
        if now >= exit_at:
            self.logs += [(exit_at, line) for line in self.plan.exit_logs]
            return self._exit(exit_at, self.plan.exit_code, self.plan.reason)
        if self.reload is not None:  # it re-reads the file as the container sees it then
            self.logs += self.reload.advance(
                now, lambda at: self.files.read_at(self.reload.path, at)
            )
        if self.failing != self._failing_logged:
            self._failing_logged = self.failing
            if self.failing:
                self.logs.append((now, self.failing))
                if self.failing_mode == "crash":
                    return self._exit(now, 1, "Error")
        if self.hook_until is not None:  # probes wait for the status to show it running
            self.next_at = min(exit_at, self.hook_until)
            return []
        events = self._probe(now, pod, model, catalog, world)
        if self.stage != "running":
            return events
        if self.failing:
            self.ready = False
        # a probe whose command still runs wakes the pod when it ends (execprobe.start)
        upcoming = [exit_at, *(s["next"] for s in self.probe_state.values() if "running" not in s)]
        if now < self.seen_at:
            upcoming.append(self.seen_at)
        serving_at = self.started_at + model.startup_seconds
        if now < serving_at:
            upcoming.append(serving_at)  # it starts answering then: ready without a probe
        if (model.api_calls or model.dependencies) and self.api_checked_at:
            # the kubelet's next check (none yet: it checks at the next sync anyway; a
            # golden run checks none, and a due time in the past would spin it)
            upcoming.append(self.api_checked_at + API_CHECK_SECONDS)
        if self.reload is not None:
            upcoming.append(self.reload.next_at)
        if self.live is not None:  # the PLEG relist notices its exit (or it wakes the pod)
            upcoming.append(now + PLEG_RELIST)
        self.next_at = min(upcoming)
        return events

    def _probe(self, now, pod, model, catalog: Catalog, world: World) -> list[Event]:
        events: list[Event] = []
        serving = now >= self.started_at + model.startup_seconds
        kinds = ["startupProbe"] if not self.started else ["livenessProbe", "readinessProbe"]
        if self.started and "readinessProbe" not in self.spec:
            # without a readiness probe the kubelet calls a started container ready; it
            # does not know whether a port answers (prober_manager.go UpdatePodStatus)
            self.ready = True
        for kind in kinds:
            probe = self.spec.get(kind)
            if not probe:
                continue
            delay, period, failure_threshold, success_threshold = probes.timing(probe)
            state = self.probe_state.setdefault(
                kind, {"next": self.started_at + delay, "fail": 0, "ok": 0}
            )
            label = {
                "startupProbe": "Startup",
                "livenessProbe": "Liveness",
                "readinessProbe": "Readiness",
            }[kind]
            running = state.get("running")
            if running is not None:  # a command running for real: its worker waits on it
                if not running.done():
                    continue
                del state["running"]
                failure = execprobe.outcome(running, label)
            else:
                if now < state["next"]:
                    continue
                state["next"] = now + period
                if "exec" in probe and self.live is not None:
                    # the prober's worker is a goroutine of its own (prober/worker.go run):
                    # the command runs in a thread and its result is applied on a later
                    # tick; the node's loop, and every other pod's worker, go on meanwhile
                    state["running"] = execprobe.start(self, probe, pod, model, label, world)
                    continue
                failure = self._probe_once(kind, probe, pod, model, label, catalog, world, serving)
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
            events.append(self._event("Warning", "Unhealthy", failure))
            if kind == "readinessProbe" and state["fail"] >= failure_threshold:
                self.ready = False
            if kind in ("livenessProbe", "startupProbe") and state["fail"] >= failure_threshold:
                # KRM:1343-1366: killed with the probe's (else the pod's) grace period
                # (setTerminationGracePeriod, KRC:1434-1452), then restarted per the back-off
                message = f"Container {self.name} failed {label.lower()} probe, will be restarted"
                grace = probe.get("terminationGracePeriodSeconds")
                if grace is None:
                    grace = pod.obj["spec"].get("terminationGracePeriodSeconds", DEFAULT_GRACE)
                grace = self.timing(max(float(grace), MINIMUM_GRACE))
                events += self.kill(
                    now, termination.stop(self.spec, model, grace, self.timing), message
                )
                break
        return events

    def _probe_once(self, kind, probe, pod, model, label, catalog, world, serving) -> str | None:
        """One probe answered now: the failure message, None when it passes."""
        if "exec" in probe:  # the simulated shell answers at once
            return execprobe.run(self, probe, pod, model, label, world)
        if kind == "readinessProbe" and "httpGet" in probe and self.failing and serving:
            # an app that cannot reach what it needs answers its health checks with 503
            # (CoreDNS's /ready until the kubernetes plugin syncs); pkg/probe/http/
            # http.go:119-122 words the failure
            return f"{label} probe failed: HTTP probe failed with statuscode: 503"
        try:
            # a static file server answers from its document root (pages.py)
            def page(port: int, path: str):
                return pages.served(self, model, catalog.servers, port, path, pod)

            failure = probes.check(probe, self.spec, model, pod.ip, serving, page)
        except probes.ProbeError as exc:
            return f"{label} probe errored and resulted in unknown state: {exc}"
        return None if failure is None else f"{label} probe failed: {failure}"

    def _post_start_failed(self, now, pod, model, error: str) -> list[Event]:
        """KRC:321-336: `FailedPostStartHook` (no details: they may hold secrets), the
        container killed with that message, and PostStartHookError kept for the status."""
        grace = termination.grace_period(pod.obj, self.timing)
        events = [self._event("Warning", "FailedPostStartHook", "PostStartHook failed")]
        events += self.kill(
            now, termination.stop(self.spec, model, grace, self.timing), "FailedPostStartHook"
        )
        self.sync_error = ("PostStartHookError", error)
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
            self.ready = True

    def _exit(self, at: float, code: int, reason: str) -> list[Event]:
        self.stage, self.finished_at = "exited", at
        self.exit_code, self.exit_reason = code, reason
        self.ready = False
        self.exit_message = self._termination_message(code)
        # the kubelet learns of the exit at the next relist and then syncs the pod
        self.next_at = at + PLEG_RELIST
        return []

    def _termination_message(self, code: int) -> str:
        """getTerminationMessage (KRC:549-604): the last 4 KiB the process wrote to its
        terminationMessagePath, else — with FallbackToLogsOnError and a failure — the last
        80 log lines, at most 2 KiB (pkg/kubelet/container/runtime.go:811-819)."""
        path = self.spec.get("terminationMessagePath", "/dev/termination-log")
        written = self.plan.written if self.plan and self.stop is None else {}
        message = written.get(path, "")[-4096:]
        if self.live is not None:
            message = self.live.box.read_termination()
        fallback = self.spec.get("terminationMessagePolicy") == "FallbackToLogsOnError"
        if not message and fallback and code != 0:
            message = "".join(line + "\n" for _, line in self.logs[-80:])[-2048:]
        return message

    def _will_restart(self) -> bool:
        pod = self.owner
        return pod is not None and not (pod.terminal or pod.stopping) and self.restarts(pod)

    def restarts(self, pod) -> bool:
        from kubeproof.nodesim.podstatus import should_restart

        if self.sidecar:
            return True
        return should_restart(self.spec, pod.restart_policy, self.exit_code or 0)

    def kill(self, now: float, stop, message: str | None = None) -> list[Event]:
        """killContainer (KRC:861): `Killing`, then the process is gone after the stop's
        time (preStop, SIGTERM, SIGKILL at the end of the grace period)."""
        if self.stage not in ("running", "stopping"):
            self.next_at = FOREVER  # nothing runs: nothing to stop, nothing restarts
            return []
        if self.stage == "stopping":
            return []
        self.stage, self.stop = "stopping", stop
        self.next_at = now + stop.seconds
        if self.live is not None:  # SIGTERM now; SIGKILL when the grace period ends
            self.stop_deadline = self.next_at
            self.next_at = min(self.next_at, now + PLEG_RELIST)
            self.live.terminate()
        text = message or f"Stopping container {self.name}"
        events = [self._event("Normal", "Killing", text)]
        handler = (self.spec.get("lifecycle") or {}).get("preStop")
        pod = self.owner
        # KRC:781-806: the hook's failure is only an event
        if (
            handler
            and pod is not None
            and hooks.run(handler, self, pod, self.model, self.timing).error
        ):
            events.append(self._event("Warning", "FailedPreStopHook", "PreStopHook failed"))
        return events

    def _on_stopping(self, now, pod, world, catalog) -> list[Event]:
        if self.live is not None:
            return self._live_stopping(now, pod)
        self._exit(self.next_at, self.stop.exit_code, self.stop.reason)
        self.stop = None
        if pod.stopping:  # the pod is going: nothing restarts (a liveness kill does)
            self.next_at = FOREVER
        return []

    def _live_stopping(self, now, pod) -> list[Event]:
        """A live script being stopped: SIGTERM went at the kill (after the preStop hook,
        KRC:781-806, which ran already); it exits by itself, or SIGKILL at the deadline."""
        live = self.live
        if live.alive and now < self.stop_deadline:
            self.next_at = min(self.stop_deadline, now + PLEG_RELIST)
            return []
        if live.alive:
            live.kill()
            live.wait(2.0)
        code = live.exit_code if live.exit_code is not None else 137
        self._exit(min(live.finished_at or now, now), code, live.reason)
        self.stop = None
        if pod.stopping:
            self.next_at = FOREVER
        return []

    def _on_exited(self, now, pod, world, catalog) -> list[Event]:
        if pod.terminal or pod.stopping or (self.init and not self.sidecar and self.exit_code == 0):
            self.next_at = FOREVER
            return []
        if not self.restarts(pod):
            self.next_at = FOREVER
            return []
        self.last_state = self._terminated()
        return self._on_backoff(now, pod, world, catalog)

    def _on_backoff(self, now, pod, world, catalog) -> list[Event]:
        """doBackOff (KRM:1908-1940) at a pod sync: the first exit restarts at once; one
        within the back-off of the previous waits 10 s, 20 s, … 5 min (counted from the
        exit), the message naming the current delay as Go prints it."""
        finished = self.finished_at or now
        if self.crash_backoff.in_backoff_since(finished, now):
            delay = self.crash_backoff.delay
            self.reason = "CrashLoopBackOff"
            self.message = (
                f"back-off {go_duration(delay)} restarting failed container={self.name} "
                f"pod={pod.name}_{pod.namespace}({pod.uid})"
            )
            first = self.stage != "backoff"
            self.stage, self.next_at = "backoff", finished + delay
            if not first:
                return []
            return [
                self._event(
                    "Warning",
                    "BackOff",
                    f"Back-off restarting failed container {self.name} in pod "
                    f"{pod.name}_{pod.namespace}({pod.uid})",
                )
            ]
        self.crash_backoff.next(finished)
        # what the status keeps showing until the relist sees the new one running
        if self.stage == "backoff":
            self.before_seen = {"waiting": {"reason": self.reason, "message": self.message}}
        else:
            self.before_seen = self._terminated()
        self.restart_count += 1  # KRC:224-226: the previous status's count + 1
        self.stage = "create"
        self.reason = self.message = ""
        return [self._already_present(), *self._on_create(now, pod, world, catalog)]

    # -- status -----------------------------------------------------------------------

    def _terminated(self) -> dict:
        terminated = {
            "exitCode": self.exit_code,
            "reason": self.exit_reason,
            "startedAt": ts(self.started_at or 0),
            "finishedAt": ts(self.finished_at or 0),
            "containerID": f"containerd://{self.container_id}",
        }
        if self.exit_message:
            terminated["message"] = self.exit_message
        return {"terminated": terminated}

    def status(self, now: float, default_waiting: str = "ContainerCreating") -> dict:
        """convertToAPIContainerStatuses (kubelet_pods.go:2443): the state the kubelet last
        saw. A container started less than a relist ago still shows its previous state."""
        running = self.stage in ("running", "stopping") and now >= self.seen_at
        last_state = self.last_state or {}
        if running:
            state = {"running": {"startedAt": ts(self.started_at or 0)}}
        elif self.stage in ("running", "stopping") and self.before_seen:
            state = self.before_seen
        elif self.stage == "exited" and self.sync_error and self._will_restart():
            # the reason cache's entry while it waits to start again (kubelet_pods.go:
            # 2620-2650): RunContainerError, PostStartHookError
            state = {"waiting": {"reason": self.sync_error[0], "message": self.sync_error[1]}}
            last_state = self._terminated()
        elif self.stage == "exited":
            state = self._terminated()
        else:
            waiting = {"reason": self.reason or default_waiting}
            if self.message:
                waiting["message"] = self.message
            state = {"waiting": waiting}
        # an init container that completed is reported ready (kubelet_pods.go:2560)
        if self.init and not self.sidecar:
            ready = self.stage == "exited" and self.exit_code == 0
        else:
            ready = self.ready and running
        out = {
            "name": self.name,
            "image": self.image,
            "imageID": "",
            "ready": bool(ready),
            "started": self.started and running,
            "restartCount": self.restart_count,
            "state": state,
            "lastState": last_state,
        }
        if self.container_id:
            out["imageID"] = self.image_id
            out["containerID"] = f"containerd://{self.container_id}"
        return out
