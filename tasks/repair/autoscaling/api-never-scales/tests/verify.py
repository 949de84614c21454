def verify(v):
    v.condition("autoscaling/v2", "HorizontalPodAutoscaler", "api-server", "AbleToScale",
                namespace="web")
    v.condition("autoscaling/v2", "HorizontalPodAutoscaler", "api-server", "ScalingActive",
                namespace="web")
    # 180m per pod against a 60% target of 100m: the autoscaler goes to its maximum
    v.field_equals("autoscaling/v2", "HorizontalPodAutoscaler", "api-server",
                   "status.desiredReplicas", 6, namespace="web")
    v.rollout_complete("web", "api-server")
    # the shape: the same autoscaler, its policy intact, aimed at api-server
    v.uid_preserved("HorizontalPodAutoscaler", "web", "api-server")
    v.field_is("HorizontalPodAutoscaler", "web", "api-server", "spec.scaleTargetRef.name",
               "api-server")
    v.fields_unchanged("HorizontalPodAutoscaler", "web", "api-server",
                       ["spec.minReplicas", "spec.maxReplicas", "spec.metrics"])
    v.fields_unchanged("Deployment", "web", "api-server",
                       ["spec.template.spec.containers[0].resources"])
    v.unchanged("Deployment", "web", "web-frontend")
    v.unchanged("HorizontalPodAutoscaler", "web", "web-frontend")
    v.exact_resource_set("Deployment", "web")
    v.exact_resource_set("HorizontalPodAutoscaler", "web")
