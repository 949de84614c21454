NS = "search"
SSD = ["fast-1", "fast-2"]
NODES = ["general-1", "general-2", *SSD]


def verify(v):
    # the outcome: the indexer serves, from the SSD nodes
    v.healthy(NS, "indexer")
    v.placement("Deployment", NS, "indexer", SSD)
    # the shape: only where the indexer may be scheduled changes (selector or affinity, any
    # spelling), it still means "the SSD nodes", and the nodes keep their labels and taints
    v.placement_at_baseline("Deployment", NS, "indexer", SSD)
    v.allow("Deployment", NS, "indexer",
            ["spec.template.spec.nodeSelector", "spec.template.spec.affinity"])
    # pausing the rollout for a multi-step edit and resuming it is fine (it must end
    # unpaused), and so is recording a change-cause
    v.allow("Deployment", NS, "indexer", [
        "spec.paused", 'metadata.annotations["kubernetes.io/change-cause"]'])
    v.field_absent("Deployment", NS, "indexer", "spec.paused")
    v.only_allowed_changes()
    for node in NODES:
        v.fields_unchanged("Node", None, node,
                           ["metadata.labels", "spec.taints", "spec.unschedulable"])
    v.no_bare_pods(NS)
