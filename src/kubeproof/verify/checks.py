"""Checks: did the operator outcome happen. Each returns a Result whose reason says what
was found; objects are named `(kind, namespace, name)` (docs/verify.md)."""

from lightkube import ApiError
from lightkube.codecs import from_dict
from lightkube.resources.apps_v1 import Deployment
from lightkube.resources.batch_v1 import Job
from lightkube.resources.core_v1 import Pod
from lightkube.resources.discovery_v1 import EndpointSlice

from kubeproof.verify import kinds
from kubeproof.verify.baseline import split_kind
from kubeproof.verify.fields import equal, get_path, missing
from kubeproof.verify.registry import Context, check
from kubeproof.verify.result import Result


def _selector(labels: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in labels.items())


@check
def rollout_complete(ctx: Context, namespace: str, name: str) -> Result:
    """The Deployment's new spec is observed and every replica is updated and available,
    with no old ones left."""
    check = f"rollout_complete {namespace}/{name}"
    try:
        d = ctx.client.get(Deployment, name, namespace=namespace)
    except ApiError as exc:
        return Result(check, False, f"deployment {namespace}/{name}: {exc.status.message}")
    want = d.spec.replicas if d.spec.replicas is not None else 1
    s = d.status
    observed = (s.observedGeneration or 0) >= (d.metadata.generation or 0)
    updated, available = s.updatedReplicas or 0, s.availableReplicas or 0
    total = s.replicas or 0
    done = observed and updated == want and available == want and total == want
    reason = f"{updated}/{want} updated, {available}/{want} available, {total} total" + (
        "" if observed else ", new spec not yet observed"
    )
    return Result(check, done, reason)


@check
def pods_ready(
    ctx: Context,
    namespace: str,
    labels: dict[str, str],
    count: int,
    nodes: list[str] | None = None,
) -> Result:
    """Exactly `count` ready pods match the labels (not being deleted), on the given nodes if
    named."""
    check = f"pods_ready {namespace} {_selector(labels)}"
    pods = [
        p
        for p in ctx.client.list(Pod, namespace=namespace, labels=labels)
        if p.metadata.deletionTimestamp is None
    ]
    ready = [
        p
        for p in pods
        if any(c.type == "Ready" and c.status == "True" for c in (p.status.conditions or []))
    ]
    misplaced = [p.metadata.name for p in ready if nodes and p.spec.nodeName not in nodes]
    ok = len(ready) == count and not misplaced
    reason = f"{len(ready)} of {len(pods)} pods ready (want {count})"
    if misplaced:
        reason += f"; not on {', '.join(nodes or [])}: {', '.join(misplaced)}"
    return Result(check, ok, reason)


@check
def service_has_ready_endpoints(
    ctx: Context, namespace: str, name: str, minimum: int = 1
) -> Result:
    """The Service's EndpointSlices hold at least `minimum` ready endpoints with ports (a
    `targetPort` naming no port of the pods leaves none)."""
    check = f"service_has_ready_endpoints {namespace}/{name}"
    slices = ctx.client.list(
        EndpointSlice, namespace=namespace, labels={"kubernetes.io/service-name": name}
    )
    ready = [
        e
        for s in slices
        if s.ports  # no ports: the Service's targetPort names no port of these pods
        for e in (s.endpoints or [])
        if e.conditions is None or e.conditions.ready is not False
    ]
    return Result(
        check, len(ready) >= minimum, f"{len(ready)} ready endpoint(s) (want at least {minimum})"
    )


@check
def job_complete(ctx: Context, namespace: str, name: str) -> Result:
    """The Job has condition Complete with at least one pod (and as many as its completions)
    succeeded (a Failed one says why)."""
    check = f"job_complete {namespace}/{name}"
    try:
        job = ctx.client.get(Job, name, namespace=namespace)
    except ApiError as exc:
        return Result(check, False, f"job {namespace}/{name}: {exc.status.message}")
    conditions = {c.type: c for c in (job.status.conditions or []) if c.status == "True"}
    succeeded = job.status.succeeded or 0
    # a Job asking for zero completions is Complete without ever running a pod
    want = max(1, job.spec.completions if job.spec.completions is not None else 1)
    if "Complete" in conditions and succeeded < want:
        return Result(check, False, f"complete with {succeeded} succeeded (want {want})")
    if "Complete" in conditions:
        return Result(check, True, f"complete, {succeeded} succeeded")
    if "Failed" in conditions:
        return Result(check, False, f"failed: {conditions['Failed'].message or ''}".strip())
    return Result(
        check,
        False,
        f"not complete: {job.status.active or 0} active, {job.status.failed or 0} failed",
    )


