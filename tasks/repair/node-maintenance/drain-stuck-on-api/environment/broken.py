def broken(v):
    # node-2 is cordoned, but both api pods are still on it: the drain never finished
    v.field_equals("Node", None, "node-2", "spec.unschedulable", True)
    v.pods_ready("shop", {"app": "api"}, 2, nodes=["node-2"])
    v.service_has_ready_endpoints("shop", "api", minimum=2)
    # the rest of the shop already moved off node-2 and is healthy
    v.rollout_complete("shop", "worker")
    v.pods_ready("shop", {"app": "worker"}, 2, nodes=["node-1", "node-3"])
    v.healthy("shop", "cache")
    v.pods_ready("shop", {"app": "cache"}, 1, nodes=["node-1", "node-3"])
