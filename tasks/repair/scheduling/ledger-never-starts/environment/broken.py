def broken(v):
    v.pods_in_state("finance", {"app": "ledger"}, "Unschedulable")
    v.pods_ready("finance", {"app": "ledger"}, 0)
    v.healthy("finance", "reports")
