"""How long things take on a simulated node: the kubelet's own periods and back-offs, from
the sources of the Kubernetes version kubeproof builds, and the timing profile that scales
them.

`real` (the default, and the only profile agent results use unless the user asks) is the
kubelet's timing: a crash-looping container backs off 10 s, 20 s, 40 s … 5 min, a deleted
pod takes its grace period. `fast` divides the back-offs, retries, pulls and grace periods by
ten, for quick looks; the PLEG relist stays 1 s (the behaviour models' own run times are not
scaled, so a container that dies at once must still never be seen running). The profile in
use is recorded in the cluster record and in every trial.
"""

from dataclasses import dataclass

from kubeproof.errors import KubeproofError

# pkg/kubelet/kubelet.go:166 (backOffPeriod) and
# pkg/kubelet/apis/config/v1beta1/defaults.go:47 (MaxContainerBackOff)
CONTAINER_BACKOFF_INITIAL = 10.0
CONTAINER_BACKOFF_MAX = 300.0
# pkg/kubelet/kubelet.go:180,228 (imageBackOffPeriod, MaxImageBackOff)
IMAGE_BACKOFF_INITIAL = 10.0
IMAGE_BACKOFF_MAX = 300.0
# the pod worker requeues a pod whose sync failed after backOffPeriod (pkg/kubelet/kubelet.go
# :225, pod_workers.go completeWork): how long ErrImagePull, CreateContainerConfigError and
# InvalidImageName show before the next attempt
SYNC_ERROR_REQUEUE = 10.0
# pkg/kubelet/kubelet.go genericPlegRelistPeriod: container starts and exits are seen at
# the next relist, so a container living well under a second is first seen exited
PLEG_RELIST = 1.0
# a failed volume mount is retried after 0.5 s, doubling to 2 m 2 s (pkg/util/goroutinemap/
# exponentialbackoff/exponential_backoff.go:31,37); the reconciler polls every 100 ms
MOUNT_BACKOFF_INITIAL = 0.5
MOUNT_BACKOFF_MAX = 122.0
# the eviction manager synchronizes every evictionMonitoringPeriod (pkg/kubelet/kubelet.go:197);
# after evicting it waits for the pod to be cleaned up, polling every second for at most 30 s
# (pkg/kubelet/eviction/eviction_manager.go:49-50,211-215), then synchronizes again
EVICTION_MONITORING_PERIOD = 10.0
POD_CLEANUP_TIMEOUT = 30.0
POD_CLEANUP_POLL = 1.0
# volume usage (emptyDir) reaches the eviction manager from the stats cache: the analyzer
# takes a new pod up at its next run, every volumeStatsAggPeriod (pkg/kubelet/apis/config/
# v1beta1/defaults.go:164-165; pkg/kubelet/server/stats/fs_resource_analyzer.go:70,80-83), and
# the pod's calculator measures then and again every 1-2 periods (volume_stat_calculator.go
# :69-74 wait.JitterUntil, jitter factor 1.0, sliding)
VOLUME_STATS_AGG_PERIOD = 60.0
# k8s.io/api/core/v1/types.go:3768 (DefaultTerminationGracePeriodSeconds) and
# pkg/kubelet/kuberuntime/kuberuntime_manager.go:84 (minimumGracePeriodInSeconds)
DEFAULT_GRACE = 30.0
MINIMUM_GRACE = 2.0
# CoreDNS's reload plugin re-reads its Corefile every 30 s, jittered by up to +/-7.5 s (a 15 s
# window) per instance (github.com/coredns/coredns v1.14.2 plugin/reload/setup.go:35-66,86-89);
# `reload INTERVAL JITTER` in the Corefile overrides both (nodesim/corefilereload.py)
RELOAD_INTERVAL = 30.0
RELOAD_JITTER = 15.0
# ingress-nginx's status syncer (an optional addon, nodesim/ingressstatus.py) updates the
# Ingresses' status.loadBalancer when it starts leading and then every UpdateInterval
# (kubernetes/ingress-nginx v1.15.1 internal/ingress/status/status.go:45,104)
INGRESS_STATUS_UPDATE_INTERVAL = 60.0
# local-path-provisioner (an optional addon, nodesim/localpath.py) polls its helper pod every
# second until it succeeds (rancher/local-path-provisioner provisioner.go:819-828, at most
# cmdTimeoutSeconds polls); a failed claim or volume is retried after 15 s, doubling to
# 1000 s (sig-storage-lib-external-provisioner v11 controller.go:686)
LOCAL_PATH_HELPER_POLL = 1.0
LOCAL_PATH_RETRY_BASE = 15.0
# image pulls: containerd's transfer, modelled as a fixed start plus the image's size over a
# typical link (a registry is not on loopback; the first pull on a node is not instant)
PULL_START = 0.4
PULL_BYTES_PER_SECOND = 60 * 1024 * 1024


@dataclass(frozen=True)
class Timing:
    name: str
    scale: float  # every duration above is multiplied by it

    def __call__(self, seconds: float) -> float:
        return seconds * self.scale


REAL = Timing("real", 1.0)
FAST = Timing("fast", 0.1)
PROFILES = {t.name: t for t in (REAL, FAST)}


def profile(name: str) -> Timing:
    try:
        return PROFILES[name]
    except KeyError:
        raise KubeproofError(
            f"unknown timing profile {name!r}", hint=f"profiles: {', '.join(PROFILES)}"
        ) from None


@dataclass
class Backoff:
    """client-go's flowcontrol.Backoff for one key (k8s.io/client-go/util/flowcontrol/
    backoff.go): `next(at)` starts or doubles the delay, capped; an entry not updated for
    twice the cap is forgotten (hasExpired)."""

    initial: float
    cap: float
    delay: float = 0.0
    last_update: float | None = None

    def expired(self, at: float) -> bool:
        return self.last_update is None or at - self.last_update > 2 * self.cap

    def next(self, at: float) -> None:
        self.delay = self.initial if self.expired(at) else min(self.delay * 2, self.cap)
        self.last_update = at

    def in_backoff_since(self, event_time: float, now: float) -> bool:
        """IsInBackOffSince: still within the delay counted from `event_time`."""
        if self.expired(event_time):
            return False
        return now - event_time < self.delay


def go_duration(seconds: float) -> str:
    """Go's time.Duration.String(): `300ms`, `1.5s`, `10s`, `1m20s`, `5m0s`, `1h0m0s`."""
    ns = round(seconds * 1e9)
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size or unit == "ns":
                return sign + _fraction(ns, size) + unit
    hours, rest = divmod(ns, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    text = _fraction(rest, 10**9) + "s"
    if hours or minutes:
        text = f"{minutes}m{text}"
    if hours:
        text = f"{hours}h{text}"
    return sign + text


def _fraction(value: int, unit: int) -> str:
    whole, part = divmod(value, unit)
    if not part:
        return str(whole)
    digits = len(str(unit)) - 1
    return f"{whole}.{str(part).rjust(digits, '0').rstrip('0')}"


def truncate_ms(seconds: float) -> float:
    """Duration.Truncate(time.Millisecond)."""
    return int(seconds * 1000) / 1000
