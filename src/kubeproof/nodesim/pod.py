"""A pod on a simulated node: volumes, init containers, sidecars and app containers in the
kubelet's order, and the pod status (phase, conditions, container statuses) they imply."""

from kubeproof.nodesim.catalog import Catalog
from kubeproof.nodesim.config import World, volume_error
from kubeproof.nodesim.container import Container, Event, ts
from kubeproof.nodesim.process import FOREVER

MOUNT_RETRY_SECONDS = 2.0


class PodRuntime:
    def __init__(self, obj: dict, ip: str, node_images: set[str] | None = None):
        self.obj = obj
        self.ip = ip
        self.node_images = node_images
        self.created = None  # first time the kubelet saw it
        self.mounted = False
        self.mount_retry_at = 0.0
        spec = obj["spec"]
        self.init = [
            Container(
                c,
                f"spec.initContainers{{{c['name']}}}",
                init=True,
                sidecar=c.get("restartPolicy") == "Always",
            )
            for c in spec.get("initContainers") or []
        ]
        self.app = [Container(c, f"spec.containers{{{c['name']}}}") for c in spec["containers"]]

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
        return [*self.init, *self.app]

    # driving ---------------------------------------------------------------------------
    def advance(self, now: float, world: World, catalog: Catalog) -> list[Event]:
        if self.created is None:
            self.created = now
        if not self.mounted:
            if now < self.mount_retry_at:
                return []
            problem = volume_error(self.obj, world)
            if problem:
                self.mount_retry_at = now + MOUNT_RETRY_SECONDS
                return [Event("Warning", "FailedMount", problem[1])]
            self.mounted = True
        events: list[Event] = []
        for container in self.init:
            if container.stage == "pull" and container.next_at == 0.0:
                container.next_at = now
            events += container.advance(now, self, world, catalog)
            if not container.done:
                return events  # init containers run one at a time, in order
        for container in self.app:
            if container.stage == "pull" and container.next_at == 0.0:
                container.next_at = now
            events += container.advance(now, self, world, catalog)
        return events

    def next_at(self) -> float:
        if not self.mounted:
            return self.mount_retry_at
        times = []
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
    def phase(self) -> str:
        app = self.app
        if not self.mounted or not all(c.done for c in self.init):
            return "Pending"
        if any(c.stage == "running" for c in app):
            return "Running"
        if all(c.stage == "exited" for c in app):
            if all(c.exit_code == 0 for c in app):
                if self.restart_policy != "Always":
                    return "Succeeded"
            elif self.restart_policy == "Never":
                return "Failed"
        if any(c.container_id for c in app):
            return "Running"
        return "Pending"

    def status(self, now: float, current: dict) -> dict:
        initialized = self.mounted and all(c.done for c in self.init)
        ready = initialized and all(c.ready and c.stage == "running" for c in self.app)
        phase = self.phase()
        if phase in ("Succeeded", "Failed"):
            ready = False
        conditions = {c["type"]: c for c in current.get("conditions") or []}

        def set_condition(kind: str, value: bool, reason: str | None = None) -> None:
            status = "True" if value else "False"
            old = conditions.get(kind)
            changed = not old or old.get("status") != status
            entry = {
                "type": kind,
                "status": status,
                "lastProbeTime": None,
                "lastTransitionTime": ts(now) if changed else old["lastTransitionTime"],
            }
            if reason and not value:
                entry["reason"] = reason
            conditions[kind] = entry

        set_condition("PodReadyToStartContainers", self.mounted)
        set_condition("Initialized", initialized, "ContainersNotInitialized")
        not_ready = "PodCompleted" if phase in ("Succeeded", "Failed") else "ContainersNotReady"
        set_condition("ContainersReady", ready, not_ready)
        set_condition("Ready", ready, not_ready)
        order = [
            "PodReadyToStartContainers",
            "Initialized",
            "Ready",
            "ContainersReady",
            "PodScheduled",
        ]
        status = {
            "phase": phase,
            "conditions": sorted(
                conditions.values(),
                key=lambda c: order.index(c["type"]) if c["type"] in order else 9,
            ),
            "hostIP": current.get("hostIP"),
            "hostIPs": current.get("hostIPs"),
            "startTime": current.get("startTime") or ts(self.created or now),
            "containerStatuses": [c.status() for c in self.app],
            "qosClass": current.get("qosClass"),
        }
        if self.init:
            status["initContainerStatuses"] = [c.status() for c in self.init]
        if self.mounted:
            status["podIP"] = self.ip
            status["podIPs"] = [{"ip": self.ip}]
        return status
