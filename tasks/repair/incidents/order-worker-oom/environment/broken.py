def broken(v):
    v.pods_in_state("orders", {"app": "worker"}, "OOMKilled")
    v.pods_ready("orders", {"app": "worker"}, 0)
    v.rollout_complete("orders", "reporting")
    v.service_has_ready_endpoints("orders", "reporting", minimum=2)
    v.rollout_complete("orders", "api")
    v.service_has_ready_endpoints("orders", "api")
