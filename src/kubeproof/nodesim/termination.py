"""How a container stops when the kubelet kills it: killContainer
(pkg/kubelet/kuberuntime/kuberuntime_container.go:861-930) — the `Killing` event, the preStop
hook (whose time counts against the grace period, :781-806), SIGTERM, and SIGKILL when the
grace period runs out — and the grace period itself (setTerminationGracePeriod, :1434-1452;
at least minimumGracePeriodInSeconds, kuberuntime_manager.go:84).

A process leaves on SIGTERM after its model's `stopSeconds` and exits 0; a shell or `sleep`
running as PID 1 has no handler and PID 1 ignores signals it does not handle, so it is
killed at the end of the grace period (exit 137)."""

import re
from dataclasses import dataclass

from kubeproof.nodesim.catalog import ImageModel
from kubeproof.nodesim.timing import DEFAULT_GRACE, MINIMUM_GRACE, Timing

_SLEEP = re.compile(r"(?:^|[;&|\s])sleep\s+(\d+(?:\.\d+)?)")


@dataclass(frozen=True)
class Stop:
    seconds: float  # from the kill until the process is gone
    exit_code: int
    reason: str  # the terminated state's reason


def grace_period(pod: dict, timing: Timing, override: float | None = None) -> float:
    """The kill's gracePeriodOverride (an eviction's, kuberuntime_container.go:886-887), else
    the pod's deletion grace period, else its terminationGracePeriodSeconds (30 s)."""
    meta, spec = pod["metadata"], pod["spec"]
    grace = override if override is not None else meta.get("deletionGracePeriodSeconds")
    if grace is None:
        grace = spec.get("terminationGracePeriodSeconds", DEFAULT_GRACE)
    return timing(max(float(grace), MINIMUM_GRACE))


def pre_stop_seconds(container: dict, timing: Timing) -> float:
    """The preStop hook's duration: a `sleep` action, or an exec hook that sleeps."""
    hook = (container.get("lifecycle") or {}).get("preStop") or {}
    if "sleep" in hook:
        return timing(float(hook["sleep"].get("seconds", 0)))
    command = " ".join((hook.get("exec") or {}).get("command") or [])
    found = _SLEEP.search(command)
    return timing(float(found.group(1))) if found else 0.0


def ignores_sigterm(container: dict, model: ImageModel | None) -> bool:
    """PID 1 without a SIGTERM handler: the shell-interpreting images (busybox, alpine …)."""
    return model is None or model.shell


def stop(container: dict, model: ImageModel | None, grace: float, timing: Timing) -> Stop:
    hook = min(pre_stop_seconds(container, timing), grace)
    left = grace - hook
    if left <= 0 or ignores_sigterm(container, model):
        return Stop(grace, 137, "Error")
    seconds = timing(model.stop_seconds) if model else 0.0
    if seconds >= left:
        return Stop(grace, 137, "Error")
    return Stop(hook + seconds, 0, "Completed")
