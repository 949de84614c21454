C = "spec.template.spec.containers[0]"


def verify(v):
    v.rollout_complete("ml", "feature-store")
    v.pods_ready("ml", {"app": "feature-store"}, 2)
    v.service_has_ready_endpoints("ml", "feature-store", minimum=2)
    # the workload carries the agreed size; the defaults stay
    v.field_is("Deployment", "ml", "feature-store", f"{C}.resources.limits.memory", "512Mi",
               quantity=True)
    v.field_is("Deployment", "ml", "feature-store", f"{C}.resources.requests.memory", "256Mi",
               quantity=True)
    v.uid_preserved("LimitRange", "ml", "defaults")
    v.unchanged("LimitRange", "ml", "defaults")
    v.exact_resource_set("LimitRange", "ml")
    v.unchanged("ConfigMap", "ml", "capacity-agreements")
    v.uid_preserved("Deployment", "ml", "feature-store")
    v.fields_unchanged("Deployment", "ml", "feature-store", ["spec.replicas", f"{C}.image"])
    v.unchanged("Deployment", "ml", "feature-api")
    v.exact_resource_set("Deployment", "ml")
    v.no_bare_pods("ml")
