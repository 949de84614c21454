"""kubectl emulated over a list of objects, for the offline judge of COMMAND tasks: the
forms the generator writes (get with a JSONPath, label, annotate, scale, set image, a merge
patch, delete), with kubectl's own refusals (a missing object is NotFound, a label already
set needs --overwrite). Anything else is `supported=False`: the offline judge then leaves
the answer to the live stages, which run stock kubectl (docs/generate.md, "COMMAND")."""

import json
from dataclasses import dataclass, field
from typing import Any

from kubeproof.generate.checks import find
from kubeproof.generate.model import ObjectRef
from kubeproof.verify.fields import get_path, missing

# (apiVersion, kind, namespaced) by every name kubectl accepts for the kinds tasks hold
_KINDS: dict[str, tuple[str, str, bool]] = {}
for names, entry in (
    ("namespace namespaces ns", ("v1", "Namespace", False)),
    ("configmap configmaps cm", ("v1", "ConfigMap", True)),
    ("secret secrets", ("v1", "Secret", True)),
    ("serviceaccount serviceaccounts sa", ("v1", "ServiceAccount", True)),
    ("service services svc", ("v1", "Service", True)),
    ("persistentvolumeclaim persistentvolumeclaims pvc", ("v1", "PersistentVolumeClaim", True)),
    ("resourcequota resourcequotas quota", ("v1", "ResourceQuota", True)),
    ("limitrange limitranges limits", ("v1", "LimitRange", True)),
    ("role roles", ("rbac.authorization.k8s.io/v1", "Role", True)),
    ("rolebinding rolebindings", ("rbac.authorization.k8s.io/v1", "RoleBinding", True)),
    ("clusterrole clusterroles", ("rbac.authorization.k8s.io/v1", "ClusterRole", False)),
    ("clusterrolebinding clusterrolebindings",
     ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", False)),
    ("deployment deployments deploy", ("apps/v1", "Deployment", True)),
    ("job jobs", ("batch/v1", "Job", True)),
    ("cronjob cronjobs cj", ("batch/v1", "CronJob", True)),
    ("networkpolicy networkpolicies netpol", ("networking.k8s.io/v1", "NetworkPolicy", True)),
    ("poddisruptionbudget poddisruptionbudgets pdb", ("policy/v1", "PodDisruptionBudget", True)),
    ("horizontalpodautoscaler horizontalpodautoscalers hpa",
     ("autoscaling/v2", "HorizontalPodAutoscaler", True)),
):  # fmt: skip
    for name in names.split():
        _KINDS[name] = entry
_VALUED = {"-n": "namespace", "--namespace": "namespace", "-l": "selector",
           "--selector": "selector", "-o": "output", "--output": "output", "-p": "patch",
           "--patch": "patch", "--type": "type", "--replicas": "replicas"}  # fmt: skip
_SWITCHES = {"--overwrite": "overwrite"}


@dataclass
class Emulated:
    supported: bool = True
    ok: bool = True
    error: str = ""
    output: str = ""
    world: list[dict] = field(default_factory=list)
    changed: list[ObjectRef] = field(default_factory=list)
    deleted: list[ObjectRef] = field(default_factory=list)


def kind_of(word: str) -> tuple[str, str, bool] | None:
    """(apiVersion, kind, namespaced) for a resource word (`deploy`, `deployments.apps`)."""
    return _KINDS.get(word.lower().split(".")[0])


def _split(argv: list[str]) -> tuple[list[str], dict[str, str]] | None:
    words, flags = [], {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if arg in _SWITCHES:
            flags[_SWITCHES[arg]] = "true"
        elif name in _VALUED:
            if not eq:
                if i + 1 >= len(argv):
                    return None
                value, i = argv[i + 1], i + 1
            flags[_VALUED[name]] = value
        elif arg.startswith("-o") and not arg.startswith("--") and len(arg) > 2:
            flags["output"] = arg[2:].removeprefix("=")
        elif arg.startswith("-"):
            return None  # a flag the emulator does not know
        else:
            words.append(arg)
        i += 1
    return words, flags


def _target(words: list[str]) -> tuple[tuple[str, str, bool], list[str]] | None:
    """The kind and names of `KIND NAME...` or `KIND/NAME`."""
    if not words:
        return None
    if "/" in words[0]:
        kind_word, _, name = words[0].partition("/")
        found = kind_of(kind_word)
        return (found, [name, *words[1:]]) if found else None
    found = kind_of(words[0])
    return (found, words[1:]) if found else None


def _ref(entry: tuple[str, str, bool], name: str, namespace: str) -> ObjectRef:
    api_version, kind, namespaced = entry
    return ObjectRef(
        api_version=api_version, kind=kind, name=name, namespace=namespace if namespaced else None
    )


def _printed(value: Any) -> str | None:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str | int | float):
        return str(value)
    return None  # kubectl prints maps and lists as JSON: not emulated


def _jsonpath(output: str, objs: list[dict], single: bool) -> str | None:
    if not output.startswith("jsonpath="):
        return None
    expr = output.removeprefix("jsonpath=").strip()
    if not (expr.startswith("{.") and expr.endswith("}")):
        return None
    path = expr[2:-1]
    if single:
        value = get_path(objs[0], path)
        return "" if missing(value) else _printed(value)
    if not path.startswith("items[*]."):
        return None
    values = [get_path(o, path.removeprefix("items[*].")) for o in objs]
    printed = [_printed(v) for v in values if not missing(v)]
    return None if None in printed else " ".join(p for p in printed if p is not None)


def _matches(obj: dict, selector: str) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    for term in selector.split(","):
        key, eq, value = term.partition("=")
        if not eq or labels.get(key) != value.removeprefix("="):
            return False
    return True


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out


def run(argv: list[str], world: list[dict]) -> Emulated:
    """The effect and output of one parsed command on a copy of `world`."""
    objs = json.loads(json.dumps(world))
    split = _split(argv[1:])
    if split is None or not split[0]:
        return Emulated(supported=False, world=objs)
    words, flags = split
    verb, rest = words[0], words[1:]
    if verb == "set" and rest[:1] == ["image"]:
        verb, rest = "set image", rest[1:]
    found = _target(rest)
    if found is None:
        return Emulated(supported=False, world=objs)
    entry, names = found
    namespace = flags.get("namespace", "default")
    if verb == "get":
        return _get(objs, entry, names, namespace, flags)
    handler = {
        "label": _label,
        "annotate": _label,
        "scale": _scale,
        "set image": _set_image,
        "patch": _patch,
        "delete": _delete,
    }.get(verb)
    if handler is None or not names:
        return Emulated(supported=False, world=objs)
    out = Emulated(world=objs)
    for name in names if verb == "delete" else names[:1]:
        ref = _ref(entry, name, namespace)
        obj = find(objs, ref)
        if obj is None:
            return Emulated(ok=False, error=f"NotFound: {ref.kind} {name}", world=objs)
        args = names[1:] if verb != "delete" else []
        problem = handler(obj, verb, args, flags)
        if problem is None:
            return Emulated(supported=False, world=objs)
        if problem:
            return Emulated(ok=False, error=problem, world=objs)
        if verb == "delete":
            objs.remove(obj)
            out.deleted.append(ref)
        else:
            out.changed.append(ref)
    return out


def _get(objs, entry, names, namespace, flags) -> Emulated:
    _, kind, namespaced = entry
    if names:
        obj = find(objs, _ref(entry, names[0], namespace))
        if obj is None or len(names) > 1:
            return Emulated(ok=False, error=f"NotFound: {kind} {names[0]}", world=objs)
        chosen = [obj]
    else:
        chosen = [
            o
            for o in objs
            if o.get("kind") == kind
            and (not namespaced or (o.get("metadata") or {}).get("namespace") == namespace)
            and _matches(o, flags.get("selector", ""))
        ]
    printed = _jsonpath(flags.get("output", ""), chosen, single=bool(names))
    if printed is None:
        return Emulated(supported=False, world=objs)
    return Emulated(output=printed, world=objs)


# each handler changes the object in place: "" done, an error text, None not emulated
def _label(obj: dict, verb: str, args: list[str], flags: dict) -> str | None:
    field_name = "labels" if verb == "label" else "annotations"
    current = obj.setdefault("metadata", {}).setdefault(field_name, {})
    for arg in args:
        if arg.endswith("-") and "=" not in arg:
            current.pop(arg[:-1], None)
            continue
        key, eq, value = arg.partition("=")
        if not eq:
            return None
        if key in current and current[key] != value and not flags.get("overwrite"):
            return f"'{key}' already has a value ({current[key]}), and --overwrite is false"
        current[key] = value
    return "" if args else None


def _scale(obj: dict, verb: str, args: list[str], flags: dict) -> str | None:
    if args or "replicas" not in flags or not flags["replicas"].isdigit():
        return None
    obj.setdefault("spec", {})["replicas"] = int(flags["replicas"])
    return ""


def _set_image(obj: dict, verb: str, args: list[str], flags: dict) -> str | None:
    containers = get_path(obj, "spec.template.spec.containers")
    if missing(containers) or not args:
        return None
    for arg in args:
        name, eq, image = arg.partition("=")
        match = [c for c in containers if c.get("name") == name]
        if not eq or not match:
            return f"unable to find container named {name!r}" if eq else None
        match[0]["image"] = image
    return ""


def _patch(obj: dict, verb: str, args: list[str], flags: dict) -> str | None:
    if args or flags.get("type") != "merge" or "patch" not in flags:
        return None
    try:
        patch = json.loads(flags["patch"])
    except ValueError:
        return "unable to parse the patch"
    merged = _merge(obj, patch)
    obj.clear()
    obj.update(merged)
    return ""


def _delete(obj: dict, verb: str, args: list[str], flags: dict) -> str | None:
    return ""
