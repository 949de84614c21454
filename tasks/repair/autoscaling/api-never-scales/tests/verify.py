import json

from kubeproof.verify import Result, contract

NS = "web"
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


def verify(v):
    # the autoscaler works again, on api-server
    v.condition(HPA, NS, "api-server", "AbleToScale")
    v.condition(HPA, NS, "api-server", "ScalingActive")
    v.field_equals(HPA, NS, "api-server", "spec.scaleTargetRef.name", "api-server")
    # 180m per pod against a 60% target of 100m: the autoscaler goes to its maximum
    v.field_equals(HPA, NS, "api-server", "status.desiredReplicas", 6)
    v.healthy(NS, "api-server")
    v.pods_ready(NS, {"app": "api-server"}, 6)
    # the shape: only the autoscaler's target may change (same object, same policy); the
    # autoscaler, not the agent, sizes the API; web-frontend and its autoscaler untouched
    v.allow(HPA, NS, "api-server", ["spec.scaleTargetRef.name"])
    v.allow("Deployment", NS, "api-server", ["spec.replicas"])  # the autoscaler's own writes
    v.only_allowed_changes()
    v.sized_only_by_autoscaler(NS, "api-server")
