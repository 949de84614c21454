"""UPDATE: a live object (a CREATE reference, made a fixture) and a request to change one to
three of its fields (the tier's count). The reference is the changed manifest; the checks
read the changed fields and that nothing else changed (Unchanged). The answer is applied
server-side, so a manifest of the changed fields alone is as good as the whole object."""

import random

from kubeproof.generate import wording
from kubeproof.generate.draft import Draft
from kubeproof.generate.model import Mutant, Stage, Tier
from kubeproof.generate.mutants import dump
from kubeproof.generate.mutants import mutants as create_mutants
from kubeproof.generate.ops import changes, preserve
from kubeproof.generate.ops.base import COUNTS, SHORT, base, flag, live, manifest, mutant, where

TOUCHED = ("kubeproof.example/touched", "yes")
# CREATE's mutants that mean something else for an object that exists: a dropped key stays
# (a server-side apply keeps what the answer leaves out), and a changed Secret type or
# roleRef, a Job's pod template or completions, a PVC's size or a Service port (a second
# item of a keyed list, with the same name) are refused by the apiserver (S2), not S4
_NOT_FOR_UPDATE = {
    ("drop_key", ""),
    ("wrong_secret_type", ""),
    ("wrong_role_ref", ""),
    ("wrong_image", "Job"),
    ("wrong_number", "Job"),
    ("wrong_quantity", "PersistentVolumeClaim"),
    ("wrong_number", "Service"),
}


def update_task(resource_type: str, rng: random.Random, tier: Tier) -> Draft:
    start = base(resource_type, rng, tier)
    target = live(start.objects[0])
    chosen = changes.changes(rng, target, COUNTS[tier], start.checks)
    new = changes.apply(target, chosen)
    checks = changes.checks_for(target, chosen)
    checks += preserve.unchanged(target, [c.covered for c in chosen])
    kind, name = target["kind"], target["metadata"]["name"]
    asks = wording.join([c.ask for c in chosen])
    full = (
        f"{start.scenario} The {kind} {name}{where(target)} is live, as follows:\n\n"
        f"```yaml\n{manifest(target)}```\n\nChange it: {asks}. Change nothing else. Answer "
        f"with the manifest to apply."
    )
    return Draft(
        scenario=start.scenario,
        full=full,
        simplified=f"Update the {kind} {name}{where(target)}: {asks}. Leave the rest as it is.",
        terse=f"edit {SHORT[kind]} {name}{flag(target)}: " + ", ".join(c.terse for c in chosen),
        objects=[new],
        checks=checks,
        fixtures=start.fixtures + [live(o) for o in start.objects],
        mutants=_mutants(target, new, chosen),
    )


def _mutants(before: dict, after: dict, chosen: list[changes.Change]) -> list[Mutant]:
    out = [
        mutant("forgot_change", Stage.s4_checks, after, chosen[0].path, dump([before])),
        mutant(
            "wrong_value",
            Stage.s4_checks,
            after,
            chosen[0].path,
            dump([changes.apply(before, chosen, wrong=chosen[0])]),
        ),
    ]
    touched = changes.apply(after, [])
    touched["metadata"].setdefault("labels", {})[TOUCHED[0]] = TOUCHED[1]
    out.append(
        mutant(
            "touched_other",
            Stage.s4_checks,
            after,
            f'metadata.labels["{TOUCHED[0]}"]',
            dump([touched]),
        )
    )
    names = {m.operator for m in out}
    for m in create_mutants([after]):
        skip = (m.operator, "") in _NOT_FOR_UPDATE or (m.operator, after["kind"]) in _NOT_FOR_UPDATE
        if not skip and m.operator not in names:
            out.append(m)
    return out
