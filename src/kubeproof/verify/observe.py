"""Checks over what an operator looks at beyond an object's spec: events, the logs of a
workload's pods, a field compared with a bound, an entry of a list, where pods run, and
whether the apiserver would accept a manifest (docs/verify.md)."""

import fnmatch
import operator
from decimal import Decimal, InvalidOperation

import yaml
from lightkube import ApiError
from lightkube.codecs import from_dict
from lightkube.resources.core_v1 import Event, Pod

from kubeproof.nodesim.quantity import parse
from kubeproof.verify import kinds
from kubeproof.verify.checks import _label, _selector, read_object
from kubeproof.verify.fields import get_path, missing
from kubeproof.verify.registry import Context, check
from kubeproof.verify.result import Result

_OPS = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
}


@check
def event(
    ctx: Context,
    namespace: str,
    reason: str,
    kind: str | None = None,
    name: str | None = None,
    message: str | None = None,
    type: str | None = None,
) -> Result:
    """An Event of the namespace has `reason` — about the object `kind`/`name` (a glob) if
    given, its message holding `message`, of `type` (Normal, Warning) — as `kubectl events`
    shows them: a Killing, a BackOff, a FailedScheduling, a controller's own event."""
    about = f" {kind or '*'}/{name or '*'}" if kind or name else ""
    check_name = f"event {namespace} {reason}{about}"
    found, seen = [], 0
    for e in ctx.client.list(Event, namespace=namespace):
        seen += 1
        obj = e.involvedObject
        if e.reason != reason or (type and e.type != type):
            continue
        if kind and (obj.kind or "") != kind.rpartition("/")[2]:
            continue
        if name and not fnmatch.fnmatchcase(obj.name or "", name):
            continue
        if message and message not in (e.message or ""):
            continue
        found.append(f"{obj.kind}/{obj.name}: {e.message}")
    if found:
        return Result(check_name, True, f"{len(found)} such event(s), e.g. {found[0][:160]}")
    return Result(check_name, False, f"none among {seen} events")


@check
def logs_contain(
    ctx: Context,
    namespace: str,
    labels: dict[str, str],
    text: str,
    container: str | None = None,
    every: bool = False,
) -> Result:
    """A log line of a pod the labels select holds the text (with `every=True`, of every
    such pod): for workloads whose pod names are not known in advance."""
    check_name = f"logs_contain {namespace} {_selector(labels)}"
    pods = [
        p
        for p in ctx.client.list(Pod, namespace=namespace, labels=labels)
        if p.metadata.deletionTimestamp is None
    ]
    if not pods:
        return Result(check_name, False, "no pods selected")
    hits, misses = [], []
    for p in sorted(pods, key=lambda p: p.metadata.name):
        try:
            lines = list(ctx.client.log(p.metadata.name, namespace=namespace, container=container))
        except ApiError as exc:
            misses.append(f"{p.metadata.name} (cannot read logs: {exc.status.message})")
            continue
        (hits if any(text in line for line in lines) else misses).append(p.metadata.name)
    ok = bool(hits) and (not every or not misses)
    reason = f"{len(hits)} of {len(pods)} pods logged {text!r}"
    if misses and (every or not hits):
        reason += f"; not {', '.join(misses[:3])}"
    return Result(check_name, ok, reason)


def _number(value, quantity: bool) -> Decimal | None:
    try:
        return Decimal(str(parse(str(value)))) if quantity else Decimal(str(value))
    except (ValueError, InvalidOperation):
        return None


@check
def field_compare(
    ctx: Context,
    kind: str,
    namespace: str | None,
    name: str,
    path: str,
    op: str,
    value: object,
    quantity: bool = False,
) -> Result:
    """The number at `path` compares with `value` by `op` (`>=`, `>`, `<=`, `<`, `==`,
    `!=`): `status.readyReplicas >= 2`, `spec.maxReplicas >= 5`; `quantity=True` compares
    Kubernetes quantities (`512Mi >= 0.5Gi`)."""
    if op not in _OPS:
        raise ValueError(f"op {op!r}: one of {', '.join(_OPS)}")
    check_name = f"field_compare {_label(kind, namespace, name)} {path} {op} {value}"
    obj, problem = read_object(ctx, kind, namespace, name)
    if problem:
        return Result(check_name, False, problem)
    actual = get_path(obj, path)
    if missing(actual):
        return Result(check_name, False, f"{path} is not set")
    a, b = _number(actual, quantity), _number(value, quantity)
    if a is None or b is None or isinstance(actual, bool):
        return Result(check_name, False, f"{path} = {actual!r}: not a number to compare")
    return Result(check_name, _OPS[op](a, b), f"{path} = {actual!r}")


