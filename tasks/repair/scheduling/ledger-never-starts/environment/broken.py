def broken(v):
    v.pods_in_state("finance", {"app": "ledger"}, "Unschedulable")
    v.pods_ready("finance", {"app": "ledger"}, 0)
    v.rollout_complete("finance", "reports")
    v.service_has_ready_endpoints("finance", "reports")
