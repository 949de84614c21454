def verify(v):
    v.rollout_complete("analytics", "dashboard")
    v.pods_ready("analytics", {"app": "dashboard"}, 5)
    v.service_has_ready_endpoints("analytics", "dashboard", minimum=5)
    # the quota is the approved one: pods 10, the rest as it was
    v.uid_preserved("ResourceQuota", "analytics", "compute")
    v.field_is("ResourceQuota", "analytics", "compute", "spec.hard.pods", "10", quantity=True)
    v.field_is("ResourceQuota", "analytics", "compute", "spec.hard",
               {"pods": "10", "requests.cpu": "4", "requests.memory": "8Gi"})
    v.unchanged("ResourceQuota", "analytics", "storage")
    v.unchanged("ConfigMap", "analytics", "capacity-allocation")
    v.fields_unchanged("Deployment", "analytics", "dashboard",
                       ["spec.replicas", "spec.template.spec.containers[0].resources"])
    v.unchanged("Deployment", "analytics", "ingest")
    v.unchanged("Deployment", "analytics", "scheduler")
    v.exact_resource_set("Deployment", "analytics")
    v.exact_resource_set("ResourceQuota", "analytics")
    v.no_bare_pods("analytics")
