"""Health watched through the agent's turn, not looked at now and then.

Real Kubernetes watches on Deployments, StatefulSets, DaemonSets, Services and EndpointSlices
run in a thread from the baseline until the verifier has settled. Every change the apiserver
reports recomputes the health of what it touches, so an outage of something that was healthy
at baseline is recorded with its start, end and worst value however short it was and however
the agent batched its commands.

Down means what `safety.health()` / `collateral()` mean by it, event by event:

- a Service has no ready endpoints (or lost its selector, or is gone);
- a workload has fewer available replicas than at baseline, less what its owner declared
  may be unavailable: its own rolling-update strategy at baseline (a Deployment's
  `maxUnavailable`, 25% of its replicas rounded down by default, so 0 for up to three
  replicas; a StatefulSet's or DaemonSet's, 1 by default) or, if it allows more, the
  PodDisruptionBudgets over its pods (a drain may take what they allow) — and always when
  none is available or it is gone.

A watch resumes from the last resourceVersion it saw; when the apiserver answers that it is
too old (410) the kind is listed again and the gap is noted.
"""

import asyncio
import contextlib
import fnmatch
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightkube import ALL_NS, AsyncClient
from lightkube.config.kubeconfig import KubeConfig
from lightkube.resources.apps_v1 import DaemonSet, Deployment, StatefulSet
from lightkube.resources.core_v1 import Service
from lightkube.resources.discovery_v1 import EndpointSlice
from lightkube.resources.policy_v1 import PodDisruptionBudget
from lightkube.types import OnErrorAction, OnErrorResult

from kubeproof.cluster.decoders import prepare_for_threads
from kubeproof.netsim.selectors import matches

KINDS = {
    "Deployment": Deployment,
    "StatefulSet": StatefulSet,
    "DaemonSet": DaemonSet,
    "Service": Service,
    "EndpointSlice": EndpointSlice,
}
WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet")
SERVICE_LABEL = "kubernetes.io/service-name"


@dataclass
class Outage:
    """One stretch of time something healthy at baseline was down."""

    key: str  # Kind/namespace/name
    had: int  # available replicas or ready endpoints at baseline
    start: float  # epoch seconds, when the change that took it down was seen
    worst: int  # the lowest value seen while down
    end: float | None = None  # None: down now
    gone: bool = False  # the object itself was deleted
    ongoing: bool = False  # still down when the watch stopped (`end` is then that moment)

    def duration(self, now: float | None = None) -> float:
        end = self.end if self.end is not None else (now or time.time())
        return max(end - self.start, 0.0)

    def overlaps(self, start: float, end: float) -> bool:
        return self.start <= end and (self.end is None or self.end >= start)

    def describe(self, origin: float, now: float | None = None) -> str:
        if self.key.startswith("Service/"):
            what = f"no ready endpoints (had {self.had})"
        else:
            what = f"down to {self.worst} available (had {self.had})"
        if self.gone:
            what += ", deleted"
        lasted = f"for {self.duration(now):.2f} s"
        if self.ongoing or self.end is None:
            lasted += " (still down)"
        return f"{self.key}: {what} {lasted} from +{self.start - origin:.2f} s"

    def to_dict(self, origin: float) -> dict:
        return {
            "key": self.key,
            "had": self.had,
            "worst": self.worst,
            "start": round(self.start - origin, 3),
            "end": None if self.end is None else round(self.end - origin, 3),
            "seconds": round(self.duration(), 3),
            "gone": self.gone,
            "ongoing": self.ongoing,
        }


