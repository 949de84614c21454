NS = "media"
RENDERER = "spec.template.spec.containers[name=renderer]"


def verify(v):
    # the outcome: the sizing change is out, every replica on the new spec and serving
    v.healthy(NS, "renderer")
    v.env("Deployment", NS, "renderer", "RENDER_THREADS", "4", container="renderer")
    # the shape: the approved size from the change-cause (500m, however written) is the
    # one thing a fix may change; the threads stay at the approved 4, the memory request,
    # image and replicas as they are, and thumbnails is left alone throughout
    v.field_is("Deployment", NS, "renderer", f"{RENDERER}.resources.requests.cpu", "500m",
               quantity=True)
    v.allow("Deployment", NS, "renderer", [f"{RENDERER}.resources.requests.cpu"])
    # a rollout paused for the correction and resumed is a way to release; a Deployment
    # left paused is not released
    v.allow("Deployment", NS, "renderer", [
        "spec.paused", 'metadata.annotations["kubernetes.io/change-cause"]'])
    v.field_absent("Deployment", NS, "renderer", "spec.paused")
    v.only_allowed_changes()
    v.no_bare_pods(NS)
