def broken(v):
    # the old pods serve, the new one never becomes ready
    v.pods_ready("catalog", {"app": "catalog"}, 2)
    v.pods_in_state("catalog", {"app": "catalog"}, "NotReady")
    v.not_(v.rollout_complete("catalog", "catalog"))
    v.service_has_ready_endpoints("catalog", "catalog", minimum=2)
    v.healthy("catalog", "search")
