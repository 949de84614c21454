NS = "finance"
NODES = ["general-1", "general-2", "ledger"]


def verify(v):
    # the outcome: the ledger serves, from its dedicated node
    v.healthy(NS, "ledger")
    v.placement("Deployment", NS, "ledger", ["ledger"])
    # the shape: only where the ledger may be scheduled changes (selector, affinity,
    # tolerations), it still means "the ledger node and only there", and the node keeps
    # its labels and taint throughout, so it stays dedicated
    v.placement_at_baseline("Deployment", NS, "ledger", ["ledger"])
    v.allow("Deployment", NS, "ledger", [
        "spec.template.spec.nodeSelector",
        "spec.template.spec.affinity",
        "spec.template.spec.tolerations",
    ])
    # pausing the rollout for a multi-step edit and resuming it is fine (it must end
    # unpaused), and so is recording a change-cause
    v.allow("Deployment", NS, "ledger", [
        "spec.paused", 'metadata.annotations["kubernetes.io/change-cause"]'])
    v.field_absent("Deployment", NS, "ledger", "spec.paused")
    v.only_allowed_changes()
    for node in NODES:
        v.fields_unchanged("Node", None, node,
                           ["metadata.labels", "spec.taints", "spec.unschedulable"])
    v.no_bare_pods(NS)
