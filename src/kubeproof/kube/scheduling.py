"""Node selection rules as the API defines them (k8s.io/api v0.36.3 and k8s.io/component-
helpers v0.36.3): one node-selector requirement, and whether tolerations tolerate a taint."""


def requirement_matches(expr: dict, have: str | None) -> bool:
    """One NodeSelectorRequirement against the node's label (or field) value, `None` when
    the node has none (component-helpers scheduling/corev1/nodeaffinity; Gt/Lt compare
    integers and take exactly one value)."""
    op, values = expr.get("operator"), expr.get("values") or []
    if op == "In":
        return have is not None and have in values
    if op == "NotIn":
        return have is None or have not in values
    if op == "Exists":
        return have is not None
    if op == "DoesNotExist":
        return have is None
    if op in ("Gt", "Lt") and have is not None and len(values) == 1:
        try:
            a, b = int(have), int(values[0])
        except ValueError:
            return False
        return a > b if op == "Gt" else a < b
    return False


def tolerates(taint: dict, tolerations: list[dict]) -> bool:
    """Some toleration tolerates the taint (k8s.io/api/core/v1/toleration.go
    ToleratesTaint: effect and key when given, then Equal compares values, Exists any)."""
    for t in tolerations:
        if t.get("effect") and t.get("effect") != taint.get("effect"):
            continue
        if t.get("key") and t.get("key") != taint.get("key"):
            continue
        op = t.get("operator") or "Equal"
        if op == "Exists" or (
            op == "Equal" and (t.get("value") or "") == (taint.get("value") or "")
        ):
            return True
    return False
