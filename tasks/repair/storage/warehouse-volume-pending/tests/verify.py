def verify(v):
    v.rollout_complete("analytics", "warehouse")
    v.pods_ready("analytics", {"app": "warehouse"}, 1)
    v.service_has_ready_endpoints("analytics", "warehouse")
    v.field_equals("v1", "PersistentVolumeClaim", "warehouse-data", "status.phase", "Bound",
                   namespace="analytics")
    v.field_equals("v1", "PersistentVolume", "warehouse-data-pv", "status.phase", "Bound")
    # the restored volume, through the warehouse's own claim
    v.field_is("PersistentVolumeClaim", "analytics", "warehouse-data", "spec.volumeName",
               "warehouse-data-pv")
    v.field_is("Deployment", "analytics", "warehouse",
               "spec.template.spec.volumes[0].persistentVolumeClaim.claimName", "warehouse-data")
    v.exact_resource_set("PersistentVolumeClaim", "analytics")
    v.uid_preserved("Deployment", "analytics", "warehouse")
    v.fields_unchanged("Deployment", "analytics", "warehouse", [
        "spec.replicas", "spec.template.spec.containers[0].image",
        "spec.template.spec.containers[0].env", "spec.template.spec.containers[0].volumeMounts",
    ])
    v.unchanged("Deployment", "analytics", "dashboards")
    v.unchanged("PersistentVolumeClaim", "analytics", "dashboards-cache")
    v.no_bare_pods("analytics")
