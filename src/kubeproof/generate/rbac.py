"""RBAC decided offline over a set of objects, as the apiserver's authorizer decides it
(kubernetes v1.36.3 pkg/apis/rbac/v1/evaluation_helpers.go VerbMatches, APIGroupMatches,
ResourceMatches, ResourceNameMatches, NonResourceURLMatches; plugin/pkg/auth/authorizer/rbac
rbac.go appliesTo and subject matching). The live stage asks SubjectAccessReviews; this twin
lets a permission matrix be proven against a reference answer without a cluster. Aggregated
ClusterRoles are not resolved (the controller fills their rules live)."""

from kubeproof.generate.model import Cell, Subject


def _verb(rule: dict, verb: str) -> bool:
    return any(v in ("*", verb) for v in rule.get("verbs") or [])


def _group(rule: dict, group: str) -> bool:
    return any(g in ("*", group) for g in rule.get("apiGroups") or [])


def _resource(rule: dict, resource: str, subresource: str) -> bool:
    # "pods/*" is not "every subresource of pods"; "*/log" is "log of every resource"
    combined = f"{resource}/{subresource}" if subresource else resource
    for r in rule.get("resources") or []:
        if r in ("*", combined):
            return True
        if subresource and r == f"*/{subresource}":
            return True
    return False


def _name(rule: dict, name: str) -> bool:
    names = rule.get("resourceNames") or []
    return not names or name in names


def _url(rule: dict, path: str) -> bool:
    for u in rule.get("nonResourceURLs") or []:
        if u in ("*", path) or (u.endswith("*") and path.startswith(u[:-1])):
            return True
    return False


def rule_allows(rule: dict, cell: Cell) -> bool:
    if not _verb(rule, cell.verb):
        return False
    if cell.path:
        return _url(rule, cell.path)
    return (
        _group(rule, cell.group)
        and _resource(rule, cell.resource, cell.subresource)
        and _name(rule, cell.name)
    )


def _names_subject(subject: dict, who: Subject, binding_ns: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name")
    if kind != who.kind or name != who.name:
        return False
    if who.kind == "ServiceAccount":
        # a ServiceAccount subject without a namespace means the binding's own (RoleBinding)
        return (subject.get("namespace") or binding_ns) == who.namespace
    return subject.get("apiGroup", "rbac.authorization.k8s.io") == "rbac.authorization.k8s.io"


def _index(objects: list[dict]) -> dict[tuple[str, str, str], dict]:
    return {
        (o.get("kind", ""), (o.get("metadata") or {}).get("namespace") or "", _meta_name(o)): o
        for o in objects
        if isinstance(o, dict)
    }


def _meta_name(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("name") or ""


def _role_rules(index: dict, ref: dict, namespace: str) -> list[dict]:
    kind = ref.get("kind")
    if ref.get("apiGroup") != "rbac.authorization.k8s.io" or kind not in ("Role", "ClusterRole"):
        return []
    role = index.get((kind, namespace if kind == "Role" else "", ref.get("name") or ""))
    return [r for r in (role or {}).get("rules") or [] if isinstance(r, dict)]


def allowed(objects: list[dict], who: Subject, cell: Cell) -> bool:
    """Whether the bindings and roles among `objects` let `who` do `cell`."""
    index = _index(objects)
    for obj in objects:
        if not isinstance(obj, dict):
            continue
        kind = obj.get("kind")
        ns = (obj.get("metadata") or {}).get("namespace") or ""
        if kind == "RoleBinding":
            # grants only inside its namespace, and never cluster-scoped or URL access
            if cell.path or cell.namespace != ns:
                continue
        elif kind != "ClusterRoleBinding":
            continue
        if not any(
            isinstance(s, dict) and _names_subject(s, who, ns) for s in obj.get("subjects") or []
        ):
            continue
        rules = _role_rules(index, obj.get("roleRef") or {}, ns)
        if any(rule_allows(r, cell) for r in rules):
            return True
    return False
