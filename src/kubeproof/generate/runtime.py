"""Runtime truth (S4, live): the verdicts of PodsReady, ServiceEndpoints and PolicyPaths from
the objects the controllers and the simulated nodes wrote (pods, EndpointSlices, the
workload's status), as plain dicts. Each verdict comes with how far it is settled, so the
live judge (live/runtime.py) knows whether waiting longer could change it. No cluster here:
the reasons are tested on recorded objects (docs/generate.md, Runtime truth)."""

from enum import StrEnum

from kubeproof.generate.checks import Verdict
from kubeproof.generate.model import NetworkPath, PodGroup, PodsReady, PolicyPaths, ServiceEndpoints
from kubeproof.netsim import Network
from kubeproof.netsim.objects import Pod

# A container waiting for one of these will not start while the judge waits: the image does
# not exist in the simulated registry (the kubelet retries the pull with back-off, each try
# failing alike), its spec cannot be run, or it keeps exiting. Reasons as the kubelet writes
# them (pkg/kubelet/images/types.go, pkg/kubelet/container/sync_result.go).
STUCK = {
    "ErrImagePull",
    "ImagePullBackOff",
    "InvalidImageName",
    "ErrImageNeverPull",
    "CrashLoopBackOff",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
}
SHOWN = 2  # pods named in a reason
MESSAGE = 100  # characters of a pod's message in a reason


class Progress(StrEnum):
    """done: the verdict is final. waiting: what it depends on is still coming (pods being
    made, pulled, started). settling: what it depends on is there; only a controller's lag
    (the EndpointSlice controller's) could still change it."""

    done = "done"
    waiting = "waiting"
    settling = "settling"


def _meta(obj: dict) -> dict:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _live(pods: list[dict]) -> list[dict]:
    return [p for p in pods if not _meta(p).get("deletionTimestamp")]


def ready(pod: dict) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def selects(selector: dict, pod: dict) -> bool:
    labels = _meta(pod).get("labels") or {}
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MESSAGE else text[: MESSAGE - 3] + "..."


def why_not_ready(pod: dict) -> tuple[str, bool]:
    """What keeps a pod from Ready, as `kubectl get pods` and `describe` would show it, and
    whether it is stuck (waiting longer will not help)."""
    status = pod.get("status") or {}
    for c in status.get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "False":
            # no node fits, and the judge clusters' nodes are fixed: stuck, unless it lacks
            # room that pods still stopping (an earlier task's) will free
            message = c.get("message") or ""
            stuck = c.get("reason") == "Unschedulable" and "Insufficient" not in message
            return f"Pending ({c.get('reason')}: {_short(message)})", stuck
    for cs in status.get("containerStatuses") or []:
        state = cs.get("state") or {}
        if state.get("waiting"):
            waiting = state["waiting"]
            reason = waiting.get("reason") or "Waiting"
            message = waiting.get("message")
            return (f"{reason} ({_short(message)})" if message else reason), reason in STUCK
        if state.get("terminated"):
            return f"Terminated ({state['terminated'].get('reason') or 'exited'})", False
        if not cs.get("ready"):
            return f"{cs.get('name')} running, not ready (readiness probe)", False
    return status.get("phase") or "Pending", False


