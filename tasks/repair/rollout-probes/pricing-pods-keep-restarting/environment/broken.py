def broken(v):
    v.pods_in_state("pricing", {"app": "pricing-api"}, "CrashLoopBackOff")
    v.not_(v.rollout_complete("pricing", "pricing-api"))
    v.rollout_complete("pricing", "pricing-cache")
    v.service_has_ready_endpoints("pricing", "pricing-api")
    v.service_has_ready_endpoints("pricing", "pricing-cache")
