def broken(v):
    v.pods_in_state("analytics", {"app": "warehouse"}, "Unschedulable")
    v.field_equals("v1", "PersistentVolumeClaim", "warehouse-data", "status.phase", "Pending",
                   namespace="analytics")
    v.field_equals("v1", "PersistentVolume", "warehouse-data-pv", "status.phase", "Available")
    v.field_equals("v1", "PersistentVolume", "scratch-pv", "status.phase", "Available")
    v.rollout_complete("analytics", "dashboards")
    v.service_has_ready_endpoints("analytics", "dashboards")
