def verify(v):
    v.rollout_complete("edge", "gateway")
    v.pods_ready("edge", {"app": "gateway"}, 2)
    v.service_has_ready_endpoints("edge", "gateway", minimum=2)
    # 3.1, reading its routes from the shared ConfigMap
    v.uid_preserved("Deployment", "edge", "gateway")
    v.field_is("Deployment", "edge", "gateway", "spec.template.spec.containers[0].image",
               "acme/edge-gateway:3.1")
    v.field_is("Deployment", "edge", "gateway", "spec.template.spec.volumes[0].configMap.name",
               "gateway-routes")
    v.fields_unchanged("Deployment", "edge", "gateway", ["spec.replicas"])
    v.unchanged("ConfigMap", "edge", "gateway-routes")
    v.exact_resource_set("ConfigMap", "edge")
    v.unchanged("Deployment", "edge", "gateway-admin")
    v.exact_resource_set("Deployment", "edge")
    v.no_bare_pods("edge")
