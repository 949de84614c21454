def broken(v):
    # the new pod waits for its volume; the old ones still serve
    v.pods_in_state("edge", {"app": "gateway"}, "ContainerCreating")
    v.not_(v.rollout_complete("edge", "gateway"))
    v.service_has_ready_endpoints("edge", "gateway", 2)
    v.healthy("edge", "gateway-admin")
