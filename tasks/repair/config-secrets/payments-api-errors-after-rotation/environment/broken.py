def broken(v):
    v.pods_in_state("payments", {"app": "payments-api"}, "Running")
    v.pods_in_state("payments", {"app": "payments-api"}, "NotReady")
    v.pods_ready("payments", {"app": "payments-api"}, 0)
    v.not_(v.service_has_ready_endpoints("payments", "payments-api"))
    v.rollout_complete("payments", "payments-db")
    # the look-alike is healthy
    v.rollout_complete("payments-staging", "payments-api")
    v.rollout_complete("payments-staging", "payments-db")
    v.service_has_ready_endpoints("payments-staging", "payments-api")
