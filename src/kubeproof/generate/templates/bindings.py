"""RoleBinding and ClusterRoleBinding: the roles and ServiceAccounts are fixtures; the checks
are the roleRef, the subjects as a set, and a permission matrix for every subject (with the
same access asked in another namespace, which a RoleBinding must not grant)."""

import random

from kubeproof.generate import vocab, wording
from kubeproof.generate.draft import (
    RBAC_API,
    RBAC_GROUP,
    Draft,
    cells_for,
    meta,
    namespace_fixture,
    near_misses,
    ref,
    role,
    serviceaccount,
)
from kubeproof.generate.model import Check, FieldEquals, ListContains, Permissions, Subject, Tier
from kubeproof.generate.templates.roles import (
    CLUSTER,
    CLUSTER_WIDE,
    NAMESPACED,
    cluster_cells,
    pick,
)

ELSEWHERE = "default"


def _subjects(rng: random.Random, tier: Tier, ns: str, other_ns: str) -> list[dict]:
    sa = {"kind": "ServiceAccount", "name": vocab.word(rng, vocab.BOTS), "namespace": ns}
    if tier is Tier.easy:
        return [sa]
    group = {"kind": "Group", "name": vocab.word(rng, vocab.GROUPS), "apiGroup": RBAC_GROUP}
    if tier is Tier.intermediate:
        return [sa, group]
    user = {
        "kind": "User",
        "name": f"{vocab.word(rng, vocab.PEOPLE)}@example.com",
        "apiGroup": RBAC_GROUP,
    }
    remote = {"kind": "ServiceAccount", "name": vocab.word(rng, vocab.BOTS), "namespace": other_ns}
    if remote["name"] == sa["name"] and other_ns == ns:
        return [sa, group, user]
    return [sa, remote, user]


def _subject_model(s: dict) -> Subject:
    return Subject(kind=s["kind"], name=s["name"], namespace=s.get("namespace"))


def _fixtures(namespaces: list[str], subjects: list[dict], role_obj: dict) -> list[dict]:
    out = [namespace_fixture(n) for n in dict.fromkeys(namespaces)]
    out += [
        serviceaccount(s["name"], s["namespace"]) for s in subjects if s["kind"] == "ServiceAccount"
    ]
    return [*out, role_obj]


def _checks(obj: dict, subjects: list[dict], matrix: list) -> list[Check]:
    target = ref(obj)
    checks: list[Check] = [
        FieldEquals(target=target, path="roleRef.kind", value=obj["roleRef"]["kind"]),
        FieldEquals(target=target, path="roleRef.name", value=obj["roleRef"]["name"]),
    ]
    checks += [
        ListContains(target=target, path="subjects", item=_identity(s, obj)) for s in subjects
    ]
    checks += [
        Permissions(target=target, subject=_subject_model(s), cells=matrix) for s in subjects
    ]
    return checks


def _identity(subject: dict, binding: dict) -> dict:
    """What names a subject: kind and name, and the namespace of a ServiceAccount unless it is
    the RoleBinding's own (which it may leave out); apiGroup is defaulted by the apiserver."""
    item = {"kind": subject["kind"], "name": subject["name"]}
    if "namespace" in subject and subject["namespace"] != binding["metadata"].get("namespace"):
        item["namespace"] = subject["namespace"]
    return item


def _binding(kind: str, name: str, ns: str | None, ref_kind: str, ref_name: str, subjects):
    return {
        "apiVersion": RBAC_API,
        "kind": kind,
        "metadata": meta(name, ns),
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": ref_kind, "name": ref_name},
        "subjects": subjects,
    }


def _who(subjects: list[dict]) -> tuple[str, str]:
    full = wording.join([wording.subject(s) for s in subjects])
    return full, ", ".join(wording.subject_terse(s) for s in subjects)


def rolebinding_task(rng: random.Random, tier: Tier) -> Draft:
    ns, other = vocab.namespace(rng), vocab.namespace(rng)
    team = ns.split("-")[0]
    rules = pick(rng, NAMESPACED, 1 if tier is Tier.easy else 2)
    # a Role in the namespace, or (intermediate, advanced) a ClusterRole used in one namespace
    ref_kind = "Role" if tier is Tier.easy else "ClusterRole"
    role_name = f"{team}-{rng.choice(('viewer', 'editor', 'operator', 'deployer'))}"
    role_obj = role(ref_kind, role_name, ns if ref_kind == "Role" else None, rules)
    subjects = _subjects(rng, tier, ns, other)
    name = f"{role_name}-binding"
    obj = _binding("RoleBinding", name, ns, ref_kind, role_name, subjects)
    elsewhere = other if other != ns else ELSEWHERE
    matrix = cells_for(rules, [ns], near_misses(rules, ns, elsewhere))
    full_who, terse_who = _who(subjects)
    scenario = (
        f"The {role_name} {ref_kind} already exists ({wording.grants(rules)}). The {team} team "
        f"wants it granted in namespace {ns} only."
    )
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a RoleBinding named {name} in namespace {ns} that binds the "
        f"{ref_kind} {role_name} to {full_who}. Do not change the {ref_kind}.",
        simplified=f"RoleBinding {name} in {ns}: {ref_kind} {role_name} -> {full_who}.",
        terse=f"rb {name} -n {ns}: {ref_kind.lower()}/{role_name} -> {terse_who}",
        objects=[obj],
        checks=_checks(obj, subjects, matrix),
        fixtures=_fixtures(
            [ns] + [s["namespace"] for s in subjects if "namespace" in s], subjects, role_obj
        ),
    )


def clusterrolebinding_task(rng: random.Random, tier: Tier) -> Draft:
    ns, other = vocab.namespace(rng), vocab.namespace(rng)
    team = ns.split("-")[0]
    rules = pick(rng, CLUSTER, 1)
    if tier is not Tier.easy:
        rules += pick(rng, CLUSTER_WIDE, 1)
    role_name = f"{team}-{rng.choice(('cluster-viewer', 'inventory-reader', 'node-watcher'))}"
    role_obj = role("ClusterRole", role_name, None, rules)
    subjects = _subjects(rng, tier, ns, other)
    name = f"{role_name}-{rng.choice(('global', 'all', 'cluster'))}"
    obj = _binding("ClusterRoleBinding", name, None, "ClusterRole", role_name, subjects)
    matrix = cluster_cells(rules)
    full_who, terse_who = _who(subjects)
    scenario = (
        f"The ClusterRole {role_name} already exists ({wording.grants(rules)}). The {team} "
        f"team needs it granted across the whole cluster."
    )
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a ClusterRoleBinding named {name} that binds the ClusterRole "
        f"{role_name} to {full_who}. Do not change the ClusterRole.",
        simplified=f"ClusterRoleBinding {name}: ClusterRole {role_name} -> {full_who}.",
        terse=f"crb {name}: clusterrole/{role_name} -> {terse_who}",
        objects=[obj],
        checks=_checks(obj, subjects, matrix),
        fixtures=_fixtures(
            [s["namespace"] for s in subjects if "namespace" in s], subjects, role_obj
        ),
    )


__all__ = ["clusterrolebinding_task", "rolebinding_task"]
