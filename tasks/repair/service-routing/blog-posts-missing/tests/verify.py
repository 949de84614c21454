def verify(v):
    v.rollout_complete("blog", "frontend")
    v.pods_ready("blog", {"app": "frontend"}, 2)
    v.service_has_ready_endpoints("blog", "posts-api", minimum=2)
    v.connectivity("blog/app=frontend", "posts-api:80")
    # the Service is fixed in place; the posts API and the frontend keep their spec
    v.uid_preserved("Service", "blog", "posts-api")
    v.field_is("Service", "blog", "posts-api", "spec.selector", {"app": "posts-api"})
    v.fields_unchanged("Service", "blog", "posts-api", ["spec.ports[0].port"])
    v.unchanged("Deployment", "blog", "posts-api")
    v.fields_unchanged("Deployment", "blog", "frontend",
                       ["spec.template.spec.containers[0].env", "spec.template.spec.containers[0].image"])
    v.unchanged("Service", "blog", "frontend")
    v.exact_resource_set("Service", "blog")
    v.exact_resource_set("Deployment", "blog")
    v.no_bare_pods("blog")
