"""Wrong answers made from a reference answer, each one mistake a model makes (a verb
dropped, a wildcard added, the wrong namespace, name, key, value or Secret type, an object
too many), labelled with the stage that must catch it. The validity proof runs them: a
mutant that passes its stage is a generator bug (the task's checks cannot see that mistake)."""

import json
from collections.abc import Callable

from kubeproof.generate import mutant_fields, yamltext
from kubeproof.generate.draft import ref
from kubeproof.generate.model import Mutant, Stage

Change = tuple[list[dict], int, str]  # (mutated objects, index of the one changed, field path)
Operator = Callable[[list[dict]], Change | None]


def dump(objects: list[dict]) -> str:
    return yamltext.dump_all(objects)


def _copy(value):
    # the objects are JSON data: a JSON round trip is a deep copy, several times faster
    return json.loads(json.dumps(value))


def _first(objects: list[dict], *kinds: str) -> tuple[list[dict], int, dict] | None:
    out = _copy(objects)
    for i, obj in enumerate(out):
        if obj["kind"] in kinds:
            return out, i, obj
    return None


def wrong_name(objects: list[dict]) -> Change | None:
    out = _copy(objects)
    old = out[0]["metadata"]["name"]
    out[0]["metadata"]["name"] = new = old + "-v2"
    if out[0]["kind"] == "Namespace":
        # a model that misnames the namespace writes its other objects there too; left in the
        # old one, the apiserver refuses them (namespace not found) and the mutant fails at S2,
        # not at S3 where it aims
        for obj in out[1:]:
            if obj["metadata"].get("namespace") == old:
                obj["metadata"]["namespace"] = new
    return out, 0, "metadata.name"


def wrong_namespace(objects: list[dict]) -> Change | None:
    out = _copy(objects)
    obj = out[0]
    if not obj["metadata"].get("namespace"):
        return None
    obj["metadata"]["namespace"] = "default"
    return out, 0, "metadata.namespace"


def extra_object(objects: list[dict]) -> Change | None:
    out = _copy(objects)
    extra = _copy(out[0])
    extra["metadata"]["name"] += "-copy"
    out.append(extra)
    return out, len(out) - 1, ""


def drop_verb(objects: list[dict]) -> Change | None:
    found = _first(objects, "Role", "ClusterRole")
    if found is None:
        return None
    out, index, obj = found
    for i, rule in enumerate(obj["rules"]):
        if len(rule["verbs"]) > 1:
            rule["verbs"].pop()
            return out, index, f"rules[{i}].verbs"
    if len(obj["rules"]) > 1:
        obj["rules"].pop()
        return out, index, "rules"
    return None


def wildcard_verb(objects: list[dict]) -> Change | None:
    found = _first(objects, "Role", "ClusterRole")
    if found is None:
        return None
    out, index, obj = found
    obj["rules"][0]["verbs"] = ["*"]
    return out, index, "rules[0].verbs"


def wildcard_resource(objects: list[dict]) -> Change | None:
    found = _first(objects, "Role", "ClusterRole")
    if found is None or "resources" not in found[2]["rules"][0]:
        return None
    out, index, obj = found
    obj["rules"][0]["resources"] = ["*"]
    obj["rules"][0]["apiGroups"] = ["*"]
    return out, index, "rules[0].resources"


def drop_subject(objects: list[dict]) -> Change | None:
    found = _first(objects, "RoleBinding", "ClusterRoleBinding")
    if found is None or len(found[2]["subjects"]) < 2:
        return None
    out, index, obj = found
    obj["subjects"].pop()
    return out, index, "subjects"


def wrong_role_ref(objects: list[dict]) -> Change | None:
    found = _first(objects, "RoleBinding", "ClusterRoleBinding")
    if found is None:
        return None
    out, index, obj = found
    obj["roleRef"]["name"] += "-typo"
    return out, index, "roleRef.name"


def wrong_value(objects: list[dict]) -> Change | None:
    found = _first(objects, "ConfigMap", "Secret")
    if found is None:
        return None
    out, index, obj = found
    field = "data" if obj["kind"] == "ConfigMap" else "stringData"
    key = list(obj[field])[-1]
    value = obj[field][key]
    if key == ".dockerconfigjson":
        doc = json.loads(value)
        for entry in doc["auths"].values():
            entry["password"] += "x"
        obj[field][key] = json.dumps(doc, sort_keys=True)
    else:
        obj[field][key] = value + "x"
    return out, index, f'{field}["{key}"]'


def drop_key(objects: list[dict]) -> Change | None:
    found = _first(objects, "ConfigMap", "Secret")
    if found is None:
        return None
    out, index, obj = found
    field = "data" if obj["kind"] == "ConfigMap" else "stringData"
    if len(obj[field]) < 2:
        return None
    key = list(obj[field])[-1]
    del obj[field][key]
    return out, index, f'{field}["{key}"]'


def wrong_secret_type(objects: list[dict]) -> Change | None:
    found = _first(objects, "Secret")
    if found is None:
        return None
    out, index, obj = found
    # Opaque username/password is also a valid basic-auth Secret: the apiserver takes it
    obj["type"] = "kubernetes.io/basic-auth" if obj.get("type") == "Opaque" else "Opaque"
    return out, index, "type"


def wrong_label(objects: list[dict]) -> Change | None:
    out = _copy(objects)
    obj = out[0]
    labels = obj["metadata"].get("labels") or {}
    # Pod Security labels take only privileged|baseline|restricted: the apiserver would refuse
    # another value (S2), and this mutant aims at S4
    free = [k for k in labels if not k.startswith("pod-security.kubernetes.io/")]
    if not free:
        return None
    key = free[-1]
    labels[key] += "-x"
    return out, 0, f'metadata.labels["{key}"]'


