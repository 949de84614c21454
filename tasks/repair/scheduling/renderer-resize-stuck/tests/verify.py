def verify(v):
    v.rollout_complete("media", "renderer")
    v.pods_ready("media", {"app": "renderer"}, 2)
    v.service_has_ready_endpoints("media", "renderer", minimum=2)
    # the approved size, from the change-cause
    v.field_equals("apps/v1", "Deployment", "renderer",
                   "spec.template.spec.containers[0].resources.requests.cpu", "500m",
                   namespace="media", quantity=True)
    # the change went out: still sized, not rolled back
    v.field_is("Deployment", "media", "renderer",
               "spec.template.spec.containers[0].resources.requests.cpu", None)
    v.fields_unchanged(
        "Deployment", "media", "renderer",
        ["spec.replicas", "spec.template.spec.containers[0].image",
         "spec.template.spec.containers[0].env",
         "spec.template.spec.containers[0].resources.requests.memory"],
    )
    v.uid_preserved("Deployment", "media", "renderer")
    v.unchanged("Deployment", "media", "thumbnails")
    v.exact_resource_set("Deployment", "media")
    v.no_bare_pods("media")
