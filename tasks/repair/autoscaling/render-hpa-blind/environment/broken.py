def broken(v):
    v.condition("autoscaling/v2", "HorizontalPodAutoscaler", "render-worker", "ScalingActive",
                status="False", namespace="render")
    v.rollout_complete("render", "render-worker")
    v.field_equals("apps/v1", "Deployment", "render-worker",
                   "spec.template.spec.containers[0].image", "acme/render-worker:3.5",
                   namespace="render")
    v.rollout_complete("render", "render-api")
    v.condition("autoscaling/v2", "HorizontalPodAutoscaler", "render-api", "ScalingActive",
                namespace="render")
    v.service_has_ready_endpoints("render", "render-api")
