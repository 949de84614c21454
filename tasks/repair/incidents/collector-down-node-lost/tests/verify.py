from lightkube.resources.core_v1 import Node

from kubeproof.verify import Result, contract
from kubeproof.verify.checks import read_object
from kubeproof.verify.placement import eligible
from kubeproof.verify.workloads import pod_spec

POOL = ["ingest-1", "ingest-2", "ingest-3"]
UP = ["ingest-2", "ingest-3"]
# what a node's trouble adds; a placement by pool ignores it
TROUBLE = ("node.kubernetes.io/",)


@contract
def placed_by_pool(ctx, kind, namespace, name, pool):
    """The pod template may run on exactly the pool's nodes once they are healthy again (the
    node-condition taints and cordons set aside): placed by pool, not by naming the nodes
    that happen to be up."""
    check = f"placed_by_pool {kind} {namespace}/{name}"
    obj, problem = read_object(ctx, kind, namespace, name)
    if obj is None:
        return Result(check, False, problem or "not found")
    spec = pod_spec(obj)
    fits = []
    for node in ctx.client.list(Node):
        data = node.to_dict()
        nspec = dict(data.get("spec") or {})
        nspec.pop("unschedulable", None)
        nspec["taints"] = [t for t in nspec.get("taints") or []
                           if not t.get("key", "").startswith(TROUBLE)]
        if eligible(spec, {**data, "spec": nspec}):
            fits.append(data["metadata"]["name"])
    ok = sorted(fits) == sorted(pool)
    return Result(check, ok, f"healthy, it may run on {', '.join(sorted(fits)) or 'no node'}"
                  + ("" if ok else f", want {', '.join(sorted(pool))}"))


def verify(v):
    # the outcome: the collector runs and serves, on the ingest nodes that are up
    v.healthy("telemetry", "collector")
    v.pods_ready("telemetry", {"app": "collector"}, 2, nodes=UP)
    # placement by meaning: exactly the pool's schedulable nodes, no scheduler bypass
    # (nodeName, tolerating cordons or every taint), however the template spells it
    v.placement("Deployment", "telemetry", "collector", nodes=UP)
    v.placed_by_pool("Deployment", "telemetry", "collector", POOL)
    # the shape: where the collector may be scheduled is all a fix may change; the
    # nodes, the gateway and everything else as they were throughout
    v.allow("Deployment", "telemetry", "collector",
            ["spec.template.spec.nodeSelector", "spec.template.spec.affinity"])
    v.only_allowed_changes()
    for node in [*POOL, "batch"]:
        v.fields_unchanged("Node", None, node, ["metadata.labels", "metadata.annotations",
                                                 "spec.unschedulable"])
    # and the healthy nodes keep their taints: tainting the batch node is not a placement
    # (the lost node's taints are the node controller's to change)
    for node in [*UP, "batch"]:
        v.fields_unchanged("Node", None, node, ["spec.taints"])
    v.no_bare_pods("telemetry")
