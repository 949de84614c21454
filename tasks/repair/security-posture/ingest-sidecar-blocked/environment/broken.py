def broken(v):
    v.condition("Deployment", "ingest", "collector", "ReplicaFailure")
    v.not_(v.rollout_complete("ingest", "collector"))
    v.pods_ready("ingest", {"app": "collector"}, 2)
    v.service_has_ready_endpoints("ingest", "collector")
    v.healthy("ingest", "ingest-api")
    v.rollout_complete("ingest", "ingest-batch")
