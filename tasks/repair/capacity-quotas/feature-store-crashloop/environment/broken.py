def broken(v):
    v.pods_in_state("ml", {"app": "feature-store"}, "OOMKilled")
    v.pods_ready("ml", {"app": "feature-store"}, 0)
    v.rollout_complete("ml", "feature-api")
    v.service_has_ready_endpoints("ml", "feature-api")