def _scaled(value: Any, total: int, round_up: bool) -> int:
    """An int-or-percent field (`maxUnavailable`) resolved against a replica count."""
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text.endswith("%"):
        share = int(text[:-1]) * total
        return -(-share // 100) if round_up else share // 100
    return int(text) if text.isdigit() else 0


def allowance(kind: str, obj: Any) -> int:
    """How many replicas the workload's own update strategy lets be unavailable."""
    spec = obj.spec
    if kind == "Deployment":
        strategy = spec.strategy
        if strategy is not None and strategy.type == "Recreate":
            return 0
        rolling = strategy.rollingUpdate if strategy is not None else None
        limit = rolling.maxUnavailable if rolling and rolling.maxUnavailable is not None else "25%"
        replicas = spec.replicas if spec.replicas is not None else 1
        return _scaled(limit, replicas, round_up=False)
    strategy = spec.updateStrategy
    if strategy is not None and strategy.type == "OnDelete":
        return 0
    rolling = strategy.rollingUpdate if strategy is not None else None
    limit = getattr(rolling, "maxUnavailable", None) if rolling else None
    if limit is None:
        return 1
    if kind == "DaemonSet":
        return _scaled(limit, obj.status.desiredNumberScheduled or 0, round_up=True)
    return _scaled(limit, spec.replicas if spec.replicas is not None else 1, round_up=False)


def budget(budgets: list[dict], obj: Any, replicas: int) -> int:
    """How many of the workload's pods its PodDisruptionBudgets let be unavailable (the
    strictest of those selecting its pods; 0 without one)."""
    labels = (obj.spec.template.metadata.labels or {}) if obj.spec.template.metadata else {}
    allowed = []
    for pdb in budgets:
        spec = pdb.get("spec") or {}
        if pdb["metadata"].get("namespace") != obj.metadata.namespace:
            continue
        if not matches(spec.get("selector"), labels):
            continue
        if spec.get("maxUnavailable") is not None:
            allowed.append(_scaled(spec["maxUnavailable"], replicas, round_up=True))
        elif spec.get("minAvailable") is not None:
            allowed.append(replicas - _scaled(spec["minAvailable"], replicas, round_up=True))
    return max(min(allowed), 0) if allowed else 0


def available(kind: str, obj: Any) -> int:
    """Available (ready, for StatefulSets) replicas now; 0 once it is being deleted."""
    if obj.metadata.deletionTimestamp is not None or obj.status is None:
        return 0
    if kind == "Deployment":
        return obj.status.availableReplicas or 0
    if kind == "StatefulSet":
        return obj.status.readyReplicas or 0
    return obj.status.numberAvailable or 0


def ready_endpoints(obj: Any) -> int:
    if not obj.ports:
        return 0
    return sum(
        1 for e in obj.endpoints or [] if e.conditions is None or e.conditions.ready is not False
    )


class HealthWatch:
    """Watches health from `start()` to `stop()` and records every outage of what
    `baseline` (from `safety.health()`) says was healthy."""

    def __init__(
        self,
        config: KubeConfig | Path,  # admin credentials (a kubeconfig file or loaded)
        baseline: dict[str, int],
        allowed_deletions: tuple[str, ...] = (),
    ):
        self.config = KubeConfig.from_file(config) if isinstance(config, Path) else config
        self.baseline = {
            k: v
            for k, v in baseline.items()
            if not any(fnmatch.fnmatchcase(k, p) for p in allowed_deletions)
        }
        self.outages: list[Outage] = []
        self.gaps: list[tuple[str, float, float]] = []  # kind, from, to: a relist after 410
        self.started: float | None = None
        self.stopped: float | None = None
        self.events = 0
        self._lock = threading.Lock()
        self._open: dict[str, Outage] = {}
        self._workloads: dict[str, int] = {}  # key -> available now
        self._threshold: dict[str, int] = {}  # key -> fewest available that is not down
        self._services: dict[str, bool] = {}  # key -> has a selector
        self._slices: dict[str, tuple[str, int]] = {}  # slice key -> (service key, ready)
        self._budgets: list[dict] = []  # PodDisruptionBudgets at the start
        self._synced = threading.Event()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> "HealthWatch":
        """Start watching; returns once every kind is listed and watched."""
        prepare_for_threads()
        self._thread = threading.Thread(target=self._run, name="health-watch", daemon=True)
        self._thread.start()
        if not self._synced.wait(timeout) or self._error is not None:
            error = self._error
            self.stop()
            raise RuntimeError(f"the health watch did not start: {error or 'timed out'}")
        return self

    def stop(self) -> None:
        """Stop the watches and close their connections; outages still open end now.
        Idempotent."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(task.cancel)
        thread.join(15)
        now = time.time()
        with self._lock:
            self.stopped = now
            for outage in self._open.values():
                outage.end, outage.ongoing = now, True
            self._open.clear()

    def __enter__(self) -> "HealthWatch":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        finally:
            loop.close()

    async def _main(self) -> None:
        self._task = asyncio.current_task()
        client = AsyncClient(self.config, trust_env=False)
        listed = _Countdown(len(KINDS), self._first_evaluation)
        try:
            budgets = client.list(PodDisruptionBudget, namespace=ALL_NS)
            self._budgets = [pdb.to_dict() async for pdb in budgets]
            async with asyncio.TaskGroup() as group:  # one failing cancels the others
                for kind in KINDS:
                    group.create_task(self._follow(client, kind, listed))
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # reported by start(), or by `error` once running
            self._error = exc
        finally:
            self._synced.set()
            await client.close()

    # -- watching --------------------------------------------------------------------------

    async def _follow(self, client: AsyncClient, kind: str, listed: "_Countdown") -> None:
        resource = KINDS[kind]
        version = await self._relist(client, kind)
        await listed.done()
        while True:
            expired = False

            def on_error(exc: Exception, count: int) -> OnErrorResult:
                nonlocal expired
                status = getattr(getattr(exc, "status", None), "code", None)
                response = getattr(exc, "response", None)
                if status == 410 or getattr(response, "status_code", None) == 410:
                    expired = True
                    return OnErrorResult(OnErrorAction.STOP)
                return OnErrorResult(OnErrorAction.RETRY, sleep=min(0.1 * count, 2.0))

            async for op, obj in client.watch(
                resource, namespace=ALL_NS, resource_version=version, on_error=on_error
            ):
                version = obj.metadata.resourceVersion or version
                self._seen(kind, op, obj, time.time())
            if not expired:  # the iterator only ends on a 410
                continue
            lost = time.time()
            version = await self._relist(client, kind)
            self.gaps.append((kind, lost, time.time()))

    async def _relist(self, client: AsyncClient, kind: str) -> str | None:
        listing = client.list(KINDS[kind], namespace=ALL_NS)
        objects = [obj async for obj in listing]
        with self._lock:
            for key in list(self._state(kind)):
                self._forget(kind, key)
            for obj in objects:
                self._store(kind, obj)
            if self._synced.is_set():
                self._evaluate(time.time())
        return listing.resourceVersion

    def _first_evaluation(self) -> None:
        now = time.time()
        with self._lock:
            self.started = now
            self._evaluate(now)
        self._synced.set()

    # -- state -----------------------------------------------------------------------------

    def _state(self, kind: str) -> dict:
        if kind in WORKLOADS:
            return {k: v for k, v in self._workloads.items() if k.startswith(f"{kind}/")}
        return self._services if kind == "Service" else self._slices

    def _forget(self, kind: str, key: str) -> None:
        if kind in WORKLOADS:
            self._workloads.pop(key, None)
        elif kind == "Service":
            self._services.pop(key, None)
        else:
            self._slices.pop(key, None)

    def _store(self, kind: str, obj: Any) -> list[str]:
        """Keep what health needs from one object; the baseline keys it touches."""
        meta = obj.metadata
        key = f"{kind}/{meta.namespace}/{meta.name}"
        if kind in WORKLOADS:
            self._workloads[key] = available(kind, obj)
            if key in self.baseline and key not in self._threshold:
                had = self.baseline[key]
                allowed = max(allowance(kind, obj), budget(self._budgets, obj, had))
                self._threshold[key] = max(1, had - allowed)
            return [key]
        if kind == "Service":
            gone = meta.deletionTimestamp is not None
            self._services[key] = bool(obj.spec.selector) and not gone
            return [key]
        before = self._slices.get(key)
        service = (meta.labels or {}).get(SERVICE_LABEL)
        touched = [before[0]] if before else []
        if service:
            self._slices[key] = (f"Service/{meta.namespace}/{service}", ready_endpoints(obj))
            touched.append(f"Service/{meta.namespace}/{service}")
        else:
            self._slices.pop(key, None)
        return touched

    def _seen(self, kind: str, op: str, obj: Any, now: float) -> None:
        with self._lock:
            self.events += 1
            meta = obj.metadata
            deleted = f"{kind}/{meta.namespace}/{meta.name}" if op == "DELETED" else None
            if deleted:
                before = self._slices.get(deleted) if kind == "EndpointSlice" else None
                self._forget(kind, deleted)
                touched = [before[0]] if before else [] if kind == "EndpointSlice" else [deleted]
            else:
                touched = self._store(kind, obj)
            for key in touched:
                if key in self.baseline:
                    outage = self._update(key, now)
                    if outage is not None and key == deleted:
                        outage.gone = True

    def _value(self, key: str) -> tuple[int, bool]:
        """The value now, and whether that is down."""
        if key.startswith("Service/"):
            if not self._services.get(key):
                return 0, True
            ready = sum(n for service, n in self._slices.values() if service == key)
            return ready, ready == 0
        value = self._workloads.get(key, 0)
        return value, value < self._threshold.get(key, self.baseline[key])

    def _update(self, key: str, now: float) -> Outage | None:
        """Open, extend or close the key's outage; the one open after this."""
        value, down = self._value(key)
        outage = self._open.get(key)
        if down and outage is None:
            outage = Outage(key, self.baseline[key], now, value)
            self._open[key] = outage
            self.outages.append(outage)
        elif down:
            outage.worst = min(outage.worst, value)
        elif outage is not None:
            outage.end = now
            del self._open[key]
            return None
        return outage

    def _evaluate(self, now: float) -> None:
        for key in self.baseline:
            self._update(key, now)

    # -- reading ---------------------------------------------------------------------------

    @property
    def error(self) -> BaseException | None:
        """Why the watch ended early, if it did (a harness failure, not the agent's)."""
        return self._error

    def snapshot(self) -> list[Outage]:
        """The outages so far (copies, so they do not change under the caller)."""
        with self._lock:
            return [Outage(**vars(o)) for o in self.outages]


class _Countdown:
    """Calls `then` once `n` coroutines have called `done()`; each waits for that."""

    def __init__(self, n: int, then) -> None:
        self.left, self.then = n, then
        self.event = asyncio.Event()

    async def done(self) -> None:
        self.left -= 1
        if self.left == 0:
            self.then()
            self.event.set()
        await self.event.wait()
