"""Typed checks (S4) judged over objects as dicts: the live objects once S2 has applied an
answer, or the parsed answer plus fixtures offline. Each check gives a verdict and a reason;
a permission matrix also counts under- and over-grants."""

import base64
import binascii
import json
from typing import Any

from pydantic import BaseModel, Field

from kubeproof.generate import rbac
from kubeproof.generate.model import (
    RUNTIME_CHECKS,
    Check,
    CommandOutput,
    FieldEquals,
    KeysPresent,
    ListContains,
    MapIncludes,
    ObjectRef,
    Permissions,
    SecretData,
    SecretType,
    Unchanged,
)
from kubeproof.verify.fields import equal, get_path, missing


class Verdict(BaseModel):
    passed: bool
    reason: str = Field(description="Why, in one line.")
    under_grant: int = Field(default=0, description="Matrix cells asked for but denied.")
    over_grant: int = Field(default=0, description="Matrix cells to deny but allowed.")
    skipped: bool = Field(
        default=False,
        description="Not judged (a runtime check offline, or live with runtime truth off): "
        "neither a pass nor a failure.",
    )


def find(objects: list[dict], ref: ObjectRef) -> dict | None:
    for obj in objects:
        meta = obj.get("metadata") or {}
        if (
            obj.get("kind") == ref.kind
            and meta.get("name") == ref.name
            and (meta.get("namespace") or None) == ref.namespace
        ):
            return obj
    return None


