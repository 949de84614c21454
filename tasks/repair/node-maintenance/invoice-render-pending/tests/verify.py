NODES = ["general-1", "general-2", "render"]  # uncordoning drops render's taint


def verify(v):
    v.rollout_complete("billing", "invoice-render")
    v.pods_ready("billing", {"app": "invoice-render"}, 2, nodes=["render"])
    v.service_has_ready_endpoints("billing", "invoice-render", minimum=2)
    # still pinned to the render node, nodes labelled as they were
    v.field_is("Deployment", "billing", "invoice-render", "spec.template.spec.nodeSelector",
               {"workload": "render"})
    for node in NODES:
        v.fields_unchanged("Node", None, node, ["metadata.labels"])
    v.uid_preserved("Deployment", "billing", "invoice-render")
    v.fields_unchanged("Deployment", "billing", "invoice-render",
                       ["spec.replicas", "spec.template.spec.containers[0].image"])
    v.unchanged("Deployment", "billing", "billing-api")
    v.exact_resource_set("Deployment", "billing")
    v.no_bare_pods("billing")
