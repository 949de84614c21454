def verify(v):
    v.rollout_complete("catalog", "catalog")
    v.pods_ready("catalog", {"app": "catalog"}, 2)
    v.service_has_ready_endpoints("catalog", "catalog", minimum=2)
    # the release went out as it is, on the same Deployment, still with readiness checks
    v.uid_preserved("Deployment", "catalog", "catalog")
    v.fields_unchanged(
        "Deployment", "catalog", "catalog",
        ["spec.template.spec.containers[0].image", "spec.template.spec.containers[0].env",
         "spec.replicas"],
    )
    v.field_is("Deployment", "catalog", "catalog",
               "spec.template.spec.containers[0].readinessProbe.httpGet.path", None)
    v.ownership_chain("catalog", "catalog")
    v.unchanged("Deployment", "catalog", "search")
    v.exact_resource_set("Deployment", "catalog")
    v.no_bare_pods("catalog")
