SSD = ["fast-1", "fast-2"]


def verify(v):
    v.rollout_complete("search", "indexer")
    v.pods_ready("search", {"app": "indexer"}, 2, nodes=SSD)
    v.service_has_ready_endpoints("search", "indexer", minimum=2)
    # the workload follows the new labels; the nodes keep theirs
    v.field_is("Deployment", "search", "indexer", "spec.template.spec.nodeSelector", {"disk": "ssd"})
    v.uid_preserved("Deployment", "search", "indexer")
    v.fields_unchanged(
        "Deployment", "search", "indexer",
        ["spec.replicas", "spec.template.spec.containers[0].image"],
    )
    for node in ["general-1", "general-2", *SSD]:
        v.fields_unchanged("Node", None, node, ["metadata.labels", "spec.taints"])
    v.unchanged("Deployment", "search", "frontend")
    v.exact_resource_set("Deployment", "search")
    v.no_bare_pods("search")
