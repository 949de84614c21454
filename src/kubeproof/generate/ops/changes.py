"""The changes an UPDATE (or a COMMAND that makes a change) asks of a live object: per kind,
the fields operators change every day (replicas, an image, a ConfigMap value, a password, a
rule, a subject, a schedule, a quota), and a label or an annotation for every kind. Each
change knows its new value, another valid value a sloppy answer writes instead, the words
that ask for it and the checks that read it. Only fields the apiserver lets an update change
are used (a Job's pod template, a PVC's size and a binding's roleRef are immutable), and no
change removes a field: a server-side apply keeps what the answer leaves out."""

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubeproof.generate import vocab, wording
from kubeproof.generate.draft import cells_for, near_misses, ref
from kubeproof.generate.model import (
    Check,
    FieldEquals,
    ListContains,
    MapIncludes,
    Permissions,
    SecretData,
    Subject,
)
from kubeproof.generate.templates.roles import CLUSTER, NAMESPACED, cluster_cells
from kubeproof.generate.templates.schedules import SCHEDULES
from kubeproof.verify.fields import get_path

LABEL_KEYS = ("release", "owner", "cost-center", "tier", "on-call")
ANNOTATION_KEY = "example.com/reviewed-by"
NEXT_IMAGE = {"nginx:1.27": "nginx:1.28", "nginx:1.26-alpine": "nginx:1.27-alpine",
              "redis:5.0.14-alpine": "redis:6.2-alpine"}  # fmt: skip


@dataclass
class Change:
    """One asked change of the target object."""

    path: str  # the field, as kubeproof.verify.fields reads it
    value: Any  # the new value
    wrong: Any  # another valid value: what a sloppy answer writes (a mutant)
    ask: str  # the request in words
    terse: str  # the request in operator shorthand
    covers: str = ""  # the field the Unchanged check leaves out ("" = path)
    quantity: bool = False
    checks: list[Check] = field(default_factory=list)  # beyond the field_equals of `value`
    native: list[str] | None = None  # a kubectl command's words for it, if not a patch

    @property
    def covered(self) -> str:
        return self.covers or self.path


_STEP = re.compile(r'([^.\[\]"]+)|\[(\d+)\]|\["([^"]+)"\]|\[name=([^\]]+)\]')


def set_path(obj: dict, path: str, value: Any) -> None:
    """Set the field at `path` (the syntax get_path reads), making missing maps."""
    steps = _STEP.findall(path)
    current: Any = obj
    for i, (name, index, quoted, named) in enumerate(steps):
        last = i == len(steps) - 1
        if named:
            current = next(c for c in current if c.get("name") == named)
            continue
        key: Any = int(index) if index else (name or quoted)
        if last:
            current[key] = value
        else:
            if isinstance(current, dict) and key not in current:
                current[key] = {}
            current = current[key]


def label_change(rng: random.Random, obj: dict) -> Change:
    labels = obj["metadata"].get("labels") or {}
    key = next(k for k in rng.sample(LABEL_KEYS, len(LABEL_KEYS)) if k not in labels)
    value = {"release": f"r{rng.randrange(100, 1000)}", "owner": vocab.word(rng, vocab.PEOPLE),
             "cost-center": f"cc-{rng.randrange(1000, 10000)}",
             "tier": rng.choice(("frontend", "backend", "batch")),
             "on-call": vocab.word(rng, vocab.GROUPS)}[key]  # fmt: skip
    path = f'metadata.labels["{key}"]'
    return Change(path, value, value + "x", f"add the label {key}={value}", f"+label {key}={value}")


def _annotation(rng: random.Random, obj: dict) -> Change:
    who = vocab.word(rng, vocab.PEOPLE)
    path = f'metadata.annotations["{ANNOTATION_KEY}"]'
    return Change(path, who, who + "x", f"annotate it {ANNOTATION_KEY}={who}",
                  f"+anno {ANNOTATION_KEY}={who}")  # fmt: skip


def _replicas(rng, obj):
    old = obj["spec"]["replicas"]
    new = old + rng.choice((1, 2, 3))
    return Change("spec.replicas", new, new + 1, f"scale it to {new} replicas", f"replicas={new}",
                  native=["scale", "--replicas", str(new)])  # fmt: skip


def _image(rng, obj):
    path = "spec.template.spec.containers[name=main].image"
    new = NEXT_IMAGE[get_path(obj, path)]
    other = next(i for i in NEXT_IMAGE.values() if i != new)
    return Change(path, new, other, f"change the main container's image to {new}",
                  f"image main={new}", native=["set", "image", f"main={new}"])  # fmt: skip


