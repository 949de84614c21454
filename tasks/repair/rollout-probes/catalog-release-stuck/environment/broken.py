def broken(v):
    # the old pods serve, the new one never becomes ready
    v.pods_ready("catalog", {"app": "catalog"}, 2)
    v.pods_in_state("catalog", {"app": "catalog"}, "NotReady")
    v.not_(v.rollout_complete("catalog", "catalog"))
    v.rollout_complete("catalog", "search")
