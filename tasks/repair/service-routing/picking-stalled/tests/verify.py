def verify(v):
    v.rollout_complete("warehouse", "picker")
    v.pods_ready("warehouse", {"app": "picker"}, 2)
    v.service_has_ready_endpoints("warehouse", "stock-api", minimum=2)
    v.connectivity("warehouse/app=picker", "stock-api:80")
    # fixed in place: clients keep calling stock-api on port 80
    v.uid_preserved("Service", "warehouse", "stock-api")
    v.fields_unchanged("Service", "warehouse", "stock-api", ["spec.ports[0].port", "spec.selector"])
    v.fields_unchanged("Deployment", "warehouse", "picker",
                       ["spec.template.spec.containers[0].env", "spec.template.spec.containers[0].image"])
    v.unchanged("Deployment", "warehouse", "stock-api")
    v.unchanged("Service", "warehouse", "stock-api-metrics")
    v.exact_resource_set("Service", "warehouse")
    v.no_bare_pods("warehouse")
