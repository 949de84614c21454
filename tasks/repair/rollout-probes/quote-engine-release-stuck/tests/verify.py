def verify(v):
    v.rollout_complete("quotes", "quote-engine")
    v.pods_ready("quotes", {"app": "quote-engine"}, 2)
    v.service_has_ready_endpoints("quotes", "quote-engine", minimum=2)
    # the release as released, on the same Deployment, still checked at start-up and for
    # readiness
    v.uid_preserved("Deployment", "quotes", "quote-engine")
    v.fields_unchanged("Deployment", "quotes", "quote-engine", [
        "spec.template.spec.containers[0].image",
        "spec.template.spec.containers[0].env",
        "spec.template.spec.containers[0].ports",
        "spec.replicas",
    ])
    v.field_is("Deployment", "quotes", "quote-engine",
               "spec.template.spec.containers[0].startupProbe.httpGet.path", "/healthz")
    v.field_is("Deployment", "quotes", "quote-engine",
               "spec.template.spec.containers[0].readinessProbe.httpGet.path", "/ready")
    v.ownership_chain("quotes", "quote-engine")
    v.unchanged("Deployment", "quotes", "quote-engine-batch")
    v.unchanged("Service", "quotes", "quote-engine")
    v.unchanged("Deployment", "quotes", "rates-cache")
    v.exact_resource_set("Deployment", "quotes")
    v.no_bare_pods("quotes")
