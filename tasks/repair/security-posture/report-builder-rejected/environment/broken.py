def broken(v):
    v.condition("Deployment", "reports", "report-builder", "ReplicaFailure")
    v.pods_ready("reports", {"app": "report-builder"}, 0)
    v.not_(v.rollout_complete("reports", "report-builder"))
    v.healthy("reports", "report-api")
    v.rollout_complete("reports", "report-scheduler")
