"""DELETE: a CREATE reference made live together with look-alike siblings (the same object
under other names), and a request to remove some of them: one (easy), two by name
(intermediate), or every one carrying a label (advanced). The answer lists the objects to
delete, as `kubectl delete -f` reads them; `absent` names what must be gone and `expected`
everything that must survive, the siblings and the other fixtures (S3 fails an answer that
deletes one too many or one too few; a name that does not exist is the apiserver's 404, S2)."""

import random

from kubeproof.generate.draft import RBAC_API, Draft
from kubeproof.generate.model import Mutant, Stage, Tier
from kubeproof.generate.mutants import dump
from kubeproof.generate.ops.base import SHORT, base, copy, flag, live, mutant, where

SUFFIXES = ("old", "canary", "v1", "backup", "next", "archive", "legacy")
RETIRED = ("lifecycle", "retired")
SIBLINGS = {Tier.easy: 1, Tier.intermediate: 3, Tier.advanced: 4}
# a cluster-scoped kind the same name does not exist as: wrong_kind's 404
_OTHER_KIND = {"Namespace": "ClusterRole", "ClusterRole": "ClusterRoleBinding",
               "ClusterRoleBinding": "ClusterRole"}  # fmt: skip


def stub(obj: dict) -> dict:
    """What `kubectl delete -f` needs of an object: its identity."""
    meta = {"name": obj["metadata"]["name"]}
    if obj["metadata"].get("namespace"):
        meta["namespace"] = obj["metadata"]["namespace"]
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": meta}


def _renamed(obj: dict, name: str) -> dict:
    out = copy(obj)
    out["metadata"]["name"] = name
    return out


def _listing(siblings: list[dict], labelled: bool) -> str:
    """The siblings as `kubectl get` names them, with the lifecycle label when it decides."""
    rows = []
    for s in siblings:
        label = (s["metadata"].get("labels") or {}).get(RETIRED[0])
        shown = f" ({RETIRED[0]}={label})" if labelled and label else ""
        rows.append(s["metadata"]["name"] + shown)
    return ", ".join(rows)


def delete_task(resource_type: str, rng: random.Random, tier: Tier) -> Draft:
    start = base(resource_type, rng, tier)
    target = live(start.objects[0])
    kind, name = target["kind"], target["metadata"]["name"]
    suffixes = rng.sample(SUFFIXES, SIBLINGS[tier])
    siblings = [target] + [_renamed(target, f"{name}-{s}") for s in suffixes]
    if tier is Tier.easy:
        doomed = [target]
    elif tier is Tier.intermediate:
        doomed = [target, siblings[1]]
    else:
        doomed = [target, *rng.sample(siblings[1:], rng.choice((1, 2)))]
        for s in siblings:
            labels = s["metadata"].setdefault("labels", {})
            labels[RETIRED[0]] = RETIRED[1] if s in doomed else "active"
    siblings.sort(key=lambda s: s["metadata"]["name"])
    doomed.sort(key=lambda s: s["metadata"]["name"])
    names = [d["metadata"]["name"] for d in doomed]
    fixtures = start.fixtures + [live(o) for o in start.objects[1:]] + siblings
    gone = {d["metadata"]["name"] for d in doomed if kind == "Namespace"}
    survivors = [
        f for f in fixtures
        if f not in doomed and f["metadata"].get("namespace") not in gone
    ]  # fmt: skip
    plural = f"{kind}s" if len(doomed) > 1 else kind
    if tier is Tier.advanced:
        ask = f"Delete every {kind}{where(target)} labelled {RETIRED[0]}={RETIRED[1]}"
        terse = f"rm {SHORT[kind]}{flag(target)} -l {RETIRED[0]}={RETIRED[1]}"
    else:
        ask = f"Delete the {plural} {' and '.join(names)}{where(target)}"
        terse = f"rm {SHORT[kind]} {' '.join(names)}{flag(target)}"
    listing = _listing(siblings, tier is Tier.advanced)
    full = (
        f"{start.scenario} These {kind}s exist{where(target)}: {listing}. {ask}, and keep "
        f"every other one. Answer with the manifests of the objects to delete, as "
        f"`kubectl delete -f` reads them (apiVersion, kind and metadata are enough)."
    )
    return Draft(
        scenario=start.scenario,
        full=full,
        simplified=f"{ask}; keep the others. Live now: {listing}.",
        terse=f"{terse}  (live: {listing})",
        objects=[stub(d) for d in doomed],
        checks=[],
        fixtures=fixtures,
        extra_kinds=[_OTHER_KIND.get(kind, "ConfigMap")],
        absent=doomed,
        expected=survivors,
        mutants=_mutants([stub(d) for d in doomed], [s for s in siblings if s not in doomed]),
    )


def _mutants(stubs: list[dict], kept: list[dict]) -> list[Mutant]:
    first = stubs[0]
    out = [
        mutant(
            "one_too_many",
            Stage.s3_objects,
            kept[0],
            "",
            dump([*stubs, stub(kept[0])]),
            document=len(stubs),
        ),
    ]
    if len(stubs) > 1:
        out.append(
            mutant(
                "one_too_few",
                Stage.s3_objects,
                stubs[-1],
                "",
                dump(stubs[:-1]),
                document=len(stubs) - 1,
            )
        )
    renamed = copy(stubs)
    renamed[0]["metadata"]["name"] += "-x"
    out.append(mutant("wrong_name", Stage.s2_apply, first, "metadata.name", dump(renamed)))
    moved = copy(stubs)
    if "namespace" in first["metadata"]:
        moved[0]["metadata"]["namespace"] = "default"
        out.append(
            mutant("wrong_namespace", Stage.s2_apply, first, "metadata.namespace", dump(moved))
        )
    else:
        moved[0]["kind"] = _OTHER_KIND[first["kind"]]
        moved[0]["apiVersion"] = RBAC_API
        out.append(mutant("wrong_kind", Stage.s2_apply, first, "kind", dump(moved)))
    return out
