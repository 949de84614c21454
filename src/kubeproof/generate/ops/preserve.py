"""The Unchanged check of an object that an answer changes (UPDATE, a COMMAND's change): every
leaf of the fixture as it was, every label and data key set and every list length, except
the fields the request asks to change. What the apiserver fills in (defaults, status) is not
in the fixture and so never compared."""

import re
from typing import Any

from kubeproof.generate.draft import ref
from kubeproof.generate.model import Check, SecretData, Unchanged

_PLAIN = re.compile(r"^[A-Za-z0-9_-]+$")
_STEPS = re.compile(r'([^.\[\]"]+)|\[(\d+)\]|\["([^"]+)"\]|\[name=([^\]]+)\]')
# maps whose key set is compared exactly: an added label or data key is a change too
# (annotations are not: controllers add their own, deployment.kubernetes.io/revision)
KEYED_MAPS = ("metadata.labels", "data", "spec.hard")
SKIPPED = ("metadata.name", "metadata.namespace", "immutable", "stringData")
# labels the apiserver adds itself: on every Namespace, and on a Job that has none the
# selector labels it generated for the pod template (as v1.36.3 stores a Job, seen live)
ADDED_LABELS = {
    "Namespace": ["kubernetes.io/metadata.name"],
    "Job": ["batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name",
            "controller-uid", "job-name"],
}  # fmt: skip


def _step(path: str, key: str) -> str:
    if _PLAIN.match(key):
        return f"{path}.{key}" if path else key
    return f'{path}["{key}"]'


def canonical(path: str) -> str:
    """One spelling per field: `data.PORT` and `data["PORT"]` are the same field."""
    out = ""
    for name, index, quoted, named in _STEPS.findall(path):
        if named:
            out += f"[name={named}]"
        elif index:
            out += f"[{index}]"
        else:
            out = _step(out, name or quoted)
    return out


def map_keys(path: str) -> list[str] | None:
    """The keys of a path through maps only (None when it passes through a list)."""
    steps = _STEPS.findall(path)
    if any(index or named for _, index, _, named in steps):
        return None
    return [name or quoted for name, _, quoted, _ in steps]


def _covered(path: str, covered: list[str]) -> bool:
    return any(path == c or path.startswith((c + ".", c + "[")) for c in covered)


def _walk(value: Any, path: str, out: Unchanged, covered: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _walk(item, _step(path, str(key)), out, covered)
        return
    if _covered(path, covered):
        return
    if isinstance(value, list) and value and all(isinstance(i, dict) for i in value):
        out.lengths[path] = len(value)
        named = all("name" in i for i in value) and len({i["name"] for i in value}) == len(value)
        for i, item in enumerate(value):
            _walk(item, f"{path}[name={item['name']}]" if named else f"{path}[{i}]", out, covered)
        return
    out.fields[path] = value


def _added(covered: list[str]) -> dict[str, set[str]]:
    """The keys the changes write into a keyed map (a new label, a new data key)."""
    out: dict[str, set[str]] = {}
    for path in covered:
        for head in KEYED_MAPS:
            rest = path.removeprefix(head)
            if rest != path and rest[:1] in (".", "["):
                key = rest[1:] if rest[0] == "." else rest[2:-2]
                out.setdefault(head, set()).add(key)
    return out


def unchanged(fixture: dict, covered: list[str]) -> list[Check]:
    """Checks that the fields `covered` leaves out are as in `fixture`."""
    check = Unchanged(target=ref(fixture), fields={})
    body = {k: v for k, v in fixture.items() if k not in ("apiVersion", "kind")}
    # a Secret's values are compared decoded (SecretData), never as base64 text
    for key in (*SKIPPED, "data") if fixture["kind"] == "Secret" else SKIPPED:
        body = _drop(body, key)
    covered = [canonical(c) for c in covered]
    added = _added(covered)
    _walk(body, "", check, covered)
    for path in KEYED_MAPS:
        head, _, key = path.partition(".")
        have = fixture.get(head, {}).get(key) if key else fixture.get(head)
        if path == "metadata.labels" or isinstance(have, dict):
            check.keys[path] = sorted({*(have or {}), *added.get(path, ())})
    if fixture["kind"] == "Secret":
        check.keys.pop("data", None)
    check.ignore_keys = ADDED_LABELS.get(fixture["kind"], [])
    out: list[Check] = [check]
    if fixture["kind"] == "Secret":
        kept = {
            k: v
            for k, v in (fixture.get("stringData") or {}).items()
            if not _covered(canonical(f'stringData["{k}"]'), covered)
        }
        if kept:
            out.append(SecretData(target=ref(fixture), values=kept))
    return out


def _drop(body: dict, path: str) -> dict:
    head, _, rest = path.partition(".")
    if head not in body:
        return body
    if not rest:
        return {k: v for k, v in body.items() if k != head}
    inner = body[head]
    return {**body, head: _drop(inner, rest)} if isinstance(inner, dict) else body
