NS = "web"
HPA = "HorizontalPodAutoscaler"


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
    # (scaled by hand, through deployments/scale or spec.replicas, even once and handed
    # back to the autoscaler, is a change of the agent's)
    v.allow("Deployment", NS, "api-server", ["spec.replicas"], by="controllers")
    v.only_allowed_changes()
