from kubeproof.verify import Result, contract
from kubeproof.verify.protection import current
from kubeproof.verify.workloads import bypasses, eligible, pod_spec

NS = "search"
SSD = ["fast-1", "fast-2"]
NODES = ["general-1", "general-2", *SSD]


@contract(baseline=True)
def ssd_nodes_only(ctx, namespace, name, nodes):
    """The pod template may be scheduled on exactly these nodes, judged against the nodes
    as they were at baseline (however the selector or affinity is spelled), and it does not
    step around the scheduler (nodeName, blanket tolerations)."""
    obj = current(ctx, "Deployment", namespace, name)
    if obj is None:
        return Result("ssd_nodes_only", False, f"Deployment {namespace}/{name} is gone")
    spec = pod_spec(obj)
    bypass = bypasses(spec)
    if bypass:
        return Result("ssd_nodes_only", False, "; ".join(bypass))
    allowed = sorted(n for n in ctx.baseline.names("Node", None)
                     if eligible(spec, ctx.baseline.get("Node", None, n)))
    return Result("ssd_nodes_only", allowed == sorted(nodes),
                  f"may run on {', '.join(allowed) or 'no node'}"
                  + ("" if allowed == sorted(nodes) else f", want {', '.join(sorted(nodes))}"))


def verify(v):
    # the outcome: the indexer serves, from the SSD nodes
    v.healthy(NS, "indexer")
    v.placement("Deployment", NS, "indexer", SSD)
    # the shape: only where the indexer may be scheduled changes (selector or affinity, any
    # spelling), it still means "the SSD nodes", and the nodes keep their labels and taints
    v.ssd_nodes_only(NS, "indexer", SSD)
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
