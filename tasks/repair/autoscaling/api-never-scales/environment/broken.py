def broken(v):
    v.condition("autoscaling/v2", "HorizontalPodAutoscaler", "api-server", "AbleToScale",
                status="False", namespace="web")
    v.pods_ready("web", {"app": "api-server"}, 2)
    v.rollout_complete("web", "api-server")
    v.rollout_complete("web", "web-frontend")
    v.condition("autoscaling/v2", "HorizontalPodAutoscaler", "web-frontend", "ScalingActive",
                namespace="web")
    v.service_has_ready_endpoints("web", "api-server")
    v.service_has_ready_endpoints("web", "web-frontend")
