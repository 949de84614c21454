HPA = "HorizontalPodAutoscaler"


def broken(v):
    v.condition(HPA, "web", "api-server", "AbleToScale", status="False")
    v.pods_ready("web", {"app": "api-server"}, 2)
    v.healthy("web", "api-server")
    # the distractor and its autoscaler work
    v.healthy("web", "web-frontend")
    v.condition(HPA, "web", "web-frontend", "ScalingActive")
