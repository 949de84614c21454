NS = "orders"
CAUSE = 'metadata.annotations["kubernetes.io/change-cause"]'


def verify(v):
    # the outcome: both workers process orders, reporting and the api serve
    v.rollout_complete(NS, "worker")
    v.pods_ready(NS, {"app": "worker"}, 2)
    v.healthy(NS, "reporting")
    v.healthy(NS, "api")
    # both workloads still sized by their own limits
    v.field_is("Deployment", NS, "worker",
               "spec.template.spec.containers[name=worker].resources.limits.memory", None)
    v.field_is("Deployment", NS, "reporting",
               "spec.template.spec.containers[name=reporting].resources.limits.memory", None)
    # the shape: the two containers' resources (and the change-cause a rollback rewrites)
    # are all a fix may change; the quota, replica counts, the api and everything else stay
    # as they were throughout (reporting's availability is watched by the safety monitor)
    v.allow("Deployment", NS, "worker",
            ["spec.template.spec.containers[name=worker].resources", CAUSE])
    v.allow("Deployment", NS, "reporting",
            ["spec.template.spec.containers[name=reporting].resources", CAUSE])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
