def broken(v):
    v.pods_in_state("commerce", {"app": "invoicing"}, "CrashLoopBackOff")
    v.pods_ready("commerce", {"app": "invoicing"}, 0)
    # the other consumers of commerce-common are healthy
    v.healthy("commerce", "orders")
    v.healthy("commerce", "refunds")
