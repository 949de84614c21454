def broken(v):
    v.pods_in_state("ml", {"app": "feature-store"}, "OOMKilled")
    v.pods_ready("ml", {"app": "feature-store"}, 0)
    v.healthy("ml", "feature-api")
