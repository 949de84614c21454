"""What one template makes before it becomes a task (the parts that differ per type and
tier), and the small builders templates share: object metadata, fixtures, references and
permission-matrix cells derived from the rules a request asks for."""

from dataclasses import dataclass, field
from functools import partial

from kubeproof.generate import rbac
from kubeproof.generate.model import Cell, Check, Mutant, ObjectRef

RBAC_API = "rbac.authorization.k8s.io/v1"
RBAC_GROUP = "rbac.authorization.k8s.io"
WRITES_AND_READS = ("get", "list", "create", "update", "patch", "delete")


@dataclass
class Draft:
    scenario: str
    full: str
    simplified: str
    terse: str
    objects: list[dict]  # the reference answer's objects, in order
    checks: list[Check]
    fixtures: list[dict] = field(default_factory=list)
    extra_kinds: list[str] = field(default_factory=list)  # kinds beyond the objects'
    # UPDATE, DELETE and COMMAND: what must be gone, what must stay (None: the objects), the
    # command that answers (None: the objects' manifests) and their own mutants
    absent: list[dict] = field(default_factory=list)
    expected: list[dict] | None = None
    command: str | None = None
    mutants: list[Mutant] | None = None


def meta(name: str, namespace: str | None = None, labels: dict | None = None) -> dict:
    out: dict = {"name": name}
    if namespace:
        out["namespace"] = namespace
    if labels:
        out["labels"] = dict(labels)
    return out


def ref(obj: dict) -> ObjectRef:
    m = obj["metadata"]
    return ObjectRef(
        api_version=obj["apiVersion"],
        kind=obj["kind"],
        name=m["name"],
        namespace=m.get("namespace"),
    )


def namespace_fixture(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(name)}


def serviceaccount(name: str, namespace: str) -> dict:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(name, namespace)}


def role(kind: str, name: str, namespace: str | None, rules: list[dict]) -> dict:
    return {"apiVersion": RBAC_API, "kind": kind, "metadata": meta(name, namespace), "rules": rules}


def rule(group: str, resources: list[str], verbs: list[str], names: list[str] | None = None):
    out: dict = {"apiGroups": [group], "resources": list(resources), "verbs": list(verbs)}
    if names:
        out["resourceNames"] = list(names)
    return out


def split(resource: str) -> tuple[str, str]:
    base, _, sub = resource.partition("/")
    return base, sub


def cells_for(rules: list[dict], namespaces: list[str], candidates: list[Cell]) -> list[Cell]:
    """Allow cells for every (verb, resource, name) the rules grant, in each namespace of
    `namespaces`, then the `candidates` (near misses) the rules do not grant, as deny cells."""
    allow: list[Cell] = []
    for r in rules:
        for url in r.get("nonResourceURLs") or []:
            allow += [Cell(verb=v, path=url, allowed=True) for v in r["verbs"]]
        for resource in r.get("resources") or []:
            base, sub = split(resource)
            for verb in r["verbs"]:
                for ns in namespaces:
                    for name in r.get("resourceNames") or [""]:
                        allow.append(
                            Cell(
                                verb=verb,
                                group=r["apiGroups"][0],
                                resource=base,
                                subresource=sub,
                                namespace=ns,
                                name=name,
                                allowed=True,
                            )
                        )
    deny = [
        c.model_copy(update={"allowed": False})
        for c in candidates
        if not any(rbac.rule_allows(r, c) for r in rules)
    ]
    seen: set[str] = set()
    out = []
    for c in allow + deny:
        key = c.model_dump_json()
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def near_misses(rules: list[dict], namespace: str, elsewhere: str | None) -> list[Cell]:
    """Questions a sloppy answer gets wrong: writes on what was only to be read, sibling and
    dangerous resources, the same access in another namespace, other names than the asked."""
    out: list[Cell] = []
    for r in rules:
        for resource in r.get("resources") or []:
            base, sub = split(resource)
            deny = partial(
                Cell, group=r["apiGroups"][0], resource=base, subresource=sub, allowed=False
            )
            out += [deny(verb=v, namespace=namespace) for v in WRITES_AND_READS]
            if r.get("resourceNames"):
                out.append(deny(verb=r["verbs"][0], namespace=namespace, name="some-other"))
            if elsewhere is not None:
                out.append(deny(verb=r["verbs"][0], namespace=elsewhere))
    for verb, group, resource, sub in (
        ("get", "", "secrets", ""),
        ("list", "", "secrets", ""),
        ("create", "", "pods", "exec"),
        ("delete", "", "pods", ""),
        ("escalate", RBAC_GROUP, "roles", ""),
        ("bind", RBAC_GROUP, "roles", ""),
    ):
        out.append(
            Cell(
                verb=verb,
                group=group,
                resource=resource,
                subresource=sub,
                namespace=namespace,
                allowed=False,
            )
        )
    out.append(Cell(verb="list", resource="nodes", allowed=False))
    return out