@check
def permission(
    ctx: Context,
    user: str,
    verb: str,
    resource: str,
    namespace: str | None = None,
    group: str = "",
    allowed: bool = True,
    groups: list[str] | None = None,
    name: str | None = None,
) -> Result:
    """Ask the apiserver (SubjectAccessReview) whether `user` may; `allowed=False` checks an
    intruder is still denied; `name` asks about one object (rules with resourceNames)."""
    attributes = {"verb": verb, "resource": resource, "group": group}
    if namespace:
        attributes["namespace"] = namespace
    if name:
        attributes["name"] = name
    if user.startswith("system:serviceaccount:") and groups is None:
        ns = user.split(":")[2]
        groups = ["system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"]
    review = ctx.client.create(
        from_dict(
            {
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SubjectAccessReview",
                "spec": {"user": user, "groups": groups or [], "resourceAttributes": attributes},
            }
        )
    )
    got = bool(review.status.allowed)
    where = f" in {namespace}" if namespace else " cluster-wide"
    target = f"{resource}/{name}" if name else resource
    reason = f"{user} {'may' if got else 'may not'} {verb} {target}{where}" + (
        f" ({review.status.reason})" if review.status.reason else ""
    )
    return Result(f"permission {user} {verb} {target}", got == allowed, reason)


@check
def connectivity(ctx: Context, source: str, target: str, allowed: bool = True) -> Result:
    """netsim over the live objects: can `source` reach `target` (host:port). The source is
    a pod (`ns/pod`) or every running pod a selector picks (`ns/app=checkout,tier=web`)."""
    from kubeproof.netsim import Network
    from kubeproof.netsim.live import read

    check = f"connectivity {source} -> {target}"
    network = Network.from_objects(read(ctx.client))
    namespace, _, who = source.rpartition("/")
    if "=" in who:
        want = dict(pair.split("=", 1) for pair in who.split(","))
        sources = [
            f"{namespace}/{p.name}"
            for p in network.objects.pods.values()
            if p.namespace == namespace
            and want.items() <= (p.obj["metadata"].get("labels") or {}).items()
            and p.obj.get("status", {}).get("phase") == "Running"
        ]
        if not sources:
            return Result(check, False, f"no running pod in {namespace} matches {who}")
    else:
        sources = [source]
    for src in sorted(sources):
        verdict = network.connect(src, target)
        reason = f"{verdict.code}: {verdict.reason}" + (
            f" ({verdict.steps[-1]})" if verdict.steps else ""
        )
        if verdict.allowed != allowed:
            return Result(check, False, f"from {src}: {reason}" if "=" in who else reason)
    return Result(check, True, f"from {len(sources)} pod(s): {reason}" if "=" in who else reason)


@check
def http_route(
    ctx: Context, source: str, url: str, status: int = 200, host: str | None = None
) -> Result:
    """netsim over the live objects: GET `url` from the pod `source` (`ns/pod`), with a
    Host header `host`, answers `status` — through an ingress-nginx controller, the route
    its Ingresses give, or its 404 (no rule) and 503 (no ready endpoints). A connection
    that fails has no status and never passes."""
    from kubeproof.netsim import Network
    from kubeproof.netsim.http import request
    from kubeproof.netsim.live import read

    check = f"http_route {source} -> {url}" + (f" (Host: {host})" if host else "")
    answer = request(Network.from_objects(read(ctx.client)), source, url, host)
    if answer.status is None:
        return Result(check, False, f"{answer.verdict.code}: {answer.verdict.reason}")
    via = f" via {answer.upstream}" if answer.upstream else ""
    last = (answer.steps or answer.verdict.steps or [""])[-1]
    reason = f"HTTP {answer.status} {answer.reason}{via}" + (f" ({last})" if last else "")
    return Result(check, answer.status == status, reason)


@check
def log_contains(
    ctx: Context, namespace: str, pod: str, text: str, container: str | None = None
) -> Result:
    """A log line of the pod (its container, if named) holds the text."""
    check = f"log_contains {namespace}/{pod}"
    try:
        lines = list(ctx.client.log(pod, namespace=namespace, container=container))
    except ApiError as exc:
        return Result(check, False, f"cannot read logs: {exc.status.message}")
    found = any(text in line for line in lines)
    return Result(
        check, found, f"{'found' if found else 'no line with'} {text!r} in {len(lines)} lines"
    )


