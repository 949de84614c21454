def broken(v):
    # cordoned: the node controller mirrors spec.unschedulable as a taint
    v.field_equals("v1", "Node", "node-2", "spec.taints[0].key", "node.kubernetes.io/unschedulable")
    v.pods_ready("shop", {"app": "api"}, 2, nodes=["node-2"])
    v.service_has_ready_endpoints("shop", "api", minimum=2)
    v.rollout_complete("shop", "worker")
    v.pods_ready("shop", {"app": "worker"}, 2, nodes=["node-1", "node-3"])
    v.rollout_complete("shop", "cache")
    v.pods_ready("shop", {"app": "cache"}, 1, nodes=["node-1", "node-3"])
