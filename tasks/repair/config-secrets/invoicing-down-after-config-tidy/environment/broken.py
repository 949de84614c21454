def broken(v):
    v.pods_in_state("commerce", {"app": "invoicing"}, "CrashLoopBackOff")
    v.pods_ready("commerce", {"app": "invoicing"}, 0)
    # the other consumers of commerce-common are healthy
    v.rollout_complete("commerce", "orders")
    v.rollout_complete("commerce", "refunds")
    v.service_has_ready_endpoints("commerce", "orders", minimum=2)
    v.service_has_ready_endpoints("commerce", "refunds")
