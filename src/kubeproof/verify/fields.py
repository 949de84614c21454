"""Reading a field by path (`spec.template.spec.containers[0].image`, `metadata.labels.app`,
`metadata.labels["pod-security.kubernetes.io/enforce"]` for keys with dots)
and comparing values the way Kubernetes means them (`1Gi` == `1024Mi`, `500m` == `0.5`)."""

import re
from decimal import Decimal

from kubeproof.nodesim.quantity import parse

_MISSING = object()
_STEP = re.compile(r'([^.\[\]"]+)|\[(\d+)\]|\["([^"]+)"\]|\[name=([^\]]+)\]')


def get_path(obj, path: str):
    """The value at a path; `[name=x]` picks the list item named x (a container, an env
    var, a volume) wherever it is in the list."""
    current = obj
    for name, index, quoted, named in _STEP.findall(path):
        name = name or quoted
        if named:
            items = current if isinstance(current, list) else []
            found = [i for i in items if isinstance(i, dict) and i.get("name") == named]
            if not found:
                return _MISSING
            current = found[0]
        elif name:
            if not isinstance(current, dict) or name not in current:
                return _MISSING
            current = current[name]
        else:
            if not isinstance(current, list) or int(index) >= len(current):
                return _MISSING
            current = current[int(index)]
    return current


def missing(value) -> bool:
    return value is _MISSING


def equal(actual, expected, quantity: bool = False) -> bool:
    if quantity:
        try:
            return parse(str(actual)) == parse(str(expected))
        except ValueError:
            return False
    if isinstance(actual, bool) or isinstance(expected, bool):  # bool is an int to Python
        return actual is expected
    if isinstance(actual, int | float) and isinstance(expected, int | float):
        return Decimal(str(actual)) == Decimal(str(expected))
    return actual == expected
