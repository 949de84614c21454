def broken(v):
    v.condition("apps/v1", "Deployment", "collector", "ReplicaFailure", namespace="ingest")
    v.not_(v.rollout_complete("ingest", "collector"))
    v.pods_ready("ingest", {"app": "collector"}, 2)
    v.service_has_ready_endpoints("ingest", "collector")
    v.rollout_complete("ingest", "ingest-api")
    v.rollout_complete("ingest", "ingest-batch")
    v.service_has_ready_endpoints("ingest", "ingest-api")
