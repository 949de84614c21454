def verify(v):
    v.rollout_complete("finance", "ledger")
    v.pods_ready("finance", {"app": "ledger"}, 2, nodes=["ledger"])
    v.service_has_ready_endpoints("finance", "ledger", minimum=2)
    # the same Deployment, still pinned to its node, with its image and size
    v.uid_preserved("Deployment", "finance", "ledger")
    v.field_is("Deployment", "finance", "ledger", "spec.template.spec.nodeSelector", {"pool": "ledger"})
    v.fields_unchanged(
        "Deployment", "finance", "ledger",
        ["spec.replicas", "spec.template.spec.containers[0].image"],
    )
    # the node stays dedicated
    v.fields_unchanged("Node", None, "ledger", ["spec.taints", "metadata.labels.pool"])
    v.unchanged("Deployment", "finance", "reports")
    v.exact_resource_set("Deployment", "finance")
    v.no_bare_pods("finance")
