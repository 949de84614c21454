"""A scenario on a real cluster through stock kubectl: its objects and pod created in a
namespace of its own, the pod watched (`kubectl get pod -o json --watch`) for `until`
seconds, deleted when the scenario says, its kubelet events read (`kubectl get events
--field-selector involvedObject.name=POD`), the namespace removed. Works against any
cluster whose nodes can pull the public images the scenarios use."""

import contextlib
import datetime as dt
import json
import secrets
import subprocess
import threading
import time
from pathlib import Path

from kubeproof.cluster.base import kubectl_binary
from kubeproof.fidelity.judge import Observed, ObservedEvent, Result, judge, live_slack
from kubeproof.fidelity.scenario import Scenario
from kubeproof.nodesim.timing import REAL, Timing

NAMESPACE_LABEL = "kubeproof.dev/fidelity"
CREATE_RETRY_SECONDS = 30.0  # a new namespace's default ServiceAccount may lag
WATCH_READY_SECONDS = 60.0


class LiveError(Exception):
    pass


class Kubectl:
    def __init__(self, kubeconfig: Path, context: str | None = None):
        self.base = [kubectl_binary(), f"--kubeconfig={kubeconfig}"]
        if context:
            self.base.append(f"--context={context}")

    def run(
        self, *args: str, input: str | None = None, check: bool = True, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*self.base, *args], capture_output=True, text=True, input=input, timeout=timeout
        )
        if check and done.returncode != 0:
            raise LiveError(f"kubectl {' '.join(args[:3])}: {done.stderr.strip()}")
        return done


def _time(stamp: str | None) -> float | None:
    if not stamp:
        return None
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


