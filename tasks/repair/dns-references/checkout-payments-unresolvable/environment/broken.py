def broken(v):
    # checkout runs but cannot resolve its payments URL
    v.pods_in_state("shop", {"app": "checkout"}, "Running")
    v.pods_ready("shop", {"app": "checkout"}, 0)
    v.connectivity("shop/app=checkout", "payments-api.payments.svc.cluster:8080", allowed=False)
    # payments itself is healthy
    v.rollout_complete("payments", "payments-api")
    v.service_has_ready_endpoints("payments", "payments-api", minimum=2)
