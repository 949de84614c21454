def broken(v):
    v.pods_in_state("media", {"app": "thumbnailer"}, "Unschedulable")
    v.pods_ready("media", {"app": "thumbnailer"}, 0)
    v.field_equals("PersistentVolumeClaim", "media", "uploads", "status.phase", "Bound")
    v.healthy("media", "gallery")