def secret_values(secret: dict) -> dict[str, str | None]:
    """Decoded values, `stringData` over `data` as the apiserver merges them; None for a
    value that is not base64 or not UTF-8."""
    out: dict[str, str | None] = {}
    for key, value in (secret.get("data") or {}).items():
        try:
            out[key] = base64.b64decode(str(value), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            out[key] = None
    for key, value in (secret.get("stringData") or {}).items():
        out[key] = str(value)
    return out


def _json_field(text: str | None, path: str) -> Any:
    try:
        doc = json.loads(text or "")
    except ValueError:
        return None
    value = get_path(doc, path)
    return None if missing(value) else value


def _field(obj: dict, check: FieldEquals) -> Verdict:
    have = get_path(obj, check.path)
    if missing(have):
        return Verdict(passed=False, reason=f"{check.path} is not set")
    if check.unordered and isinstance(have, list) and isinstance(check.value, list):
        ok = sorted(map(json.dumps, have)) == sorted(map(json.dumps, check.value))
    else:
        ok = equal(have, check.value, quantity=check.quantity)
    return Verdict(passed=ok, reason=f"{check.path} is {have!r}, want {check.value!r}")


def _map(obj: dict, check: MapIncludes) -> Verdict:
    have = get_path(obj, check.path)
    have = have if isinstance(have, dict) else {}
    wrong = {k: v for k, v in check.entries.items() if have.get(k) != v}
    return Verdict(passed=not wrong, reason=f"{check.path} lacks {wrong}" if wrong else "ok")


def _keys(obj: dict, check: KeysPresent) -> Verdict:
    have = get_path(obj, check.path)
    keys = set(have) if isinstance(have, dict) else set()
    if obj.get("kind") == "Secret" and check.path == "data":
        keys |= set(obj.get("stringData") or {})
    lacking, extra = set(check.keys) - keys, keys - set(check.keys)
    ok = not lacking and not (check.exact and extra)
    return Verdict(passed=ok, reason=f"lacking {sorted(lacking)}, extra {sorted(extra)}")


def _secret_data(obj: dict, check: SecretData) -> Verdict:
    values = secret_values(obj)
    wrong = [k for k, v in check.values.items() if values.get(k) != v]
    for key, fields in check.json_fields.items():
        wrong += [f"{key}:{p}" for p, v in fields.items() if _json_field(values.get(key), p) != v]
    return Verdict(passed=not wrong, reason=f"wrong values: {wrong}" if wrong else "ok")


def _secret_type(obj: dict, check: SecretType) -> Verdict:
    have = obj.get("type") or "Opaque"
    lacking = [k for k in check.required_keys if k not in secret_values(obj)]
    ok = have == check.secret_type and not lacking
    return Verdict(passed=ok, reason=f"type {have}, want {check.secret_type}; lacking {lacking}")


def _contains(obj: dict, check: ListContains) -> Verdict:
    items = get_path(obj, check.path)
    items = items if isinstance(items, list) else []
    ok = any(
        isinstance(i, dict) and all(i.get(k) == v for k, v in check.item.items()) for i in items
    )
    return Verdict(passed=ok, reason=f"{check.path} {'has' if ok else 'lacks'} {check.item}")


def _same(have: Any, want: Any) -> bool:
    # the apiserver stores quantities in canonical form: 0.5 comes back as 500m
    if equal(have, want):
        return True
    return isinstance(have, str) and isinstance(want, str) and equal(have, want, quantity=True)


def _unchanged(obj: dict, check: Unchanged) -> Verdict:
    wrong = []
    for path, want in check.fields.items():
        have = get_path(obj, path)
        if missing(have) or not _same(have, want):
            wrong.append(f"{path} is {'unset' if missing(have) else repr(have)}, was {want!r}")
    for path, keys in check.keys.items():
        have = get_path(obj, path)
        names = set(have) if isinstance(have, dict) else set()
        if obj.get("kind") == "Secret" and path == "data":
            names |= set(obj.get("stringData") or {})
        names -= set(check.ignore_keys)
        if names != set(keys):
            wrong.append(f"{path} has keys {sorted(names)}, was {sorted(keys)}")
    for path, length in check.lengths.items():
        have = get_path(obj, path)
        count = len(have) if isinstance(have, list) else 0
        if count != length:
            wrong.append(f"{path} has {count} items, was {length}")
    reason = "changed what was not asked: " + "; ".join(wrong[:3]) if wrong else "ok"
    return Verdict(passed=not wrong, reason=reason)


def output_verdict(check: CommandOutput, output: str | None) -> Verdict:
    """A question's answer against the command's output (None: the command printed nothing
    the judge could read)."""
    have = (output or "").strip()
    if check.compare == "words":
        ok = sorted(have.split()) == sorted(check.expected.split())
    else:
        ok = have == check.expected.strip()
    shown = have if len(have) <= 80 else have[:77] + "..."
    return Verdict(passed=ok, reason=f"printed {shown!r}, want {check.expected!r}")


def _permissions(objects: list[dict], check: Permissions) -> Verdict:
    world = list(objects)
    if check.probe_binding:
        world.append(probe_binding(check))
    under = over = 0
    for cell in check.cells:
        got = rbac.allowed(world, check.subject, cell)
        under += cell.allowed and not got
        over += got and not cell.allowed
    return Verdict(
        passed=not under and not over,
        reason=f"{under} under-grant, {over} over-grant of {len(check.cells)} cells",
        under_grant=under,
        over_grant=over,
    )


def probe_binding(check: Permissions) -> dict:
    """The binding the evaluator makes so a Role or ClusterRole answer has a subject."""
    meta: dict = {"name": "kubeproof-probe"}
    if check.probe_binding == "RoleBinding":
        meta["namespace"] = check.probe_namespace
    subject = check.subject.model_dump(exclude_none=True)
    if check.subject.kind != "ServiceAccount":
        subject["apiGroup"] = "rbac.authorization.k8s.io"
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": check.probe_binding,
        "metadata": meta,
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": check.target.kind,
            "name": check.target.name,
        },
        "subjects": [subject],
    }


def not_run(check: Check, why: str) -> Verdict:
    """A runtime check the judge did not run (`why`: offline, or runtime truth off)."""
    return Verdict(passed=True, skipped=True, reason=f"{check.type} not run ({why})")


def evaluate(check: Check, objects: list[dict], output: str | None = None) -> Verdict:
    """One check over `objects` (the target must be among them); a question's check over
    the command's `output`."""
    if isinstance(check, CommandOutput):
        return output_verdict(check, output)
    if isinstance(check, RUNTIME_CHECKS):
        return not_run(check, "offline")
    if isinstance(check, Permissions):
        return _permissions(objects, check)
    obj = find(objects, check.target)
    if obj is None:
        return Verdict(passed=False, reason=f"no {check.target.kind} {check.target.name}")
    judge = {
        FieldEquals: _field,
        MapIncludes: _map,
        KeysPresent: _keys,
        SecretData: _secret_data,
        SecretType: _secret_type,
        ListContains: _contains,
        Unchanged: _unchanged,
    }[type(check)]
    return judge(obj, check)  # type: ignore[operator]
