def broken(v):
    # the new pods are restarted over and over; the old ones still serve
    v.pods_in_state("pricing", {"app": "pricing-api"}, "CrashLoopBackOff")
    v.not_(v.rollout_complete("pricing", "pricing-api"))
    v.service_has_ready_endpoints("pricing", "pricing-api", minimum=2)
    v.healthy("pricing", "pricing-cache")