class Watch:
    """`kubectl get pods --field-selector metadata.name=NAME --watch -o json
    --output-watch-events`, started before the pod exists: each status stamped with the
    seconds since the kubelet first acknowledged the pod (its first status with
    `startTime`), the moment a golden run starts its clock."""

    def __init__(self, kubectl: Kubectl, namespace: str, name: str):
        self.start: float | None = None
        self.started_at: float | None = None  # status.startTime, by the cluster's clock
        self.statuses: list[tuple[float, dict]] = []
        self.gone_at: float | None = None
        self.ready = threading.Event()  # the watch is established
        self.proc = subprocess.Popen(
            [*kubectl.base, "get", "pods", "-n", namespace, "--field-selector",
             f"metadata.name={name}", "-o", "json", "--watch", "--output-watch-events", "-v=6"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.threads = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._log, daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    def _log(self) -> None:
        assert self.proc.stderr
        for line in self.proc.stderr:  # -v=6 logs each response: the watch's means ready
            if "watch=true" in line and "200 OK" in line:
                self.ready.set()
        self.ready.set()

    def _read(self) -> None:
        decoder, buffer = json.JSONDecoder(), ""
        assert self.proc.stdout
        for line in self.proc.stdout:
            buffer += line
            while buffer.strip():
                try:
                    item, end = decoder.raw_decode(buffer.lstrip())
                except ValueError:
                    break
                buffer = buffer.lstrip()[end:]
                self._seen(item)

    def since_start(self) -> float:
        return 0.0 if self.start is None else round(time.monotonic() - self.start, 3)

    def _seen(self, item: dict) -> None:
        status = (item.get("object") or {}).get("status") or {}
        if self.start is None:
            if not status.get("startTime"):
                return  # not yet acknowledged by the kubelet: the scheduler's doing
            # the kubelet's first status: where a golden run's clock starts
            self.start, self.started_at = time.monotonic(), _time(status["startTime"])
        at = self.since_start()
        if item.get("type") == "DELETED":
            self.gone_at = at
            return
        if not self.statuses or self.statuses[-1][1] != status:
            self.statuses.append((at, status))

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for thread in self.threads:
            thread.join(timeout=5)


def manifest(s: Scenario, namespace: str) -> dict:
    meta = {**(s.pod.get("metadata") or {}), "name": s.pod_name, "namespace": namespace}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": s.pod["spec"]}


def _objects(s: Scenario, namespace: str) -> list[dict]:
    return [
        {"apiVersion": "v1", **o, "metadata": {**o["metadata"], "namespace": namespace}}
        for o in s.objects
    ]


def _create(kubectl: Kubectl, items: list[dict]) -> dict:
    body = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    deadline = time.monotonic() + CREATE_RETRY_SECONDS
    while True:
        done = kubectl.run("create", "-f", "-", "-o", "json", input=body, check=False)
        if done.returncode == 0:
            return json.loads(done.stdout)
        if "serviceaccount" not in done.stderr or time.monotonic() > deadline:
            raise LiveError(f"kubectl create: {done.stderr.strip()}")
        time.sleep(0.5)


def _events(kubectl: Kubectl, namespace: str, name: str, created: float) -> list[ObservedEvent]:
    done = kubectl.run(
        "get", "events", "-n", namespace, "--field-selector",
        f"involvedObject.name={name},involvedObject.kind=Pod", "-o", "json",
    )  # fmt: skip
    folded: dict[tuple, ObservedEvent] = {}
    for e in json.loads(done.stdout).get("items") or []:
        source = (e.get("source") or {}).get("component") or e.get("reportingComponent")
        if source != "kubelet":
            continue
        first = _time(e.get("firstTimestamp")) or _time(e.get("eventTime")) or created
        path = (e.get("involvedObject") or {}).get("fieldPath")
        key = (e.get("type"), e.get("reason"), e.get("message"), path)
        count = int(e.get("count") or (e.get("series") or {}).get("count") or 1)
        at = round(first - created, 3)
        if key in folded:
            folded[key].count += count
            folded[key].at = min(folded[key].at, at)
        else:
            folded[key] = ObservedEvent(at, *key, count=count)
    return sorted(folded.values(), key=lambda x: x.at)


def observe_live(s: Scenario, kubectl: Kubectl, timing: Timing = REAL) -> Observed:
    namespace = f"kpf-{s.name[:48]}-{secrets.token_hex(3)}"
    kubectl.run("create", "namespace", namespace)
    try:
        kubectl.run("label", "namespace", namespace, f"{NAMESPACE_LABEL}={s.name}")
        if s.objects:
            _create(kubectl, _objects(s, namespace))
        watch = Watch(kubectl, namespace, s.pod_name)
        try:
            if not watch.ready.wait(WATCH_READY_SECONDS):
                raise LiveError("kubectl get --watch did not start")
            created_list = _create(kubectl, [manifest(s, namespace)])
            pod = (created_list.get("items") or [created_list])[0]
            deadline = time.monotonic() + WATCH_READY_SECONDS
            while watch.start is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if watch.start is None:
                raise LiveError("no kubelet acknowledged the pod (no status.startTime)")
            created = watch.started_at or time.time()
            end = timing(s.until) + live_slack(timing(s.until))  # the end's window
            delete_at = None if s.delete_at is None else timing(s.delete_at)
            deleted = False
            updates = sorted(s.updates, key=lambda u: u.at)
            debug = sorted(s.debug, key=lambda d: d.at)
            while watch.since_start() < end and watch.gone_at is None:
                while updates and watch.since_start() >= timing(updates[0].at):
                    obj = updates.pop(0).object
                    body = {"apiVersion": "v1", **obj}
                    body["metadata"] = {**obj["metadata"], "namespace": namespace}
                    kubectl.run("replace", "-f", "-", input=json.dumps(body))
                while debug and watch.since_start() >= timing(debug[0].at):
                    # what `kubectl debug` sends: the pod's ephemeralContainers, one more
                    added = {"spec": {"ephemeralContainers": [debug.pop(0).container]}}
                    kubectl.run(
                        *("patch", "pod", s.pod_name, "-n", namespace),
                        *("--subresource=ephemeralcontainers", "--type=strategic"),
                        "-p",
                        json.dumps(added),
                    )
                if delete_at is not None and not deleted and watch.since_start() >= delete_at:
                    args = ["delete", "pod", s.pod_name, "-n", namespace, "--wait=false"]
                    if s.grace is not None:
                        args.append(f"--grace-period={s.grace}")
                    kubectl.run(*args)
                    deleted = True
                time.sleep(0.1)
        finally:
            watch.stop()
        events = _events(kubectl, namespace, s.pod_name, created)
        logs = {
            c: kubectl.run("logs", s.pod_name, "-c", c, "-n", namespace).stdout.splitlines()
            for c in {want.container for want in s.expect.logs}
        }
        status_ip = next((st.get("podIP") for _, st in reversed(watch.statuses) if st), None)
        return Observed(
            events=events,
            statuses=watch.statuses,
            gone_at=watch.gone_at,
            logs=logs,
            values={
                "pod": s.pod_name,
                "namespace": namespace,
                "uid": pod["metadata"]["uid"],
                "podIP": status_ip or "",
            },
        )
    finally:
        kubectl.run("delete", "namespace", namespace, "--wait=false", check=False)


def run_live(s: Scenario, kubectl: Kubectl, timing: Timing = REAL) -> Result:
    if not s.live:
        return Result(s.name, s.source, "live", skipped="golden only (live: false)")
    try:
        observed = observe_live(s, kubectl, timing)
    except (LiveError, subprocess.TimeoutExpired, OSError, ValueError, KeyError) as exc:
        return Result(s.name, s.source, "live", error=str(exc))
    return judge(s, observed, live=True, timing=timing)