def _config_value(rng, obj):
    key = rng.choice(sorted(obj["data"]))
    old = obj["data"][key]
    if key == "LOG_LEVEL":
        new = next(v for v in rng.sample(vocab.LOG_LEVELS, 4) if v != old)
    elif old.isdigit():
        new = str(int(old) * 2 or 1)
    else:
        new = f"{old}-v2"
    path = f'data["{key}"]'
    return Change(path, new, new + "x", f"set {key} to {new}", f"{key}={new}")


def _config_key(rng, obj):
    key, value = rng.choice((("RATE_LIMIT", "100"), ("ENABLE_METRICS", "true"),
                             ("WORKERS", "4"), ("TRACING", "off")))  # fmt: skip
    if key in obj["data"]:
        return None
    return Change(f'data["{key}"]', value, value + "0", f"add the key {key}={value}",
                  f"+{key}={value}")  # fmt: skip


def _password(rng, obj):
    if "password" not in (obj.get("stringData") or {}):
        return None
    new = vocab.password(rng)
    target = ref(obj)
    return Change('stringData["password"]', new, new + "x", f"rotate the password to {new}",
                  f"password={new}",
                  checks=[SecretData(target=target, values={"password": new})])  # fmt: skip


def _grant(rng, obj, base_checks):
    """A rule more, and the matrix recomputed for the new rules."""
    pool = NAMESPACED if obj["kind"] == "Role" else CLUSTER
    have = {r for rule in obj["rules"] for r in rule.get("resources") or []}
    fresh = [p for p in pool if p[1][0] not in have]
    if not fresh:
        return None
    group, resources, verbs = rng.choice(fresh)
    new_rule = {"apiGroups": [group], "resources": list(resources), "verbs": list(verbs)}
    rules = [*obj["rules"], new_rule]
    old = next(c for c in base_checks if isinstance(c, Permissions))
    if obj["kind"] == "Role":
        ns = obj["metadata"]["namespace"]
        cells = cells_for(rules, [ns], near_misses(rules, ns, "default"))
    else:
        cells = cluster_cells(rules)
    matrix = old.model_copy(update={"cells": cells})
    wrong = [*obj["rules"], {**new_rule, "verbs": ["*"]}]
    return Change("rules", rules, wrong, f"also grant {wording.grant(new_rule)}",
                  f"+rule {wording.grant_terse(new_rule)}", checks=[matrix])  # fmt: skip


def _subject(rng, obj, base_checks):
    user = f"{vocab.word(rng, vocab.PEOPLE)}.{rng.randrange(10, 100)}@example.com"
    subject = {"kind": "User", "name": user, "apiGroup": "rbac.authorization.k8s.io"}
    old = next(c for c in base_checks if isinstance(c, Permissions))
    matrix = old.model_copy(update={"subject": Subject(kind="User", name=user)})
    target = ref(obj)
    contains = ListContains(target=target, path="subjects", item={"kind": "User", "name": user})
    wrong = [*obj["subjects"], {**subject, "name": user.replace("@", "-x@")}]
    ask = f"also bind it to the user {user}"
    subjects = [*obj["subjects"], subject]
    return Change("subjects", subjects, wrong, ask, f"+user {user}", checks=[contains, matrix])


def _psa(rng, obj):
    key = "pod-security.kubernetes.io/enforce"
    old = (obj["metadata"].get("labels") or {}).get(key)
    if old is None:
        return None
    new = "baseline" if old == "restricted" else "restricted"
    return Change(f'metadata.labels["{key}"]', new, "privileged",
                  f"set its Pod Security level to {new}", f"psa enforce={new}")  # fmt: skip


def _automount(rng, obj):
    if obj.get("automountServiceAccountToken") is False:
        return None
    return Change("automountServiceAccountToken", False, True,
                  "stop it automounting its API token", "no token automount")  # fmt: skip


def _not_ready(rng, obj):
    if obj["spec"].get("publishNotReadyAddresses"):
        return None
    return Change("spec.publishNotReadyAddresses", True, False,
                  "publish the addresses of pods that are not ready yet",
                  "publishNotReadyAddresses")  # fmt: skip


def _pdb(rng, obj):
    spec = obj["spec"]
    if "minAvailable" in spec:
        new = spec["minAvailable"] + 1
        return Change("spec.minAvailable", new, new + 1, f"require {new} pods available",
                      f"minAvailable={new}")  # fmt: skip
    return Change("spec.maxUnavailable", "50%", "10%", "allow 50% of the pods unavailable",
                  "maxUnavailable=50%")  # fmt: skip


def _hpa_max(rng, obj):
    new = obj["spec"]["maxReplicas"] + rng.choice((5, 10))
    return Change("spec.maxReplicas", new, new + 1, f"raise its maximum to {new} replicas",
                  f"max={new}")  # fmt: skip


