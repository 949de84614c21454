def broken(v):
    v.pods_in_state("search", {"app": "indexer"}, "Unschedulable")
    v.pods_ready("search", {"app": "indexer"}, 0)
    v.healthy("search", "frontend")