def _holds(entry: object, item: object) -> bool:
    """A dict item is a pattern: the entry has at least its keys, with matching values."""
    if isinstance(item, dict):
        return isinstance(entry, dict) and all(
            k in entry and _holds(entry[k], v) for k, v in item.items()
        )
    return entry == item


@check
def list_contains(
    ctx: Context, kind: str, namespace: str | None, name: str, path: str, item: object
) -> Result:
    """The list at `path` holds `item`: a value (`"ALL"` in
    `spec.template.spec.containers[name=api].securityContext.capabilities.drop`) or, for a
    dict, an entry with at least those keys and values (`{"key": "dedicated", "effect":
    "NoSchedule"}` in a Node's `spec.taints`)."""
    check_name = f"list_contains {_label(kind, namespace, name)} {path}"
    obj, problem = read_object(ctx, kind, namespace, name)
    if problem:
        return Result(check_name, False, problem)
    items = get_path(obj, path)
    if missing(items) or items is None:
        return Result(check_name, False, f"{path} is not set")
    if not isinstance(items, list):
        return Result(check_name, False, f"{path} is not a list")
    ok = any(_holds(entry, item) for entry in items)
    return Result(check_name, ok, f"{'has' if ok else 'no'} {item!r} among {len(items)}")


@check
def pods_not_on(ctx: Context, namespace: str, labels: dict[str, str], nodes: list[str]) -> Result:
    """No pod the labels select (and not being deleted) is bound to any of `nodes`: moved
    off a drained node or a retired pool. At least one pod must be selected."""
    check_name = f"pods_not_on {namespace} {_selector(labels)} {','.join(nodes)}"
    pods = [
        p
        for p in ctx.client.list(Pod, namespace=namespace, labels=labels)
        if p.metadata.deletionTimestamp is None
    ]
    if not pods:
        return Result(check_name, False, "no pods selected")
    on = sorted(f"{p.metadata.name}@{p.spec.nodeName}" for p in pods if p.spec.nodeName in nodes)
    return Result(check_name, not on, f"still on: {', '.join(on[:5])}" if on else "none there")


def _documents(manifest: object) -> list[dict]:
    if isinstance(manifest, dict):
        return [manifest]
    if isinstance(manifest, list):
        return [d for d in manifest if isinstance(d, dict)]
    return [d for d in yaml.safe_load_all(str(manifest)) if isinstance(d, dict)]


@check
def server_dry_run(ctx: Context, manifest: object, allowed: bool = True) -> Result:
    """The apiserver accepts `manifest` (a dict, a list of them or YAML text) in a
    server-side dry run — validation and admission included: Pod Security, quotas,
    LimitRanges, webhooks — applied over what exists; `allowed=False` checks it is
    refused (a privileged pod in a restricted namespace). Nothing is written."""
    docs = _documents(manifest)
    names = ", ".join(f"{d.get('kind')} {(d.get('metadata') or {}).get('name')}" for d in docs)
    check_name = f"server_dry_run {names}" + ("" if allowed else " (refused)")
    if not docs:
        return Result(check_name, False, "no object in the manifest")
    refusals = []
    for doc in docs:
        api_version, kind = doc.get("apiVersion", ""), doc.get("kind", "")
        kinds.resolve(ctx.client, f"{api_version}/{kind}")  # a CRD's kind: register it
        meta = doc.get("metadata") or {}
        try:
            ctx.client.apply(
                from_dict(doc),
                namespace=meta.get("namespace"),
                field_manager="kubeproof-verifier",
                force=True,
                dry_run=True,
            )
        except ApiError as exc:
            if exc.status.code is not None and exc.status.code >= 500:
                raise
            refusals.append(f"{kind} {meta.get('name')}: {exc.status.message}")
    accepted = not refusals
    reason = "; ".join(refusals)[:400] if refusals else "accepted"
    return Result(check_name, accepted == allowed, reason)