def pods_verdict(
    check: PodsReady, workload: dict | None, pods: list[dict]
) -> tuple[Verdict, Progress]:
    """`pods`: the namespace's pods. A Job counts Succeeded completions from its status; any
    other workload counts Ready pods its selector picks."""
    name = f"{check.target.kind} {check.target.name}"
    if workload is None:
        return Verdict(passed=False, reason=f"no {name}"), Progress.done
    selector = ((workload.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    mine = [p for p in _live(pods) if selects(selector, p)]
    if check.target.kind == "Job":
        return _job_verdict(check, workload, mine)
    good = [p for p in mine if ready(p)]
    if len(good) >= check.count:
        return Verdict(passed=True, reason=f"{len(good)} of {check.count} pods Ready"), (
            Progress.done
        )
    problems = [(p, *why_not_ready(p)) for p in mine if not ready(p)]
    shown = "; ".join(f"{_meta(p).get('name')} {why}" for p, why, _ in problems[:SHOWN])
    more = f" (+{len(problems) - SHOWN} more)" if len(problems) > SHOWN else ""
    if not mine:
        shown = "no pods made yet"
    reason = f"{len(good)} of {check.count} pods Ready: {shown}{more}"
    stuck = bool(problems) and all(s for _, _, s in problems)
    return Verdict(passed=False, reason=reason), Progress.done if stuck else Progress.waiting


def _job_verdict(check: PodsReady, job: dict, pods: list[dict]) -> tuple[Verdict, Progress]:
    status = job.get("status") or {}
    done = int(status.get("succeeded") or 0)
    if done >= check.count:
        return Verdict(passed=True, reason=f"{done} of {check.count} completions"), Progress.done
    for c in status.get("conditions") or []:
        if c.get("type") == "Failed" and c.get("status") == "True":
            why = f"{c.get('reason')}: {_short(c.get('message') or '')}"
            reason = f"{done} of {check.count} completions: the Job failed ({why})"
            return Verdict(passed=False, reason=reason), Progress.done
    running = [p for p in pods if (p.get("status") or {}).get("phase") != "Succeeded"]
    problems = [(p, *why_not_ready(p)) for p in running]
    shown = "; ".join(f"{_meta(p).get('name')} {why}" for p, why, _ in problems[:SHOWN])
    reason = f"{done} of {check.count} completions" + (f": {shown}" if shown else "")
    stuck = bool(problems) and all(s for _, _, s in problems)
    return Verdict(passed=False, reason=reason), Progress.done if stuck else Progress.waiting


def _port_name(service: dict, port: int) -> str | None:
    """The name of the Service's entry for `port` ('' when unnamed); None if it has none."""
    for entry in (service.get("spec") or {}).get("ports") or []:
        if entry.get("port") == port:
            return entry.get("name") or ""
    return None


def endpoints_verdict(
    check: ServiceEndpoints,
    service: dict | None,
    slices: list[dict],
    pods: list[dict],
    backing_ready: bool,
) -> tuple[Verdict, Progress]:
    """`slices`: the Service's EndpointSlices; `pods`: the namespace's pods;
    `backing_ready`: the workload meant to back it has all its pods Ready (True if none is
    named)."""
    if service is None:
        return Verdict(passed=False, reason=f"no Service {check.target.name}"), Progress.done
    name = _port_name(service, check.port)
    if name is None:
        ports = [e.get("port") for e in (service.get("spec") or {}).get("ports") or []]
        reason = f"the Service has no port {check.port} (has {ports})"
        return Verdict(passed=False, reason=reason), Progress.done
    on_port, elsewhere = 0, set()
    for s in slices:
        numbers = [p.get("port") for p in s.get("ports") or [] if (p.get("name") or "") == name]
        for ep in s.get("endpoints") or []:
            if (ep.get("conditions") or {}).get("ready") is False:
                continue  # nil means ready (discovery/v1 EndpointConditions)
            for number in numbers:
                if number == check.target_port:
                    on_port += 1
                else:
                    elsewhere.add(number)
    if on_port >= check.count:
        reason = f"{on_port} ready endpoints on port {check.target_port}"
        return Verdict(passed=True, reason=reason), Progress.done
    selector = (service.get("spec") or {}).get("selector") or {}
    live = _live(pods)
    chosen = [p for p in live if selects(selector, p)]
    detail = f"on port {sorted(elsewhere)}, want {check.target_port}" if elsewhere else ""
    if not selector:
        detail = "the Service has no selector"
    elif not chosen:
        # what the pods carry of the selector's keys (not the controllers' own labels)
        carried = [_meta(p).get("labels") or {} for p in live]
        others = sorted({_pairs({k: v for k, v in c.items() if k in selector}) for c in carried})
        others = [o or "none of its labels" for o in others]
        here = f" (pods here: {', '.join(others[:3])})" if others else ""
        detail = f"its selector {_pairs(selector)} selects no pod{here}"
    elif not any(ready(p) for p in chosen):
        detail = detail or f"none of the {len(chosen)} pods it selects is Ready"
    reason = f"{on_port} of {check.count} ready endpoints on port {check.target_port}" + (
        f": {detail}" if detail else ""
    )
    return Verdict(passed=False, reason=reason), (
        Progress.settling if backing_ready else Progress.waiting
    )


def _pairs(labels: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def _group(net: Network, group: PodGroup) -> list[Pod]:
    found = [
        p
        for p in net.objects.pods.values()
        if p.namespace == group.namespace
        and p.ip
        and p.ready
        and not p.terminating
        and all(p.labels.get(k) == v for k, v in group.labels.items())
    ]
    return sorted(found, key=lambda p: p.name)


def _show(path: NetworkPath) -> str:
    return (
        f"{_pairs(path.source.labels)} -> {_pairs(path.destination.labels)}"
        f":{path.port}/{path.protocol}"
    )


def paths_verdict(check: PolicyPaths, objects: list[dict]) -> tuple[Verdict, Progress]:
    """Each path from the first Ready pod of its source to every Ready pod of its
    destination, through netsim over `objects` (the live Namespaces, Pods, Services,
    EndpointSlices and NetworkPolicies): open when every destination pod is reached."""
    net = Network.from_objects(objects)
    wrong = []
    for path in check.paths:
        sources, targets = _group(net, path.source), _group(net, path.destination)
        if not sources or not targets:
            missing = path.source if not sources else path.destination
            reason = f"no Ready pod {_pairs(missing.labels)} in {missing.namespace} yet"
            return Verdict(passed=False, reason=reason), Progress.waiting
        src = sources[0]
        verdicts = [
            net.connect(src, f"{dst.ip}:{path.port}/{path.protocol}")
            for dst in targets
            if dst.key != src.key
        ]
        opened = bool(verdicts) and all(v.allowed for v in verdicts)
        if opened != path.allowed:
            decisive = next((v for v in verdicts if v.allowed != path.allowed), verdicts[0])
            step = decisive.steps[-1] if decisive.steps else decisive.reason
            state = "open" if opened else "closed"
            want = "open" if path.allowed else "closed"
            wrong.append(f"{_show(path)} {state}, want {want} ({step})")
    total = len(check.paths)
    if wrong:
        reason = f"{total - len(wrong)} of {total} paths as intended: " + "; ".join(wrong[:SHOWN])
        return Verdict(passed=False, reason=reason), Progress.done
    return Verdict(passed=True, reason=f"{total} of {total} paths as intended"), Progress.done
