"""A pod on a simulated node: volumes, init containers, sidecars and app containers in the
kubelet's order, and the pod status (phase, conditions, container statuses) they imply."""

from typing import TYPE_CHECKING

from kubeproof.nodesim import ephemeral, etcfiles, podstatus, storage, termination
from kubeproof.nodesim.admission import Rejection
from kubeproof.nodesim.catalog import Catalog
from kubeproof.nodesim.config import World, volume_error
from kubeproof.nodesim.container import Container, Event, ts
from kubeproof.nodesim.eviction import disruption_condition
from kubeproof.nodesim.process import FOREVER
from kubeproof.nodesim.resize import Resize
from kubeproof.nodesim.timing import MOUNT_BACKOFF_INITIAL, MOUNT_BACKOFF_MAX, REAL, Timing

if TYPE_CHECKING:
    from kubeproof.nodesim.tokens import PodTokens


class PodRuntime:
    def __init__(
        self,
        obj: dict,
        ip: str,
        node_images: set[str] | None = None,
        timing: Timing = REAL,
    ):
        self.obj = obj
        self.timing = timing
        self.ip = ip
        self.host_ip: str | None = None  # the node's InternalIP, once the kubelet knows it
        self.node_images = node_images
        self.created = None  # first time the kubelet saw it
        self.mounted = False
        self.mount_retry_at = 0.0
        self.mount_delay = 0.0  # the mount operation's current back-off
        # its projected tokens, requested by the kubelet before a script that runs for real
        # starts (tokens.py); a failed request fails the mount as upstream's SetUp does
        self.tokens: PodTokens | None = None
        spec = obj["spec"]
        self.init = [
            Container(
                c,
                f"spec.initContainers{{{c['name']}}}",
                init=True,
                sidecar=c.get("restartPolicy") == "Always",
                timing=timing,
            )
            for c in spec.get("initContainers") or []
        ]
        self.app = [
            Container(c, f"spec.containers{{{c['name']}}}", timing=timing)
            for c in spec["containers"]
        ]
        self.ephemeral: list[Container] = []  # added by `kubectl debug` (ephemeral.py)
        self.last_phase = "Pending"  # the phase of the last status; Failed/Succeeded stay
        self.stopping = False  # the kubelet is killing the pod's containers
        self.deadline_exceeded = False
        self.rejected: Rejection | None = None  # refused at admission: never runs
        self.evicted: str | None = None  # the eviction manager's message (eviction.py)
        self.disruption = False  # … and whether it sets DisruptionTarget
        self.disk = storage.PodDisk(obj["metadata"].get("uid", ""))  # files written (storage.py)
        self.grace_override: float | None = None  # the kill's gracePeriodOverride
        self._unrecorded: list[Event] = []
        self.resize = Resize(spec)  # the allocation and any in-place resize (resize.py)

    # identity --------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.obj["metadata"]["name"]

    @property
    def namespace(self) -> str:
        return self.obj["metadata"]["namespace"]

    @property
    def uid(self) -> str:
        return self.obj["metadata"]["uid"]

    @property
    def restart_policy(self) -> str:
        return self.obj["spec"].get("restartPolicy", "Always")

    def containers(self) -> list[Container]:
        return [*self.init, *self.app, *self.ephemeral]

    @property
    def terminal(self) -> bool:
        """Failed or Succeeded: nothing restarts any more."""
        return self.last_phase in ("Failed", "Succeeded")

    # driving ---------------------------------------------------------------------------
    def reject(self, rejection: Rejection) -> None:
        """pkg/kubelet/kubelet.go:2589-2597 rejectPod: a Warning event with the handler's
        reason and message (recorded at the next advance); the pod is Failed and no
        container is ever started."""
        self.rejected, self.last_phase = rejection, "Failed"
        self._unrecorded = [Event("Warning", rejection.reason, rejection.message)]

    def evict(
        self, now: float, catalog: Catalog, message: str, grace: float, disruption: bool = True
    ) -> list[Event]:
        """pkg/kubelet/eviction/eviction_manager.go:611-633 evictPod: the Warning `Evicted`
        event, then the pod is killed with the override grace period and its status set to
        Failed / Evicted, with a DisruptionTarget condition for node pressure (none for a
        local storage limit); the pod object stays."""
        self.evicted, self.last_phase, self.disruption = message, "Failed", disruption
        self.grace_override = grace
        return [Event("Warning", "Evicted", message), *self.kill(now, catalog)]

    def kill(self, now: float, catalog: Catalog) -> list[Event]:
        """Stop every container: regular ones at once, sidecars once those are gone, in
        reverse order (kuberuntime_termination_order.go)."""
        self.stopping = True
        events: list[Event] = []
        for c in [*self.app, *(i for i in self.init if not i.sidecar), *self.ephemeral]:
            events += c.kill(now, self._stop(c, catalog))
        return events + self._stop_sidecars(now, catalog)

    def _stop(self, container: Container, catalog: Catalog) -> termination.Stop:
        model = container.model or catalog.resolve(container.image)[2]
        grace = termination.grace_period(self.obj, self.timing, self.grace_override)
        return termination.stop(container.spec, model, grace, self.timing)

    def _stop_sidecars(self, now: float, catalog: Catalog) -> list[Event]:
        """Sidecars stop after every regular container has (KRM:1377-1382)."""
        regular = [*self.app, *(i for i in self.init if not i.sidecar)]
        if any(c.stage in ("running", "stopping") for c in regular):
            return []
        events: list[Event] = []
        for c in reversed([i for i in self.init if i.sidecar]):
            events += c.kill(now, self._stop(c, catalog))
        return events

    def sync_resize(self, now: float, admit) -> list[Event]:
        """A running pod's in-place resize (resize.py); `admit` judges the desired spec
        against the node's other pods, as the allocation manager's canAdmitPod does."""
        if self.rejected or self.terminal or self.stopping:
            return []
        events = self.resize.sync(now, self.obj, admit)
        restart, self.resize.restart = self.resize.restart, []
        grace = termination.grace_period(self.obj, self.timing)
        for c in self.containers():
            if c.name in restart:  # kuberuntime_manager.go:790-795, killed then started
                stop = termination.stop(c.spec, c.model, grace, self.timing)
                events += c.kill(now, stop, f"Container {c.name} resize requires restart")
        return events

    def stopped(self) -> bool:
        return all(c.stage not in ("running", "stopping") for c in self.containers())

    def _deadline(self, now: float, catalog: Catalog) -> list[Event]:
        """activeDeadlineSeconds (pkg/kubelet/active_deadline.go:31-32,74-75)."""
        deadline = self.obj["spec"].get("activeDeadlineSeconds")
        if deadline is None or self.stopping or self.terminal or self.created is None:
            return []
        if now < self.created + self.timing(float(deadline)):
            return []
        self.deadline_exceeded, self.last_phase = True, "Failed"
        message = "Pod was active on the node longer than the specified deadline"
        return [Event("Normal", "DeadlineExceeded", message), *self.kill(now, catalog)]

    def advance(self, now: float, world: World, catalog: Catalog) -> list[Event]:
        if self.created is None:
            self.created = now
        if self.rejected:
            events, self._unrecorded = self._unrecorded, []
            return events
        if self.stopping:
            events = []
            for container in self.containers():
                events += container.advance(now, self, world, catalog)
            return events + self._stop_sidecars(now, catalog)
        if deadline := self._deadline(now, catalog):
            return deadline
        if not self.mounted:
            if now < self.mount_retry_at:
                return []
            problem = volume_error(self.obj, world) or (self.tokens.error if self.tokens else None)
            if problem:
                # each failed SetUp is an event; the next waits out the operation's
                # exponential back-off (0.5 s doubling to 2 m 2 s)
                self.mount_delay = min(
                    self.mount_delay * 2 or self.timing(MOUNT_BACKOFF_INITIAL),
                    self.timing(MOUNT_BACKOFF_MAX),
                )
                self.mount_retry_at = now + self.mount_delay
                return [Event("Warning", "FailedMount", problem[1])]
            self.mounted = True
            # the sandbox is made: its DNS config is formed twice in that first SyncPod
            # (createPodSandbox, then the config for the containers to start,
            # kuberuntime_manager.go:1599,1668), each time warning of cut limits (dns.go:
            # 143,153); the events fold into one with count 2
            dns_warnings = etcfiles.pod_dns(self.obj).warnings
            events = [Event("Warning", "DNSConfigForming", w) for w in dns_warnings * 2]
        else:
            events = []
        if self.terminal:
            return events
        known = {c.name for c in self.ephemeral}
        self.ephemeral += ephemeral.new_containers(self.obj, known, self.timing)
        for container in self.ephemeral:  # SyncPod step 6, before the init containers
            if container.stage == "pull" and container.next_at == 0.0:
                container.next_at = now
            events += container.advance(now, self, world, catalog)
        for container in self.init:
            if container.stage == "pull" and container.next_at == 0.0:
                container.next_at = now
            events += container.advance(now, self, world, catalog)
            if not container.done:
                if self._init_failed():
                    self.last_phase = "Failed"  # restartPolicy Never: the pod fails
                return events  # init containers run one at a time, in order
        # SyncPod starts the containers one after another, each pulling its image first
        # (kuberuntime_manager.go:1791-1793): a pull in progress holds up the next ones
        busy = 0.0
        for container in self.app:
            if container.stage == "pull" and container.next_at == 0.0:
                container.next_at = now
            if container.stage == "pull" and busy > now:
                container.next_at = max(container.next_at, busy)
                continue
            pulling = container.stage == "pull"
            events += container.advance(now, self, world, catalog)
            if pulling and container.stage == "create" and container.next_at > now:
                busy = container.next_at
        # the regular containers are done for good: the sidecars are stopped
        done = self.app and all(c.stage == "exited" and c.next_at == FOREVER for c in self.app)
        if done and any(i.sidecar and i.stage == "running" for i in self.init):
            self.stopping = True
            events += self._stop_sidecars(now, catalog)
        return events

    def next_at(self) -> float:
        if self.rejected:
            return FOREVER
        if not self.mounted:
            return self.mount_retry_at
        deadline = self.obj["spec"].get("activeDeadlineSeconds")
        at = FOREVER
        if deadline is not None and self.created is not None and not self.stopping:
            at = self.created + self.timing(float(deadline))
        if self.stopping:
            return min([c.next_at for c in self.containers()] + [at])
        if self.terminal:
            # advance does nothing more for it (a deletion wakes it through its watch);
            # its containers' last due times are past and would spin the pod's worker
            return FOREVER
        resized = self.resize.next_at()
        return min(self._next_container_at(), at, FOREVER if resized is None else resized)

    def _next_container_at(self) -> float:
        times = [c.next_at for c in self.ephemeral]
        for container in self.init:
            times.append(container.next_at)
            if not container.done:
                return min(times)
        times += [c.next_at for c in self.app]
        return min(times) if times else FOREVER

    def config_blocked(self) -> bool:
        """Waiting on a Secret/ConfigMap: worth re-checking as soon as one changes."""
        return not self.mounted or any(
            c.reason == "CreateContainerConfigError" for c in self.containers()
        )

    # status ----------------------------------------------------------------------------
    def _init_failed(self) -> bool:
        statuses = {c.name: c.status(FOREVER) for c in self.init}
        spec = self.obj["spec"]
        return podstatus.phase(spec, statuses, {}, False) == "Failed"

    def status(self, now: float, current: dict) -> dict:
        """generateAPIPodStatus (kubelet_pods.go): container statuses as last seen, the
        phase from them (podstatus.phase), the conditions of status/generate.go."""
        if self.rejected:
            return self._rejected_status(now, current)
        spec = self.obj["spec"]
        default = "PodInitializing" if self.init else "ContainerCreating"  # KP:2499-2501
        init = {c.name: c.status(now, default) for c in self.init}
        app = {c.name: c.status(now, default) for c in self.app}
        initialized = self.mounted and all(c.done for c in self.init)
        phase = self.last_phase if self.terminal else podstatus.phase(spec, init, app, initialized)
        if not self.mounted:
            phase = "Pending"
        self.last_phase = phase
        generation = self.obj["metadata"].get("generation")
        conditions = {c["type"]: c for c in current.get("conditions") or []}

        def put(entry: dict) -> None:
            old = conditions.get(entry["type"])
            changed = not old or old.get("status") != entry["status"]
            entry = {
                "type": entry["type"],
                "observedGeneration": generation,
                "status": entry["status"],
                "lastProbeTime": None,
                "lastTransitionTime": ts(now) if changed else old["lastTransitionTime"],
                **{k: entry[k] for k in ("reason", "message") if k in entry},
            }
            if generation is None:
                del entry["observedGeneration"]
            conditions[entry["type"]] = entry

        if self.evicted and self.disruption and "DisruptionTarget" not in conditions:
            put(disruption_condition(self.evicted))
        put({"type": "PodReadyToStartContainers", "status": "True" if self.mounted else "False"})
        put(podstatus.initialized(spec, init, app, phase))
        ready = podstatus.containers_ready(spec, init, app, phase)
        put(podstatus.pod_ready(spec, ready, conditions))
        put(ready)
        for kind in ("PodResizePending", "PodResizeInProgress"):
            conditions.pop(kind, None)  # kubelet-owned: only what the kubelet holds now
        for c in self.resize.conditions() if not self.terminal else []:
            conditions[c["type"]] = c  # kubelet_pods.go:1964-1975, before the others
        for c in [*init.values(), *app.values()]:
            if "containerID" in c:
                c.update(self.resize.container_fields(c["name"], "running" in c["state"]))
        order = [
            "PodResizePending",
            "PodResizeInProgress",
            "DisruptionTarget",  # copied in before the generated ones (kubelet_pods.go:1982)
            "PodReadyToStartContainers",
            "Initialized",
            "Ready",
            "ContainersReady",
            "PodScheduled",
        ]
        status = {
            "observedGeneration": generation,
            "phase": phase,
            "conditions": sorted(
                conditions.values(),
                key=lambda c: order.index(c["type"]) if c["type"] in order else 9,
            ),
            # generateAPIPodStatus (kubelet_pods.go:2005-2022): the node's IPs
            "hostIP": self.host_ip or current.get("hostIP"),
            "hostIPs": [{"ip": self.host_ip}] if self.host_ip else current.get("hostIPs"),
            "startTime": current.get("startTime") or ts(self.created or now),
            "containerStatuses": list(app.values()),
            "qosClass": current.get("qosClass"),
        }
        if generation is None:
            del status["observedGeneration"]
        if self.evicted:  # evictPod's status function (eviction_manager.go:622-630)
            status["reason"], status["message"] = "Evicted", self.evicted
        if self.deadline_exceeded:
            status["reason"] = "DeadlineExceeded"
            status["message"] = "Pod was active on the node longer than the specified deadline"
        if self.init:
            status["initContainerStatuses"] = list(init.values())
        if self.ephemeral:
            status["ephemeralContainerStatuses"] = [
                ephemeral.status(c, now, default) for c in self.ephemeral
            ]
        if self.mounted:
            status["podIP"] = self.ip
            status["podIPs"] = [{"ip": self.ip}]
        return status

    def _rejected_status(self, now: float, current: dict) -> dict:
        """rejectPod's status (kubelet.go:2592-2596) through the status manager: startTime
        set once (status_manager.go:895-901), observedGeneration the pod's generation
        (:479), only the conditions the kubelet does not own kept (:1359-1366)."""
        assert self.rejected is not None
        status = {
            "observedGeneration": self.obj["metadata"].get("generation"),
            "phase": "Failed",
            "reason": self.rejected.reason,
            "message": self.rejected.status_message,
            "qosClass": current.get("qosClass"),
            "startTime": current.get("startTime") or ts(self.created or now),
            "conditions": [
                c for c in current.get("conditions") or [] if c["type"] not in _KUBELET_OWNED
            ],
        }
        return {k: v for k, v in status.items() if v is not None}


# pkg/kubelet/types/pod_status.go:26-33 PodConditionsByKubelet
_KUBELET_OWNED = (
    "PodScheduled",
    "Ready",
    "Initialized",
    "ContainersReady",
    "PodResizeInProgress",
    "PodResizePending",
)
