def broken(v):
    # the symptom: the reporter runs but is not ready, because it may not list pods
    v.pods_in_state("shop", {"app": "reporter"}, "Running")
    v.pods_in_state("shop", {"app": "reporter"}, "NotReady")
    v.permission("system:serviceaccount:shop:reporter", "list", "pods", "shop", allowed=False)
    # what must stay healthy is healthy before the agent starts
    v.rollout_complete("shop", "storefront")
    v.service_has_ready_endpoints("shop", "storefront")
