"""A fault's inverse, the oracle's fix: the objects to put back as the baseline had them and
the objects the faults created, as data and as the kubectl commands that make it so (JSON
patches, which NetArena's rules ask for, and deletes; a Deployment's patch waits for its
rollout)."""

import copy
import json

from pydantic import BaseModel, Field

Objects = dict[str, dict]
RESOURCES = {
    "NetworkPolicy": "networkpolicy",
    "Service": "service",
    "Deployment": "deployment",
    "Namespace": "namespace",
}

# a patched Deployment's pods are replaced by a rollout: until it is done the old pods still
# answer the probes, so its fix waits for it (within operator mode's 60 s command timeout;
# NetArena's mode stops the wait at 10 s, the patch made either way)
ROLLOUT = "50s"


class ObjectRef(BaseModel):
    kind: str
    namespace: str | None = None
    name: str


class Fix(BaseModel):
    restore: list[dict] = Field(description="Objects to put back as the baseline had them.")
    delete: list[ObjectRef] = Field(description="Objects the faults created.")
    commands: list[str] = Field(
        description="The same as kubectl commands, in order, one per object (a Deployment's "
        "patch followed by `kubectl rollout status`)."
    )


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")  # RFC 6901


def json_patch(before: object, after: object, path: str = "") -> list[dict]:
    """RFC 6902 operations that turn `before` into `after`: per key for objects, per item
    for lists of the same length, whole values otherwise."""
    if isinstance(before, dict) and isinstance(after, dict):
        ops: list[dict] = []
        for key in before:
            if key not in after:
                ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        for key, value in after.items():
            where = f"{path}/{_escape(key)}"
            if key not in before:
                ops.append({"op": "add", "path": where, "value": value})
            else:
                ops += json_patch(before[key], value, where)
        return ops
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            op
            for i, (b, a) in enumerate(zip(before, after, strict=True))
            for op in json_patch(b, a, f"{path}/{i}")
        ]
    return [] if before == after else [{"op": "replace", "path": path, "value": after}]


def _target(obj: dict | ObjectRef) -> str:
    kind, ns, name = (
        (obj.kind, obj.namespace, obj.name)
        if isinstance(obj, ObjectRef)
        else (obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"])
    )
    return f"{RESOURCES[kind]} {name}" + (f" -n {ns}" if ns and kind != "Namespace" else "")


def fix(baseline: Objects, broken: Objects) -> Fix:
    restore, delete, commands = [], [], []
    for key, obj in broken.items():
        original = baseline.get(key)
        if original is None:
            meta = obj["metadata"]
            ref = ObjectRef(kind=obj["kind"], namespace=meta.get("namespace"), name=meta["name"])
            delete.append(ref)
            commands.append(f"kubectl delete {_target(ref)}")
        elif original != obj:
            restore.append(copy.deepcopy(original))
            ops = json.dumps(json_patch(obj, original), separators=(",", ":"))
            command = f"kubectl patch {_target(obj)} --type=json -p '{ops}'"
            if obj["kind"] == "Deployment":  # the report after it must see the new pods
                command += f" && kubectl rollout status {_target(obj)} --timeout={ROLLOUT}"
            commands.append(command)
    missing = [o for k, o in baseline.items() if k not in broken]
    if missing:
        raise ValueError("a fault deleted objects; the inverse of a delete is not written yet")
    return Fix(restore=restore, delete=delete, commands=commands)


def apply(objects: Objects, fix: Fix) -> Objects:
    """The objects after the fix (objects as data: what `commands` do to a cluster)."""
    out = copy.deepcopy(objects)
    for obj in fix.restore:
        meta = obj["metadata"]
        out[f"{obj['kind']}/{meta.get('namespace', '')}/{meta['name']}"] = copy.deepcopy(obj)
    for ref in fix.delete:
        out.pop(f"{ref.kind}/{ref.namespace or ''}/{ref.name}", None)
    return out