def token_automount(objects: list[dict]) -> Change | None:
    found = _first(objects, "ServiceAccount")
    if found is None or "automountServiceAccountToken" not in found[2]:
        return None
    out, index, obj = found
    obj["automountServiceAccountToken"] = True
    return out, index, "automountServiceAccountToken"


def _pod_spec(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]


def bad_image(objects: list[dict]) -> Change | None:
    """An image tag that does not exist: the pull fails (ErrImagePull)."""
    found = _first(objects, "Deployment", "Job")
    if found is None:
        return None
    out, index, obj = found
    _pod_spec(obj)["containers"][0]["image"] += "x"
    return out, index, "spec.template.spec.containers[0].image"


def unschedulable(objects: list[dict]) -> Change | None:
    """A nodeSelector no node matches: the pods stay Pending (no static check reads it)."""
    found = _first(objects, "Deployment", "Job")
    if found is None:
        return None
    out, index, obj = found
    _pod_spec(obj)["nodeSelector"] = {"disktype": "ssd"}
    return out, index, "spec.template.spec.nodeSelector"


def wrong_selector(objects: list[dict]) -> Change | None:
    found = _first(objects, "Service")
    if found is None or not found[2]["spec"].get("selector"):
        return None
    out, index, obj = found
    key = sorted(obj["spec"]["selector"])[0]
    obj["spec"]["selector"][key] += "-x"
    return out, index, f'spec.selector["{key}"]'


def narrow_selector(objects: list[dict]) -> Change | None:
    """One selector label more, which no pod carries: the asked labels are all there."""
    found = _first(objects, "Service")
    if found is None or not found[2]["spec"].get("selector"):
        return None
    out, index, obj = found
    obj["spec"]["selector"]["tier"] = "web"
    return out, index, 'spec.selector["tier"]'


def wrong_target_port(objects: list[dict]) -> Change | None:
    found = _first(objects, "Service")
    if found is None:
        return None
    out, index, obj = found
    entry = obj["spec"]["ports"][0]
    if not isinstance(entry.get("targetPort"), int):
        return None
    entry["targetPort"] += 1
    return out, index, "spec.ports[0].targetPort"


def allow_all_ingress(objects: list[dict]) -> Change | None:
    """An ingress rule that admits everything, beside the asked ones."""
    found = _first(objects, "NetworkPolicy")
    if found is None:
        return None
    out, index, obj = found
    obj["spec"].setdefault("ingress", []).append({})
    return out, index, "spec.ingress"


# mistakes that break what runs, made only for tasks with runtime checks; those in LIVE_ONLY
# pass every static check, so only the live judge can catch them (the offline proof counts
# them apart: docs/generate.md, Runtime truth)
RUNTIME_OPERATORS: tuple[tuple[str, Operator, Stage], ...] = (
    ("bad_image", bad_image, Stage.s4_checks),
    ("unschedulable", unschedulable, Stage.s4_checks),
    ("wrong_selector", wrong_selector, Stage.s4_checks),
    ("narrow_selector", narrow_selector, Stage.s4_checks),
    ("wrong_target_port", wrong_target_port, Stage.s4_checks),
    ("allow_all_ingress", allow_all_ingress, Stage.s4_checks),
)
LIVE_ONLY = frozenset({"unschedulable", "narrow_selector", "allow_all_ingress"})


OPERATORS: tuple[tuple[str, Operator, Stage], ...] = (
    ("wrong_name", wrong_name, Stage.s3_objects),
    ("wrong_namespace", wrong_namespace, Stage.s3_objects),
    ("extra_object", extra_object, Stage.s3_objects),
    ("drop_verb", drop_verb, Stage.s4_checks),
    ("wildcard_verb", wildcard_verb, Stage.s4_checks),
    ("wildcard_resource", wildcard_resource, Stage.s4_checks),
    ("drop_subject", drop_subject, Stage.s4_checks),
    ("wrong_role_ref", wrong_role_ref, Stage.s4_checks),
    ("wrong_value", wrong_value, Stage.s4_checks),
    ("drop_key", drop_key, Stage.s4_checks),
    ("wrong_secret_type", wrong_secret_type, Stage.s4_checks),
    ("wrong_label", wrong_label, Stage.s4_checks),
    ("token_automount", token_automount, Stage.s4_checks),
)


def _field_operators() -> list[tuple[str, Operator, Stage]]:
    def make(kind: str, path: str, how) -> Operator:
        def operator(objects: list[dict]) -> Change | None:
            found = _first(objects, kind)
            if found is None or not mutant_fields.change(found[2], path, how):
                return None
            return found[0], found[1], path

        return operator

    return [(name, make(kind, path, how), Stage.s4_checks)
            for name, kind, path, how in mutant_fields.FIELDS]  # fmt: skip


def mutants(objects: list[dict], runtime: bool = False) -> list[Mutant]:
    """Every operator that applies to these reference objects, in a fixed order; with
    `runtime` (the task has runtime checks) the runtime operators too, last."""
    out = []
    more = RUNTIME_OPERATORS if runtime else ()
    for name, operator, stage in [*OPERATORS, *_field_operators(), *more]:
        change = operator(objects)
        if change is None:
            continue
        mutated, index, path = change
        # the reference's object where one was changed; the new one for an extra object
        target = ref(objects[index] if index < len(objects) else mutated[index])
        out.append(
            Mutant(
                operator=name,
                fails_at=stage,
                target=target,
                document=index,
                path=path,
                answer=dump(mutated),
            )
        )
    return out
