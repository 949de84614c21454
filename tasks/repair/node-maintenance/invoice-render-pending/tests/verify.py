from kubeproof.verify import Result, contract
from kubeproof.verify.placement import placement

GENERAL = ["general-1", "general-2"]


@contract
def runs_only_on(ctx, namespace, name, nodes):
    """The renderer may be scheduled on exactly `nodes`, however the placement is spelled,
    without bypassing the scheduler, and runs there (the constraint, so a contract)."""
    result = placement.__kubeproof__(ctx, "Deployment", namespace, name, nodes)
    return Result(f"runs_only_on {namespace}/{name} {','.join(nodes)}", result.passed, result.reason)


def verify(v):
    # the renderer runs, on the render node, which is schedulable again
    v.healthy("billing", "invoice-render")
    v.pods_ready("billing", {"app": "invoice-render"}, 2, nodes=["render"])
    v.field_absent("Node", None, "render", "spec.unschedulable")
    # only on the render node, however that is written; nodes keep their labels (at every
    # point) and the general nodes stay as they are
    v.runs_only_on("billing", "invoice-render", ["render"])
    v.fields_unchanged("Node", None, "render", ["metadata.labels"])
    for node in GENERAL:
        v.fields_unchanged("Node", None, node, ["metadata.labels", "spec"])
    # the placement may be restated (nodeSelector or node affinity); nothing else in billing
    # changes at any point
    v.allow("Deployment", "billing", "invoice-render",
            ["spec.template.spec.nodeSelector", "spec.template.spec.affinity.nodeAffinity"])
    v.only_allowed_changes()
    v.no_bare_pods("billing")
