def broken(v):
    v.pods_in_state("payments", {"app": "payments-api"}, "Running")
    v.pods_in_state("payments", {"app": "payments-api"}, "NotReady")
    v.pods_ready("payments", {"app": "payments-api"}, 0)
    v.not_(v.service_has_ready_endpoints("payments", "payments-api"))
    v.healthy("payments", "payments-db")
    # the look-alike is healthy
    v.healthy("payments-staging", "payments-api")
    v.healthy("payments-staging", "payments-db")
