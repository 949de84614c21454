"""Placement judged by the set of nodes a pod template may be scheduled on (nodeSelector,
node affinity, taints and tolerations, cordons, however spelled), as the scheduler's
filters decide it, and by the ways a template steps around the scheduler."""

from lightkube.resources.core_v1 import Node, Pod

from kubeproof.kube.scheduling import requirement_matches, tolerates
from kubeproof.verify.protection import current
from kubeproof.verify.registry import Context, check, contract
from kubeproof.verify.result import Result
from kubeproof.verify.workloads import _label, _workload, pod_spec


def eligible(spec: dict, node: dict) -> bool:
    """May the scheduler place a pod with this spec on the node (nodeSelector, required
    node affinity, taints with NoSchedule/NoExecute, cordons)?"""
    meta = node.get("metadata") or {}
    labels = meta.get("labels") or {}
    tolerations = spec.get("tolerations") or []
    if (node.get("spec") or {}).get("unschedulable") and not tolerates(
        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}, tolerations
    ):
        return False
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(taint, tolerations):
            return False
    if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
        return False
    required = (
        ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        or {}
    ).get("nodeSelectorTerms")
    if required:
        fields = {"metadata.name": meta.get("name", "")}
        return any(
            all(
                requirement_matches(e, labels.get(e.get("key")))
                for e in term.get("matchExpressions") or []
            )
            and all(
                requirement_matches(e, fields.get(e.get("key")))
                for e in term.get("matchFields") or []
            )
            and (term.get("matchExpressions") or term.get("matchFields"))
            for term in required
        )
    return True


def bypasses(spec: dict) -> list[str]:
    """Ways a pod template steps around the scheduler's protections."""
    found = []
    if spec.get("nodeName"):
        found.append(f"pins nodeName {spec['nodeName']}")
    for t in spec.get("tolerations") or []:
        if t.get("operator") == "Exists" and not t.get("key"):
            found.append("tolerates every taint (operator Exists without a key)")
        elif t.get("key") == "node.kubernetes.io/unschedulable":
            found.append("tolerates cordoned nodes")
    return found


@check
def placement(ctx: Context, kind: str, namespace: str, name: str, nodes: list[str]) -> Result:
    """The set of nodes the pod template may be scheduled on (nodeSelector, node affinity,
    taints and tolerations, cordons, however spelled) is exactly `nodes`; the template does
    not bypass the scheduler (nodeName, tolerating cordons or every taint); and its running
    pods are on those nodes."""
    check = f"placement {_label(kind, namespace, name)}"
    obj, problem = _workload(ctx, kind, namespace, name)
    if obj is None:
        return Result(check, False, problem or "not found")
    spec = pod_spec(obj)
    bypass = bypasses(spec)
    if bypass:
        return Result(check, False, "; ".join(bypass))
    allowed = sorted(n.metadata.name for n in ctx.client.list(Node) if eligible(spec, n.to_dict()))
    if allowed != sorted(nodes):
        return Result(
            check,
            False,
            f"may run on {', '.join(allowed) or 'no node'}, want {', '.join(sorted(nodes))}",
        )
    selector = ((obj.get("spec") or {}).get("selector") or {}).get("matchLabels")
    misplaced = []
    if selector:
        for p in ctx.client.list(Pod, namespace=namespace, labels=selector):
            if (
                p.metadata.deletionTimestamp is None
                and p.spec.nodeName
                and p.spec.nodeName not in nodes
            ):
                misplaced.append(f"{p.metadata.name} on {p.spec.nodeName}")
    if misplaced:
        return Result(check, False, f"may run on {', '.join(allowed)}, but {', '.join(misplaced)}")
    return Result(check, True, f"may run on exactly {', '.join(allowed)}")


@contract(baseline=True)
def placement_at_baseline(
    ctx: Context, kind: str, namespace: str, name: str, nodes: list[str]
) -> Result:
    """The pod template may be scheduled on exactly `nodes` of the nodes as they were at
    baseline (so relabelling or untainting a node to make a selector fit does not count),
    however the selector, affinity or tolerations are spelled, without bypassing the
    scheduler (nodeName, tolerating cordons or every taint)."""
    label = f"placement_at_baseline {_label(kind, namespace, name)}"
    obj = current(ctx, kind, namespace, name)
    if obj is None:
        return Result(label, False, "gone")
    spec = pod_spec(obj)
    bypass = bypasses(spec)
    if bypass:
        return Result(label, False, "; ".join(bypass))
    allowed = sorted(
        n
        for n in ctx.baseline.names("Node", None)
        if eligible(spec, ctx.baseline.get("Node", None, n) or {})
    )
    ok = allowed == sorted(nodes)
    return Result(
        label,
        ok,
        f"may run on {', '.join(allowed) or 'no node'} of the baseline's nodes"
        + ("" if ok else f", want {', '.join(sorted(nodes))}"),
    )
