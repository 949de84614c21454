"""Label selectors (metav1.LabelSelector) as the API defines them."""


def matches(selector: dict | None, labels: dict[str, str] | None) -> bool:
    """An empty selector matches everything; a missing one (None) matches nothing."""
    if selector is None:
        return False
    labels = labels or {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def describe(selector: dict | None) -> str:
    if selector is None:
        return "<none>"
    parts = [f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items()]
    for expr in selector.get("matchExpressions") or []:
        values = ",".join(expr.get("values") or [])
        parts.append(
            f"{expr['key']} {expr['operator']} ({values})"
            if values
            else f"{expr['key']} {expr['operator']}"
        )
    return ",".join(parts) or "<all>"