def _legacy(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """(kind, namespace, name, ...) from the older (apiVersion, kind, name, ...,
    namespace=...) form, so verifiers written before the convention keep working."""
    if (
        len(args) >= 3
        and isinstance(args[0], str)
        and isinstance(args[1], str)
        and (args[0] == "v1" or "/" in args[0])
        and args[1][:1].isupper()
    ):
        api_version, kind, name, *rest = args
        namespace = kwargs.pop("namespace", None)
        return (f"{api_version}/{kind}", namespace, name, *rest), kwargs
    return args, kwargs


def read_object(ctx: Context, kind: str, namespace: str | None, name: str):
    """(object as a dict, None) or (None, a reason it could not be read)."""
    resource = kinds.resolve(ctx.client, kind)  # built-in, or a CRD's by any of its names
    if resource is None:
        return None, f"unknown kind {kind}"
    try:
        obj = ctx.client.get(resource, name, namespace=namespace)
    except ApiError as exc:
        return None, f"{split_kind(kind)[1]} {name}: {exc.status.message}"
    return (obj.to_dict() if hasattr(obj, "to_dict") else dict(obj)), None


def _label(kind: str, namespace: str | None, name: str) -> str:
    return f"{split_kind(kind)[1]} {namespace + '/' if namespace else ''}{name}"


@check
def field_equals(ctx: Context, *args, **kwargs) -> Result:
    """`field_equals(kind, namespace, name, path, expected, quantity=False)`: the field at a
    path (`spec.replicas`, `metadata.labels["a.b/c"]`, `containers[name=api].image`) equals
    `expected`; `quantity=True` compares `1Gi` and `1024Mi` as equal."""
    (kind, namespace, name, path, expected, *rest), kwargs = _legacy(args, kwargs)
    quantity = kwargs.get("quantity", rest[0] if rest else False)
    check = f"field_equals {_label(kind, namespace, name)} {path}"
    obj, problem = read_object(ctx, kind, namespace, name)
    if problem:
        return Result(check, False, problem)
    value = get_path(obj, path)
    if missing(value):
        return Result(check, False, f"{path} is not set")
    ok = equal(value, expected, quantity)
    return Result(check, ok, f"{path} = {value!r}" + ("" if ok else f", want {expected!r}"))


def _states(pod) -> set[str]:
    """What `kubectl get pods` could say about a pod: phase, container reasons, readiness."""
    states = {pod.status.phase or "Unknown"}
    for c in (pod.status.initContainerStatuses or []) + (pod.status.containerStatuses or []):
        if c.state and c.state.waiting:
            states.add(c.state.waiting.reason or "Waiting")
        if c.state and c.state.terminated:
            states.add(c.state.terminated.reason or "Terminated")
        if c.lastState and c.lastState.terminated:
            states.add(c.lastState.terminated.reason or "Terminated")
    ready = any(c.type == "Ready" and c.status == "True" for c in (pod.status.conditions or []))
    states.add("Ready" if ready else "NotReady")
    if pod.status.phase == "Pending" and not pod.spec.nodeName:
        states.add("Unschedulable")
    return states


@check
def pods_in_state(ctx: Context, namespace: str, labels: dict[str, str], state: str) -> Result:
    """At least one selected pod shows `state`: a phase (Pending, Running), a container
    reason (CrashLoopBackOff, ImagePullBackOff, CreateContainerConfigError, OOMKilled),
    NotReady, or Unschedulable. Broken-state assertions use it to wait for the symptom."""
    check = f"pods_in_state {namespace} {_selector(labels)} {state}"
    pods = [
        p
        for p in ctx.client.list(Pod, namespace=namespace, labels=labels)
        if p.metadata.deletionTimestamp is None
    ]
    matching = [p.metadata.name for p in pods if state in _states(p)]
    if not pods:
        return Result(check, False, "no pods selected")
    return Result(check, bool(matching), f"{len(matching)} of {len(pods)} pods {state}")


@check
def condition(ctx: Context, *args, **kwargs) -> Result:
    """`condition(kind, namespace, name, type, status="True")`: the object's status condition
    `type` has `status` (a Node `Ready`, an HPA `ScalingActive`, a Job `Complete`)."""
    (kind, namespace, name, type_, *rest), kwargs = _legacy(args, kwargs)
    status = kwargs.get("status", rest[0] if rest else "True")
    check = f"condition {_label(kind, namespace, name)} {type_}={status}"
    obj, problem = read_object(ctx, kind, namespace, name)
    if problem:
        return Result(check, False, problem)
    found = [c for c in (obj.get("status") or {}).get("conditions") or [] if c["type"] == type_]
    if not found:
        return Result(check, False, f"no {type_} condition")
    c = found[0]
    detail = ": ".join(x for x in (c.get("reason"), c.get("message")) if x)
    return Result(
        check, c["status"] == status, f"{type_}={c['status']}" + (f" ({detail})" if detail else "")
    )


@check
def field_absent(ctx: Context, *args, **kwargs) -> Result:
    """`field_absent(kind, namespace, name, path)`: the field is unset, null or false (a node
    no longer `spec.unschedulable`, a CronJob no longer `spec.suspend`-ed)."""
    (kind, namespace, name, path), kwargs = _legacy(args, kwargs)
    check = f"field_absent {_label(kind, namespace, name)} {path}"
    obj, problem = read_object(ctx, kind, namespace, name)
    if problem:
        return Result(check, False, problem)
    value = get_path(obj, path)
    ok = missing(value) or value in (None, False)
    return Result(check, ok, f"{path} is not set" if ok else f"{path} = {value!r}")


@check
def absent(ctx: Context, *args, **kwargs) -> Result:
    """`absent(kind, namespace, name)`: the object does not exist or is being deleted (a
    leftover cleaned up, a stop-gap removed)."""
    (kind, namespace, name), kwargs = _legacy(args, kwargs)
    check = f"absent {_label(kind, namespace, name)}"
    obj, problem = read_object(ctx, kind, namespace, name)
    if obj is None and problem and "not found" in problem:
        return Result(check, True, "not found")
    if obj is None:
        return Result(check, False, problem or "cannot tell")
    if obj.get("metadata", {}).get("deletionTimestamp"):
        return Result(check, True, "being deleted")
    return Result(check, False, f"still exists (uid {obj['metadata'].get('uid')})")
