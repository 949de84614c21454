from kubeproof.verify import Result, contract
from kubeproof.verify.protection import current
from kubeproof.verify.workloads import bypasses, eligible, pod_spec

NS = "finance"
NODES = ["general-1", "general-2", "ledger"]


@contract(baseline=True)
def ledger_node_only(ctx, namespace, name, nodes):
    """The pod template may be scheduled on exactly these nodes, judged against the nodes
    as they were at baseline (selector, affinity and tolerations however spelled), and it
    does not step around the scheduler (nodeName, a toleration of every taint)."""
    obj = current(ctx, "Deployment", namespace, name)
    if obj is None:
        return Result("ledger_node_only", False, f"Deployment {namespace}/{name} is gone")
    spec = pod_spec(obj)
    bypass = bypasses(spec)
    if bypass:
        return Result("ledger_node_only", False, "; ".join(bypass))
    allowed = sorted(n for n in ctx.baseline.names("Node", None)
                     if eligible(spec, ctx.baseline.get("Node", None, n)))
    return Result("ledger_node_only", allowed == sorted(nodes),
                  f"may run on {', '.join(allowed) or 'no node'}"
                  + ("" if allowed == sorted(nodes) else f", want {', '.join(sorted(nodes))}"))


def verify(v):
    # the outcome: the ledger serves, from its dedicated node
    v.healthy(NS, "ledger")
    v.placement("Deployment", NS, "ledger", ["ledger"])
    # the shape: only where the ledger may be scheduled changes (selector, affinity,
    # tolerations), it still means "the ledger node and only there", and the node keeps
    # its labels and taint throughout, so it stays dedicated
    v.ledger_node_only(NS, "ledger", ["ledger"])
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
