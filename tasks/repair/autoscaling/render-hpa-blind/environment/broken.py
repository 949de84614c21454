HPA = "HorizontalPodAutoscaler"


def broken(v):
    v.condition(HPA, "render", "render-worker", "ScalingActive", status="False")
    v.rollout_complete("render", "render-worker")
    v.field_equals("Deployment", "render", "render-worker",
                   "spec.template.spec.containers[name=worker].image", "acme/render-worker:3.5")
    # the distractor and its autoscaler work
    v.healthy("render", "render-api")
    v.condition(HPA, "render", "render-api", "ScalingActive")
