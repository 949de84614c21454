def broken(v):
    v.not_(v.rollout_complete("analytics", "dashboard"))
    v.pods_ready("analytics", {"app": "dashboard"}, 3)
    v.rollout_complete("analytics", "ingest")
    v.rollout_complete("analytics", "scheduler")
    v.healthy("analytics", "ingest")
