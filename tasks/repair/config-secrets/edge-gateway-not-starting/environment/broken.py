def broken(v):
    # the new pod waits for its volume; the old ones still serve
    v.pods_in_state("edge", {"app": "gateway"}, "ContainerCreating")
    v.not_(v.rollout_complete("edge", "gateway"))
    v.rollout_complete("edge", "gateway-admin")
    v.service_has_ready_endpoints("edge", "gateway-admin")
