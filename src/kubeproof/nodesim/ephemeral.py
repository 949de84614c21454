"""Ephemeral containers (`kubectl debug POD --image=...`), added to a running pod through its
pods/ephemeralcontainers subresource and started by the kubelet like any container.

Upstream (k8s.io/kubernetes v1.36.3, pkg/kubelet):
- kuberuntime/kuberuntime_manager.go:1266-1274 computePodActions: each ephemeral container
  with no status yet is started, even before initialization completes; "Ephemeral
  Containers are never restarted".
- kuberuntime_manager.go:1743-1749 SyncPod step 6: started (pull, create, start: the same
  Pulling/Pulled/Created/Started events) before the init containers of that sync.
- container/ref.go:68-74: events name the field `spec.ephemeralContainers{NAME}`.
- kubelet_pods.go:2139-2155: status.ephemeralContainerStatuses by
  convertToAPIContainerStatuses, as for the others; prober/prober_manager.go:332-380
  UpdatePodStatus sets `started` and `ready` only for containers and init containers, so
  an ephemeral container's status has no `started` and is never ready.
- An ephemeral container does not count for the pod's phase or readiness (podutil phase and
  conditions read spec.containers and spec.initContainers only)."""

from kubeproof.nodesim.container import Container
from kubeproof.nodesim.timing import Timing


def new_containers(pod: dict, known: set[str], timing: Timing) -> list[Container]:
    """Containers for the ephemeral containers of `pod` the kubelet has not started yet."""
    out = []
    for spec in pod["spec"].get("ephemeralContainers") or []:
        name = spec.get("name")
        if not name or name in known:
            continue
        # never restarted: read as restartPolicy Never by the container's restart decision
        # (validation forbids the field on an ephemeral container, so nothing is lost)
        never = {**spec, "restartPolicy": "Never"}
        out.append(Container(never, f"spec.ephemeralContainers{{{name}}}", timing=timing))
    return out


def status(container: Container, now: float, default_waiting: str) -> dict:
    """Its entry in status.ephemeralContainerStatuses: no `started`, never ready."""
    out = container.status(now, default_waiting)
    out.pop("started", None)
    out["ready"] = False
    return out
