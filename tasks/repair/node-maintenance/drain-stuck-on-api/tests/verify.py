OTHERS = ["node-1", "node-3"]


def verify(v):
    # node-2 is cordoned and empty; everything runs elsewhere
    v.field_equals("v1", "Node", "node-2", "spec.taints[0].key", "node.kubernetes.io/unschedulable")
    v.rollout_complete("shop", "api")
    v.pods_ready("shop", {"app": "api"}, 2, nodes=OTHERS)
    v.rollout_complete("shop", "worker")
    v.pods_ready("shop", {"app": "worker"}, 2, nodes=OTHERS)
    v.pods_ready("shop", {"app": "cache"}, 1, nodes=OTHERS)
    v.service_has_ready_endpoints("shop", "api", minimum=2)
    # the maintenance went through, the budget and the api's size are as they were
    v.fields_unchanged("Node", None, "node-2", ["spec.unschedulable"])
    v.uid_preserved("PodDisruptionBudget", "shop", "api")
    v.unchanged("PodDisruptionBudget", "shop", "api")
    v.unchanged("PodDisruptionBudget", "shop", "worker")
    v.uid_preserved("Deployment", "shop", "api")
    v.fields_unchanged("Deployment", "shop", "api",
                       ["spec.replicas", "spec.template.spec.containers[0].image"])
    v.unchanged("Deployment", "shop", "worker")
    v.unchanged("Deployment", "shop", "cache")
    v.exact_resource_set("Deployment", "shop")
    v.no_bare_pods("shop")
