def broken(v):
    v.condition("apps/v1", "Deployment", "report-builder", "ReplicaFailure",
                namespace="reports")
    v.pods_ready("reports", {"app": "report-builder"}, 0)
    v.not_(v.rollout_complete("reports", "report-builder"))
    v.rollout_complete("reports", "report-api")
    v.rollout_complete("reports", "report-scheduler")
    v.service_has_ready_endpoints("reports", "report-api")
