MEM = "spec.template.spec.containers[0].resources.limits.memory"


def verify(v):
    v.rollout_complete("orders", "worker")
    v.pods_ready("orders", {"app": "worker"}, 2)
    v.rollout_complete("orders", "reporting")
    v.pods_ready("orders", {"app": "reporting"}, 2)
    v.service_has_ready_endpoints("orders", "reporting", minimum=2)
    # the quota as the platform team set it; both workloads still sized and at full size
    v.uid_preserved("ResourceQuota", "orders", "memory")
    v.unchanged("ResourceQuota", "orders", "memory")
    v.exact_resource_set("ResourceQuota", "orders")
    v.field_is("Deployment", "orders", "worker", MEM, None)
    v.field_is("Deployment", "orders", "reporting", MEM, None)
    for name in ["worker", "reporting"]:
        v.uid_preserved("Deployment", "orders", name)
        v.fields_unchanged("Deployment", "orders", name,
                           ["spec.replicas", "spec.template.spec.containers[0].image"])
    v.unchanged("Deployment", "orders", "api")
    v.exact_resource_set("Deployment", "orders")
    v.no_bare_pods("orders")
