"""The CPU a container that runs for real (realshell.py) is using, as metrics-server serves
it to `kubectl top` and the HPA controller.

The kubelet gives a cumulative counter, container_cpu_usage_seconds_total, with the
container's start time (pkg/kubelet/metrics/collectors/resource_metrics.go); metrics-server
scrapes it every --metric-resolution (15 s) and keeps two points per container, serving the
rate between them (sigs.k8s.io/metrics-server pkg/storage/pod.go: `prev` and `last`,
resourceUsage: (last.CumulativeCpuUsed - prev.CumulativeCpuUsed) / (last.Timestamp -
prev.Timestamp)). A container seen for the first time has no previous point, unless its
start is between freshContainerMinMetricsResolution (10 s) and a resolution before the
scrape: then its start, at zero, is one. A pod with a container that has no previous point
is left out until it has (GetMetrics) — `kubectl top` shows no row for it, and the HPA
counts it as missing.

Here the counter is the container's control group (limits.CommandGroup.cpu_seconds), which
every process of the container, its `kubectl exec`s and its CGI requests are charged to, and
the scrape is taken by the container's watcher thread (liveproc.py) on the resolution's
ticks of the wall clock.
"""

RESOLUTION = 15.0  # metrics-server --metric-resolution, its default
FRESH_MIN = 10.0  # freshContainerMinMetricsResolution, pkg/storage/pod.go

Point = tuple[float, float]  # (when, CPU seconds used since the container started)


class CpuRate:
    """One container's two last scrapes and the rate between them."""

    def __init__(self, started: float):
        self.started = started
        self.prev: Point | None = None
        self.last: Point | None = None
        self.tick = int(started // RESOLUTION)

    def due(self, now: float) -> bool:
        """Whether a resolution tick has passed since the last scrape (or the start)."""
        return int(now // RESOLUTION) != self.tick

    def scrape(self, now: float, used: float | None) -> None:
        """A scrape at `now` that read `used` (None: the counter could not be read, and the
        scrape is lost, as a failed one is)."""
        self.tick = int(now // RESOLUTION)
        if used is None:
            return
        if self.last is not None and now > self.last[0]:
            self.prev = self.last
        elif self.last is None and FRESH_MIN <= now - self.started < RESOLUTION:
            self.prev = (self.started, 0.0)
        self.last = (now, used)

    def rate(self) -> float | None:
        """CPU cores used between the two points; None until there are two."""
        if self.prev is None or self.last is None or self.last[0] <= self.prev[0]:
            return None
        used = max(0.0, self.last[1] - self.prev[1])  # a counter never goes back
        return used / (self.last[0] - self.prev[0])
