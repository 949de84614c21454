"""Reading agent-written manifests and patch bodies into objects, safely: any field may have any
shape, a text that does not parse gives no objects, and nothing hostile (alias bombs, deep
nesting) gets through `hostile`'s limits."""

import json
from typing import Any

from kubeproof import hostile
from kubeproof.evidence.kubectl_words import KIND_OF_RESOURCE


# Manifests are agent-written: any field may have any shape, and a reader must not crash.
def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def load_objects(text: str) -> list[dict]:
    """Kubernetes objects in a YAML/JSON multi-document text (List kinds unpacked); text that
    does not parse gives no objects."""
    try:
        docs = hostile.load_yaml_all(text, "a manifest")
    except hostile.HostileInput:  # an alias bomb or a nesting kubectl refuses too
        return []
    objects: list[dict] = []
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        items = doc.get("items")
        if str(doc.get("kind", "")).endswith("List") and isinstance(items, list):
            objects.extend(i for i in items if isinstance(i, dict))
        else:
            objects.append(doc)
    return objects


def plural_of(kind: str) -> str:
    """Resource plural of a kind (Deployment -> deployments, NetworkPolicy -> networkpolicies)."""
    low = kind.lower()
    if low in ("endpoints",):
        return low
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return low[:-1] + "ies"
    if low.endswith(("s", "x", "ch", "sh")):
        return low + "es"
    return low + "s"


def object_namespace(obj: dict, default: str | None) -> str | None:
    """The namespace an object acts in: a Namespace's own name, else metadata.namespace, else
    `default`."""
    meta = as_dict(obj.get("metadata"))
    if obj.get("kind") == "Namespace":
        return as_text(meta.get("name"))
    return as_text(meta.get("namespace")) or default


def patch_objects(text: str, resource: str | None) -> list[dict]:
    """A patch or override body as objects to scan; JSON-patch operations are rebuilt into
    the nested shape they write."""
    try:
        # duplicate keys: the last wins, as in the apiserver's decoder; depth is bounded
        if hostile.json_depth(text) > hostile.JSON_DEPTH:
            return []
        body = json.loads(text)
    except (ValueError, RecursionError):
        try:
            body = hostile.load_yaml(text, "a patch")
        except hostile.HostileInput:
            return []
    bodies = [body]
    if isinstance(body, list):
        bodies = [
            _unflatten(str(op["path"]).strip("/").split("/"), op.get("value"))
            for op in body
            if isinstance(op, dict) and op.get("op") in ("add", "replace") and "path" in op
        ]
    objects = [b for b in bodies if isinstance(b, dict)]
    if resource in KIND_OF_RESOURCE:
        objects = [{"kind": KIND_OF_RESOURCE[resource], **b} for b in objects]
    return objects


def _unflatten(parts: list[str], value: Any) -> Any:
    if not parts:
        return value
    head, inner = parts[0], _unflatten(parts[1:], value)
    return [inner] if head.isdigit() or head == "-" else {head: inner}
