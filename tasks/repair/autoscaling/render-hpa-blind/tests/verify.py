import json

from kubeproof.nodesim.quantity import parse
from kubeproof.verify import Result, contract
from kubeproof.verify.checks import read_object
from kubeproof.verify.workloads import pod_spec

NS = "render"
HPA = "HorizontalPodAutoscaler"


def _agent_writes(ctx, resource, namespace, name):
    """Audit events of the writes carried out on one object since the baseline (the control
    plane's own traffic, the autoscaler's included, is not in the log)."""
    if ctx.history is None or ctx.history.audit_log is None or not ctx.history.audit_log.exists():
        return
    with ctx.history.audit_log.open("rb") as fh:
        fh.seek(ctx.baseline.audit_offset)
        for line in fh:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            ref = event.get("objectRef") or {}
            if (
                event.get("stage") == "ResponseComplete"
                and event.get("verb") in ("create", "update", "patch")
                and int((event.get("responseStatus") or {}).get("code", 200)) < 400
                and "dryRun=" not in event.get("requestURI", "")
                and ref.get("resource") == resource
                and ref.get("namespace") == namespace
                and ref.get("name") == name
            ):
                yield event


def _sets_replicas(event, baseline_replicas):
    request = event.get("requestObject")
    if (event.get("objectRef") or {}).get("subresource") == "scale":
        return True
    if isinstance(request, list):  # a JSON patch
        return any(str(op.get("path", "")).startswith("/spec/replicas") for op in request)
    if isinstance(request, dict):
        spec = request.get("spec") or {}
        if event.get("verb") == "patch":
            return "replicas" in spec
        return spec.get("replicas", baseline_replicas) != baseline_replicas
    return False


@contract(baseline=True)
def sized_only_by_autoscaler(ctx, namespace, name):
    """Only the autoscaler set the Deployment's size during the agent's turn: no write of its
    own through deployments/scale, nor a patch or update of spec.replicas (scaled by hand and
    then handed back to the autoscaler counts too)."""
    before = ctx.baseline.get("Deployment", namespace, name) or {}
    replicas = (before.get("spec") or {}).get("replicas", 1)
    found = [
        f"{e.get('verb')}{'/' + e['objectRef']['subresource'] if e['objectRef'].get('subresource') else ''}"
        f" at {e.get('stageTimestamp', '')[11:23]} by {(e.get('user') or {}).get('username')}"
        for e in _agent_writes(ctx, "deployments", namespace, name)
        if _sets_replicas(e, replicas)
    ]
    return Result(
        f"sized_only_by_autoscaler Deployment {namespace}/{name}",
        not found,
        "sized by hand: " + "; ".join(found[:4]) if found else "no write sized it by hand",
    )


# what the 3.4 revision ran with (rollout history), lost from 3.5 in a manifest refactor
RELEASED = {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}}


@contract
def resources_as_released(ctx, namespace, name, container):
    """The container requests the CPU its previous revision requested (what the autoscaler's
    utilization is measured against: not a token value), and any other request or limit it
    sets is the previous revision's too."""
    label = f"resources_as_released Deployment {namespace}/{name} {container}"
    obj, problem = read_object(ctx, "Deployment", namespace, name)
    if obj is None:
        return Result(label, False, problem or "not found")
    found = [c for c in pod_spec(obj).get("containers") or [] if c.get("name") == container]
    if not found:
        return Result(label, False, f"no container {container}")
    resources = found[0].get("resources") or {}
    problems = []
    cpu = (resources.get("requests") or {}).get("cpu")
    if cpu is None:
        problems.append("requests no CPU")
    for group in ("requests", "limits"):
        for res, value in (resources.get(group) or {}).items():
            want = RELEASED.get(group, {}).get(res)
            try:
                same = want is not None and parse(str(value)) == parse(want)
            except ValueError:
                same = False
            if not same:
                problems.append(f"{group}.{res} = {value}, the release had {want or 'none'}")
    return Result(label, not problems, "; ".join(problems) or f"requests cpu {cpu}, as released")


def verify(v):
    # the autoscaler measures the workers again and acts on it
    v.condition(HPA, NS, "render-worker", "ScalingActive")
    v.condition(HPA, NS, "render-worker", "AbleToScale")
    v.rollout_complete(NS, "render-worker")
    v.field_equals("Deployment", NS, "render-worker",
                   "spec.template.spec.containers[name=worker].image", "acme/render-worker:3.5")
    # the fix: 3.5 carries the requests 3.4 had; nothing else of the release changes
    v.resources_as_released(NS, "render-worker", "worker")
    v.allow("Deployment", NS, "render-worker",
            ["spec.template.spec.containers[name=worker].resources",
             "spec.replicas"])  # the autoscaler's own writes
    v.only_allowed_changes()
    v.sized_only_by_autoscaler(NS, "render-worker")
