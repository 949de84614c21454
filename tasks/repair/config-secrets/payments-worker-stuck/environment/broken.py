def broken(v):
    v.pods_in_state("payments", {"app": "payments"}, "CreateContainerConfigError")
    v.pods_ready("payments", {"app": "payments"}, 0)
    v.rollout_complete("payments", "payments-audit")
    v.healthy("payments", "queue")
