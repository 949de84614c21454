def broken(v):
    # the old pods serve, the new one cannot be placed
    v.pods_in_state("media", {"app": "renderer"}, "Unschedulable")
    v.pods_ready("media", {"app": "renderer"}, 2)
    v.not_(v.rollout_complete("media", "renderer"))
    v.healthy("media", "thumbnails")
