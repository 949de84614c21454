def verify(v):
    v.condition("autoscaling/v2", "HorizontalPodAutoscaler", "render-worker", "ScalingActive",
                namespace="render")
    v.condition("autoscaling/v2", "HorizontalPodAutoscaler", "render-worker", "AbleToScale",
                namespace="render")
    v.rollout_complete("render", "render-worker")
    # the shape: requests are back on the 3.5 release
    v.field_is("Deployment", "render", "render-worker",
               "spec.template.spec.containers[0].resources.requests.cpu", None)
    v.fields_unchanged("Deployment", "render", "render-worker",
                       ["spec.template.spec.containers[0].image"])
    # the same autoscaler with the same policy
    v.uid_preserved("HorizontalPodAutoscaler", "render", "render-worker")
    v.fields_unchanged("HorizontalPodAutoscaler", "render", "render-worker",
                       ["spec.scaleTargetRef", "spec.minReplicas", "spec.maxReplicas",
                        "spec.metrics"])
    v.unchanged("Deployment", "render", "render-api")
    v.unchanged("HorizontalPodAutoscaler", "render", "render-api")
    v.exact_resource_set("Deployment", "render")
    v.exact_resource_set("HorizontalPodAutoscaler", "render")
