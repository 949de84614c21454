NS = "warehouse"


def verify(v):
    # the outcome: the pickers reach stock-api on port 80 and are ready again
    v.rollout_complete(NS, "picker")
    v.pods_ready(NS, {"app": "picker"}, 2)
    v.healthy(NS, "stock-api")
    v.connectivity("warehouse/app=picker", "stock-api:80")
    v.env("Deployment", NS, "picker", "STOCK_API_URL", "http://stock-api", container="picker")
    # the shape: where the stock-api Service forwards (its target port) is all a fix may
    # change; its port 80, the pickers' configuration, stock-api and its metrics Service
    # stay as they were throughout, and no Service is added, removed or recreated
    v.allow("Service", NS, "stock-api", ["spec.ports[name=http].targetPort"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
