def broken(v):
    v.pods_in_state("ledger", {"app": "ledger-backfill"}, "Error")
    v.condition("Job", "ledger", "ledger-backfill", "Failed")
    # the ledger API is healthy, so the safety monitor guards it
    v.healthy("ledger", "ledger-api")
