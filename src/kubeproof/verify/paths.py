"""Comparing objects by meaning, and the path patterns that say which differences a fix may
make.

Objects are compared as a person wrote them (`authored`): status and server bookkeeping
left out, lists whose items all carry a unique `name` (containers, env, volumes, mounts,
named ports) keyed by that name, so reordering them is no change and a difference is
reported where it is: `spec.template.spec.containers[name=api].env[name=DB_HOST].value`.
Other lists (NetworkPolicy rules, tolerations, RBAC rules) are compared whole.

Patterns use the same tokens plus `*` (one key or item), `[*]` (any item) and `**` (any
depth); a pattern that matches the start of a path allows everything below it:
`spec.template.spec.containers[name=api].env` allows any change to api's environment.
Keys with dots or slashes are quoted: `metadata.labels["pod-security.kubernetes.io/enforce"]`.
"""

import re

Path = tuple[str, ...]

_TOKEN = re.compile(r'\["([^"]+)"\]|(\[[^\]"]*\])|([^.\[\]"]+)')

# What controllers and clients maintain rather than what a person decided.
SKIP_METADATA = frozenset(
    {
        "resourceVersion",
        "generation",
        "managedFields",
        "creationTimestamp",
        "uid",
        "ownerReferences",
        "selfLink",
        "deletionGracePeriodSeconds",
    }
)
SKIP_ANNOTATIONS = frozenset(
    {
        "deployment.kubernetes.io/revision",
        "deprecated.daemonset.template.generation",
        "kubectl.kubernetes.io/last-applied-configuration",
        "pv.kubernetes.io/bind-completed",
        "pv.kubernetes.io/bound-by-controller",
        "volume.beta.kubernetes.io/storage-provisioner",
        "volume.kubernetes.io/storage-provisioner",
        "volume.kubernetes.io/selected-node",
    }
)
# Changes any valid fix may make: a restart, a recorded change cause, and what the
# control plane fills in.
ALWAYS_ALLOWED = (
    'spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]',
    'metadata.annotations["kubernetes.io/change-cause"]',  # a rollout's recorded reason
    "spec.volumeName",  # a PersistentVolumeClaim bound by the controller
    "spec.finalizers",  # a Namespace's, kept by the apiserver
)


def parse(path: str) -> Path:
    """Tokens of a path or pattern: `a.b[name=x]["c.d/e"]` -> ("a", "b", "[name=x]", "c.d/e")."""
    tokens = []
    for quoted, bracket, plain in _TOKEN.findall(path):
        tokens.append(quoted or bracket or plain)
    if not tokens and path:
        raise ValueError(f"not a path: {path!r}")
    return tuple(tokens)


def show(path: Path) -> str:
    out = ""
    for token in path:
        if token.startswith("["):
            out += token
        elif re.fullmatch(r"[A-Za-z0-9_-]+", token):
            out += f".{token}" if out else token
        else:
            out += f'["{token}"]'
    return out


