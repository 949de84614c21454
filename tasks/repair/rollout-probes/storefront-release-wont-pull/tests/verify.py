def verify(v):
    v.rollout_complete("web", "storefront")
    v.pods_ready("web", {"app": "storefront"}, 2)
    v.service_has_ready_endpoints("web", "storefront", minimum=2)
    # the release, as released, on the same Deployment
    v.field_is("Deployment", "web", "storefront", "spec.template.spec.containers[0].image",
               "acme/storefront:4.3.0")
    v.fields_unchanged("Deployment", "web", "storefront",
                       ["spec.template.spec.containers[0].env", "spec.replicas",
                        "spec.template.spec.containers[0].readinessProbe"])
    v.uid_preserved("Deployment", "web", "storefront")
    v.ownership_chain("web", "storefront")
    v.no_bare_pods("web")
