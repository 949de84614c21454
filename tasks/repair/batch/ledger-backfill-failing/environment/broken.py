def broken(v):
    v.pods_in_state("ledger", {"app": "ledger-backfill"}, "Error")
    v.condition("batch/v1", "Job", "ledger-backfill", "Failed", namespace="ledger")