def _keyed(items: list) -> dict | None:
    """A list of named items as {"[name=x]": item}, when every item has a unique name."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    names = [i["name"] for i in items]
    if len(set(names)) != len(names):
        return None
    return {f"[name={i['name']}]": i for i in items}


def _normal(value):
    if isinstance(value, dict):
        out = {k: _normal(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        keyed = _keyed(value)
        if keyed is not None:
            return {k: _normal(v) for k, v in keyed.items()}
        return [_normal(v) for v in value]
    return value


def authored(obj: dict) -> dict:
    """The object as a person wrote it: no status, no server bookkeeping, named lists keyed."""
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in SKIP_METADATA}
    annotations = {
        k: v for k, v in (meta.get("annotations") or {}).items() if k not in SKIP_ANNOTATIONS
    }
    meta["annotations"] = annotations
    body = {k: v for k, v in obj.items() if k not in ("status", "metadata", "apiVersion", "kind")}
    return _normal(body | {"metadata": meta})


def diff(before, after, path: Path = ()) -> list[Path]:
    """Paths where two authored objects differ, as deep as they go: into dicts, and into
    unnamed lists item by item when their lengths agree (else the list as a whole)."""
    if (before is None) != (after is None) and path and path[-1].startswith("["):
        return [path]  # a whole named item added or removed: reported once
    if isinstance(before, dict) or isinstance(after, dict):
        b = before if isinstance(before, dict) else {}
        a = after if isinstance(after, dict) else {}
        if not isinstance(before, dict | None) or not isinstance(after, dict | None):
            return [path]
        out: list[Path] = []
        for k in sorted(set(b) | set(a)):
            out += diff(b.get(k), a.get(k), (*path, k))
        return out
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        out = []
        for i, (x, y) in enumerate(zip(before, after, strict=True)):
            out += diff(x, y, (*path, f"[{i}]"))
        return out
    return [] if before == after else [path]


def value_at(obj, path: Path):
    for token in path:
        if isinstance(obj, dict):
            obj = obj.get(token)
        elif isinstance(obj, list) and re.fullmatch(r"\[\d+\]", token):
            i = int(token[1:-1])
            obj = obj[i] if i < len(obj) else None
        else:
            return None
    return obj


def resolve(pattern: Path, obj) -> Path:
    """`[N]` in a pattern, where the list at that point is one of named items, becomes
    `[name=...]` of the item at N in `obj` (the baseline), so positional paths written
    before the convention protect the item they meant wherever it moves."""
    out: list[str] = []
    current = obj
    for token in pattern:
        index = re.fullmatch(r"\[(\d+)\]", token)
        if isinstance(current, list) and index:
            i = int(index.group(1))
            item = current[i] if i < len(current) else None
            if _keyed(current) is not None and isinstance(item, dict):
                token = f"[name={item['name']}]"
            current = item
        elif isinstance(current, list) and token.startswith("[name="):
            wanted = token[6:-1]
            current = next(
                (x for x in current if isinstance(x, dict) and x.get("name") == wanted), None
            )
        elif isinstance(current, dict):
            current = current.get(token)
        else:
            current = None
        out.append(token)
    return tuple(out)


def _match(pattern: Path, path: Path) -> bool:
    """Does the pattern match the start of the path?"""
    if not pattern:
        return True
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_match(rest, path[i:]) for i in range(len(path) + 1))
    if not path:
        return False
    token = path[0]
    if head == "*" or head == token or (head == "[*]" and token.startswith("[")):
        return _match(rest, path[1:])
    return False


def allowed(path: Path, patterns: list[Path]) -> bool:
    """Does some pattern cover the path (match it or one of its parents)?"""
    return any(_match(p, path) for p in patterns)


def overlaps(path: Path, patterns: list[Path]) -> bool:
    """Is the path under a pattern, or a pattern under the path (a list changed as a
    whole touches every item a pattern names in it)?"""
    return any(_match(p, path) or _match(path, p) for p in patterns)


ALWAYS = [parse(p) for p in ALWAYS_ALLOWED]
# Allowed on the way, judged at the end: a rollout paused for the edits and resumed (a
# Deployment left paused is still a change).
ON_THE_WAY = [parse("spec.paused")]


def _brief(value) -> str:
    if value is None:
        return "<unset>"
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."


def changes(
    before: dict, after: dict, patterns: list[Path], only: list[Path] | None = None
) -> list[str]:
    """Differences between two objects that no pattern allows (and, with `only`, that
    touch one of those paths), shown as `path: old -> new`."""
    b, a = authored(before), authored(after)
    secret = before.get("kind") == "Secret" or ("data" in b and "type" in b)
    patterns = [resolve(p, before) for p in patterns]
    only = None if only is None else [resolve(p, before) for p in only]
    return [
        show(p)
        if secret  # a Secret's values never reach a reason
        else f"{show(p)}: {_brief(value_at(b, p))} -> {_brief(value_at(a, p))}"
        for p in diff(b, a)
        if not allowed(p, patterns)
        and not allowed(p, ALWAYS)
        and (only is None or overlaps(p, only))
    ]
