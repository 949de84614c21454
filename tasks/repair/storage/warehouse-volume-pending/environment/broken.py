def broken(v):
    v.pods_in_state("analytics", {"app": "warehouse"}, "Unschedulable")
    v.field_equals("PersistentVolumeClaim", "analytics", "warehouse-data", "status.phase", "Pending")
    v.field_equals("PersistentVolume", None, "warehouse-data-pv", "status.phase", "Available")
    v.field_equals("PersistentVolume", None, "scratch-pv", "status.phase", "Available")
    v.healthy("analytics", "dashboards")
