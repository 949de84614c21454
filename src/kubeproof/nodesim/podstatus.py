"""A pod's phase and conditions from its container statuses, as the kubelet computes them:
`getPhase` in pkg/kubelet/kubelet_pods.go:1653 (with ContainerRestartRules, beta and on by
default since 1.35) and the generators of pkg/kubelet/status/generate.go. Pure functions of
the API objects, so golden tests pin them without a cluster."""


def _restartable_init(container: dict) -> bool:
    return container.get("restartPolicy") == "Always"


def should_restart(container: dict, pod_policy: str, exit_code: int) -> bool:
    """podutil.ContainerShouldRestart: the container's own restartPolicy (with its rules)
    when set, else the pod's."""
    policy = container.get("restartPolicy") or pod_policy
    for rule in container.get("restartPolicyRules") or []:
        codes = (rule.get("exitCodes") or {}).get("values") or []
        operator = (rule.get("exitCodes") or {}).get("operator")
        if (operator == "In") == (exit_code in codes):
            return rule.get("action") == "Restart"
    if policy == "Always":
        return True
    if policy == "OnFailure":
        return exit_code != 0
    return False


def _terminated(status: dict | None) -> dict | None:
    return ((status or {}).get("state") or {}).get("terminated")


def _last_terminated(status: dict | None) -> dict | None:
    return ((status or {}).get("lastState") or {}).get("terminated")


def phase(spec: dict, init: dict[str, dict], app: dict[str, dict], initialized: bool) -> str:
    """getPhase (kubelet_pods.go:1653-1873) for a pod the kubelet is not terminating."""
    policy = spec.get("restartPolicy", "Always")
    pending_init = pending_sidecars = not_restartable_init = 0
    for c in spec.get("initContainers") or []:
        if _restartable_init(c):
            continue
        s = init.get(c["name"])
        state = (s or {}).get("state") or {}
        ended = _terminated(s) or (_last_terminated(s) if "waiting" in state else None)
        if s is None or "running" in state or ("waiting" in state and ended is None):
            pending_init += 1
        elif ended and ended["exitCode"] != 0 and not should_restart(c, policy, ended["exitCode"]):
            not_restartable_init += 1
    unknown = running = waiting = stopped = stopped_final = succeeded = 0
    for c in spec.get("initContainers") or []:
        if not _restartable_init(c):
            continue
        s = init.get(c["name"])
        state = (s or {}).get("state") or {}
        if s is None:
            pending_sidecars, unknown = pending_sidecars + 1, unknown + 1
        elif "running" in state:
            running += 1
            pending_sidecars += 0 if s.get("started") else 1
        elif "waiting" in state and _last_terminated(s) is None:
            pending_sidecars, waiting = pending_sidecars + 1, waiting + 1
    for c in spec["containers"]:
        s = app.get(c["name"])
        state = (s or {}).get("state") or {}
        ended = _terminated(s) or _last_terminated(s)
        if s is None:
            unknown += 1
        elif "running" in state:
            running += 1
        elif ended is not None:
            stopped += 1
            code = ended["exitCode"]
            stopped_final += 0 if should_restart(c, policy, code) else 1
            succeeded += 1 if "terminated" in state and code == 0 else 0
        else:
            waiting += 1
    if not_restartable_init:
        return "Failed"
    if pending_init or (pending_sidecars and not initialized) or waiting:
        return "Pending"
    if running and not unknown:
        return "Running"
    if not running and stopped and not unknown:
        if stopped != stopped_final:
            return "Running"  # at least one is restarting
        return "Succeeded" if stopped == succeeded else "Failed"
    return "Pending"


def _listed(kind: str, reason: str, unknown: list[str], other: tuple[str, list[str]]) -> dict:
    """True, or False naming the containers of unknown status and the others (`unready`,
    `incomplete`), each list as Go's %s prints a []string: `[a b]`."""
    messages = [
        f"containers with {label} status: [{' '.join(names)}]"
        for label, names in (("unknown", unknown), other)
        if names
    ]
    if not messages:
        return {"type": kind, "status": "True"}
    return {"type": kind, "status": "False", "reason": reason, "message": ", ".join(messages)}


def containers_ready(spec: dict, init: dict, app: dict, pod_phase: str) -> dict:
    """GenerateContainersReadyCondition (generate.go:55-119)."""
    unknown, unready = [], []
    sidecars = [c for c in spec.get("initContainers") or [] if _restartable_init(c)]
    for c, statuses in [*((c, init) for c in sidecars), *((c, app) for c in spec["containers"])]:
        s = statuses.get(c["name"])
        if s is None:
            unknown.append(c["name"])
        elif not s.get("ready"):
            unready.append(c["name"])
    if pod_phase == "Succeeded" and not unknown:
        return {"type": "ContainersReady", "status": "False", "reason": "PodCompleted"}
    if pod_phase == "Failed":
        return {"type": "ContainersReady", "status": "False", "reason": "PodFailed"}
    return _listed("ContainersReady", "ContainersNotReady", unknown, ("unready", unready))


def pod_ready(spec: dict, ready: dict, conditions: dict[str, dict]) -> dict:
    """GeneratePodReadyCondition (generate.go:121-166): ContainersReady's verdict, then the
    readiness gates."""
    if ready["status"] != "True":
        return {**ready, "type": "Ready"}
    messages = []
    for gate in spec.get("readinessGates") or []:
        kind = gate["conditionType"]
        found = conditions.get(kind)
        if found is None:
            messages.append(
                f'corresponding condition of pod readiness gate "{kind}" does not exist.'
            )
        elif found.get("status") != "True":
            state = found.get("status")
            messages.append(f'the status of pod readiness gate "{kind}" is not "True", but {state}')
    if messages:
        return {
            "type": "Ready",
            "status": "False",
            "reason": "ReadinessGatesNotReady",
            "message": ", ".join(messages),
        }
    return {"type": "Ready", "status": "True"}


def initialized(spec: dict, init: dict, app: dict, pod_phase: str) -> dict:
    """GeneratePodInitializedCondition (generate.go:185-266)."""
    unknown, incomplete = [], []
    for c in spec.get("initContainers") or []:
        s = init.get(c["name"])
        if s is None:
            unknown.append(c["name"])
        elif not s.get("started" if _restartable_init(c) else "ready"):
            incomplete.append(c["name"])
    if pod_phase == "Succeeded" and not unknown:
        return {"type": "Initialized", "status": "True", "reason": "PodCompleted"}
    regular_started = any(
        "running" in (s.get("state") or {})
        or "terminated" in (s.get("state") or {})
        or _last_terminated(s)
        for s in app.values()
    )
    if regular_started:
        return {"type": "Initialized", "status": "True"}
    return _listed("Initialized", "ContainersNotInitialized", unknown, ("incomplete", incomplete))
