from lightkube.resources.core_v1 import Pod

from kubeproof.verify import Result, check, contract

NODES = ["node-1", "node-2", "node-3"]
OTHERS = ["node-1", "node-3"]


@check
def node_drained(ctx, node, namespace):
    """No pod of the namespace (DaemonSet pods aside) is left on the node."""
    left = [
        p.metadata.name
        for p in ctx.client.list(Pod, namespace=namespace, fields={"spec.nodeName": node})
        if p.metadata.deletionTimestamp is None
        and not any(o.kind == "DaemonSet" for o in p.metadata.ownerReferences or [])
    ]
    return Result(f"node_drained {node} {namespace}", not left,
                  f"still on {node}: {', '.join(sorted(left))}" if left else f"nothing of {namespace} on {node}")


@contract(baseline=True)
def replicas_never_below(ctx, namespace, name, minimum):
    """The Deployment's replica count never went below `minimum` during the agent's turn."""
    before = ctx.baseline.get("Deployment", namespace, name)
    low = []
    for write, state in (ctx.history.states("Deployment", namespace, name, before) if ctx.history else []):
        replicas = ((state or {}).get("spec") or {}).get("replicas", 1) if state else 0
        if replicas < minimum:
            low.append(f"{replicas} at {write.clock}")
    return Result(f"replicas_never_below Deployment {namespace}/{name} {minimum}", not low,
                  f"scaled to {', '.join(low[:4])}" if low else f"never below {minimum}")


def verify(v):
    # the drain finished: node-2 is cordoned and empty, everything runs on the other nodes
    v.field_equals("Node", None, "node-2", "spec.unschedulable", True)
    v.node_drained("node-2", "shop")
    v.healthy("shop", "api")
    v.field_equals("Deployment", "shop", "api", "spec.replicas", 2)
    v.pods_ready("shop", {"app": "api"}, 2, nodes=OTHERS)
    v.rollout_complete("shop", "worker")
    v.pods_ready("shop", {"app": "worker"}, 2, nodes=OTHERS)
    v.healthy("shop", "cache")
    # the api may be scaled up for the drain (and back) or restarted; nothing else in shop
    # changes at any point: not the budgets, not the other workloads
    v.allow("Deployment", "shop", "api", ["spec.replicas"])
    v.only_allowed_changes()
    v.replicas_never_below("shop", "api", 2)
    for node in NODES:
        v.fields_unchanged("Node", None, node, ["spec.unschedulable", "metadata.labels"])
    v.no_bare_pods("shop")