def _hpa_min(rng, obj):
    new = obj["spec"]["minReplicas"] + 1
    if new >= obj["spec"]["maxReplicas"]:
        return None
    return Change("spec.minReplicas", new, new + 1, f"raise its minimum to {new} replicas",
                  f"min={new}")  # fmt: skip


def _schedule(rng, obj):
    old = obj["spec"]["schedule"]
    new, when = rng.choice([s for s in SCHEDULES if s[0] != old])
    wrong = next(s for s, _ in SCHEDULES if s not in (old, new))
    return Change("spec.schedule", new, wrong, f"run it {when} instead (schedule {new})",
                  f"schedule '{new}'")  # fmt: skip


def _suspend(rng, obj):
    if obj["kind"] == "Job":
        return None  # suspending a Job that has started is refused for Indexed ones
    return Change("spec.suspend", True, False, "suspend it", "suspend")


def _parallelism(rng, obj):
    new = (obj["spec"].get("parallelism") or 1) + rng.choice((1, 2))
    return Change("spec.parallelism", new, new + 1, f"run {new} pods at a time",
                  f"parallelism={new}")  # fmt: skip


def _deadline(rng, obj):
    new = rng.choice((600, 1200, 3600))
    return Change("spec.activeDeadlineSeconds", new, new + 60,
                  f"stop it after {new} seconds", f"deadline={new}s")  # fmt: skip


def _egress(rng, obj):
    if obj["spec"]["policyTypes"] != ["Ingress"] or obj["spec"].get("ingress"):
        return None
    return Change("spec.policyTypes", ["Ingress", "Egress"], ["Egress"],
                  "deny all outgoing traffic of those pods too", "+deny egress")  # fmt: skip


def _pods_quota(rng, obj):
    old = (obj["spec"]["hard"]).get("pods")
    if old is None:
        return None
    new = str(int(old) * 2)
    return Change('spec.hard["pods"]', new, str(int(new) + 1), f"raise the pod cap to {new}",
                  f"pods={new}", quantity=True)  # fmt: skip


Maker = Callable[..., Change | None]
# kind -> the kind's own changes, in a fixed order (a task samples them with its rng)
SPECIFIC: dict[str, tuple[Maker, ...]] = {
    "Deployment": (_replicas, _image),
    "ConfigMap": (_config_value, _config_key),
    "Secret": (_password,),
    "Role": (_grant,),
    "ClusterRole": (_grant,),
    "RoleBinding": (_subject,),
    "ClusterRoleBinding": (_subject,),
    "Namespace": (_psa,),
    "ServiceAccount": (_automount,),
    "Service": (_not_ready,),
    "PodDisruptionBudget": (_pdb,),
    "HorizontalPodAutoscaler": (_hpa_max, _hpa_min),
    "CronJob": (_schedule, _suspend),
    "Job": (_parallelism, _deadline),
    "NetworkPolicy": (_egress,),
    "ResourceQuota": (_pods_quota,),
}
_NEEDS_CHECKS = {_grant, _subject}


def changes(rng: random.Random, obj: dict, count: int, base_checks: list[Check]) -> list[Change]:
    """`count` changes of `obj`: its kind's own first (in an order the rng picks), then a
    label and an annotation."""
    own = list(SPECIFIC.get(obj["kind"], ()))
    rng.shuffle(own)
    made: list[Change] = []
    for maker in own:
        args = (rng, obj, base_checks) if maker in _NEEDS_CHECKS else (rng, obj)
        change = maker(*args)
        if change is not None:
            made.append(change)
    made += [label_change(rng, obj), _annotation(rng, obj)]
    return made[:count]


def apply(obj: dict, chosen: list[Change], wrong: Change | None = None) -> dict:
    """A copy of `obj` with the changes made (`wrong` gets its wrong value instead)."""
    out = json.loads(json.dumps(obj))
    for change in chosen:
        set_path(out, change.path, change.wrong if change is wrong else change.value)
    return out


def checks_for(obj: dict, chosen: list[Change]) -> list[Check]:
    """The checks that read the asked changes on the live object."""
    target = ref(obj)
    out: list[Check] = []
    for change in chosen:
        if change.checks:
            out += change.checks
        elif change.path.startswith(("metadata.labels", "metadata.annotations")):
            head, _, key = change.path.partition('["')
            out.append(MapIncludes(target=target, path=head, entries={key[:-2]: change.value}))
        else:
            unordered = isinstance(change.value, list)
            out.append(FieldEquals(target=target, path=change.path, value=change.value,
                                   quantity=change.quantity, unordered=unordered))  # fmt: skip
    return out
