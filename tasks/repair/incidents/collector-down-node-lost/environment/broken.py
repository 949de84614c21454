def broken(v):
    v.pods_in_state("telemetry", {"app": "collector"}, "Unschedulable")
    v.pods_ready("telemetry", {"app": "collector"}, 0)
    v.rollout_complete("telemetry", "gateway")
    v.pods_ready("telemetry", {"app": "gateway"}, 3, nodes=["ingest-2", "ingest-3"])
    v.service_has_ready_endpoints("telemetry", "gateway", minimum=3)
