def verify(v):
    v.rollout_complete("pricing", "pricing-api")
    v.pods_ready("pricing", {"app": "pricing-api"}, 2)
    v.service_has_ready_endpoints("pricing", "pricing-api", minimum=2)
    # still liveness-checked, as strictly as written
    v.field_is("Deployment", "pricing", "pricing-api",
               "spec.template.spec.containers[0].livenessProbe.httpGet.port", None)
    v.fields_unchanged("Deployment", "pricing", "pricing-api", [
        "spec.template.spec.containers[0].livenessProbe.httpGet.path",
        "spec.template.spec.containers[0].livenessProbe.periodSeconds",
        "spec.template.spec.containers[0].livenessProbe.failureThreshold",
        "spec.template.spec.containers[0].livenessProbe.initialDelaySeconds",
        "spec.template.spec.containers[0].image",
        "spec.template.spec.containers[0].readinessProbe",
        "spec.replicas", "spec.minReadySeconds",
    ])
    v.uid_preserved("Deployment", "pricing", "pricing-api")
    v.unchanged("Deployment", "pricing", "pricing-cache")
    v.exact_resource_set("Deployment", "pricing")
    v.no_bare_pods("pricing")
