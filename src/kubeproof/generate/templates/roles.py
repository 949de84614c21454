"""Role and ClusterRole: the request is a set of rules; the checks are a permission matrix for
a probe subject the evaluator binds to the answer's role."""

import random

from kubeproof.generate import rbac, vocab, wording
from kubeproof.generate.draft import (
    Draft,
    cells_for,
    meta,
    namespace_fixture,
    near_misses,
    ref,
    role,
    rule,
)
from kubeproof.generate.model import Cell, MapIncludes, Permissions, Subject, Tier

R = wording.READ
# (group, resources, verbs): what a namespaced team asks for, everyday first
NAMESPACED = (
    ("", ["pods"], R),
    ("", ["pods/log"], ["get"]),
    ("", ["configmaps"], R),
    ("", ["services"], R),
    ("", ["events"], ["get", "list"]),
    ("", ["persistentvolumeclaims"], ["get", "list"]),
    ("apps", ["deployments"], R),
    ("apps", ["deployments"], ["get", "list", "update", "patch"]),
    ("apps", ["statefulsets"], R),
    ("apps", ["deployments/scale"], ["get", "update", "patch"]),
    ("batch", ["jobs"], ["get", "list", "create", "delete"]),
    ("batch", ["cronjobs"], R),
    ("networking.k8s.io", ["ingresses"], R),
)
CLUSTER = (
    ("", ["nodes"], R),
    ("", ["namespaces"], ["get", "list"]),
    ("", ["persistentvolumes"], R),
    ("storage.k8s.io", ["storageclasses"], ["get", "list"]),
    ("apiextensions.k8s.io", ["customresourcedefinitions"], ["get", "list"]),
)
CLUSTER_WIDE = (  # namespaced resources granted in every namespace
    ("", ["pods"], R),
    ("", ["services"], ["get", "list"]),
    ("apps", ["deployments"], ["get", "list"]),
    ("", ["events"], ["list", "watch"]),
)
PROBE_SA = "kubeproof-probe"
ELSEWHERE = "default"


def pick(rng: random.Random, pool: tuple, count: int) -> list[dict]:
    chosen = rng.sample(range(len(pool)), count)
    seen: set[str] = set()
    out = []
    for i in sorted(chosen):
        group, resources, verbs = pool[i]
        if resources[0] in seen:  # one rule per resource, or the matrix contradicts itself
            continue
        seen.add(resources[0])
        out.append(rule(group, resources, verbs))
    return out


def _namespaced_rules(rng: random.Random, tier: Tier, app: str) -> list[dict]:
    if tier is Tier.easy:
        return pick(rng, NAMESPACED, 1)
    rules = pick(rng, NAMESPACED, rng.choice((2, 3)))
    if tier is Tier.advanced:
        rules.append(rule("", ["configmaps"], ["get", "update"], [f"{app}-config"]))
        rules = [r for r in rules if r["resources"] != ["configmaps"] or r.get("resourceNames")]
        rules.append(rule("", ["secrets"], ["get"], [f"{app}-credentials"]))
    return rules


def role_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app = vocab.namespace(rng), vocab.app_name(rng)
    rules = _namespaced_rules(rng, tier, app)
    name = f"{app}-{rng.choice(('reader', 'operator', 'ci', 'deployer', 'support'))}"
    obj = role("Role", name, ns, rules)
    check = Permissions(
        target=ref(obj),
        subject=Subject(kind="ServiceAccount", name=PROBE_SA, namespace=ns),
        probe_binding="RoleBinding",
        probe_namespace=ns,
        cells=cells_for(rules, [ns], near_misses(rules, ns, ELSEWHERE)),
    )
    who = vocab.word(rng, vocab.BOTS)
    scenario = (
        f"The {ns.split('-')[0]} team runs {app} in namespace {ns}. Their {who} needs a "
        f"Role that grants exactly what it uses, nothing more."
    )
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a Role named {name} in namespace {ns} that grants "
        f"{wording.grants(rules)}. Grant nothing else: no wildcards, no other verbs or "
        f"resources. The namespace already exists.",
        simplified=f"Role {name} in namespace {ns}: {wording.grants(rules)}. Nothing else.",
        terse=f"role {name} -n {ns}: " + "; ".join(wording.grant_terse(r) for r in rules),
        objects=[obj],
        checks=[check],
        fixtures=[namespace_fixture(ns)],
    )


def _cluster_rules(rng: random.Random, tier: Tier) -> list[dict]:
    if tier is Tier.easy:
        return pick(rng, CLUSTER, 1)
    rules = pick(rng, CLUSTER, rng.choice((1, 2))) + pick(rng, CLUSTER_WIDE, 1)
    if tier is Tier.advanced:
        rules.append({"nonResourceURLs": [rng.choice(("/metrics", "/healthz"))], "verbs": ["get"]})
    return rules


def cluster_cells(rules: list[dict]) -> list[Cell]:
    """The matrix of a ClusterRole granted cluster-wide: namespaced grants asked in all
    namespaces and in one, cluster-scoped ones at cluster scope."""
    cluster_scoped = {res for _, rs, _ in CLUSTER for res in rs}
    cells: list[Cell] = []
    for r in rules:
        scoped = not set(r.get("resources") or []) & cluster_scoped and not r.get("nonResourceURLs")
        namespaces = ["", ELSEWHERE] if scoped else [""]
        cells += cells_for([r], namespaces, near_misses([r], "", None))
    cells += [
        Cell(verb="get", path="/logs", allowed=False),
        Cell(
            verb="create", group="rbac.authorization.k8s.io", resource="clusterroles", allowed=False
        ),
    ]
    unique = {c.model_dump_json(): c for c in cells}
    # a near miss of one rule may be another rule's grant: the rules as a whole decide
    return [c for c in unique.values() if c.allowed or not _granted(rules, c)]


def _granted(rules: list[dict], cell: Cell) -> bool:
    return any(rbac.rule_allows(r, cell) for r in rules)


def clusterrole_task(rng: random.Random, tier: Tier) -> Draft:
    team = vocab.word(rng, vocab.TEAMS)
    rules = _cluster_rules(rng, tier)
    name = f"{team}-{rng.choice(('cluster-reader', 'node-viewer', 'inventory', 'auditor'))}"
    labels = {"team": team}
    if tier is Tier.advanced:
        labels["rbac.example.com/tier"] = rng.choice(("observability", "audit", "inventory"))
    obj = role("ClusterRole", name, None, rules)
    if tier is not Tier.easy:
        obj["metadata"] = meta(name, None, labels)
    checks: list = [
        Permissions(
            target=ref(obj),
            subject=Subject(kind="ServiceAccount", name=PROBE_SA, namespace=ELSEWHERE),
            probe_binding="ClusterRoleBinding",
            cells=cluster_cells(rules),
        )
    ]
    label_text = ""
    if tier is not Tier.easy:
        checks.append(MapIncludes(target=ref(obj), path="metadata.labels", entries=labels))
        label_text = f" Label it {wording.pairs(labels)}."
    scenario = f"The {team} team runs a cluster inventory tool that needs cluster-wide reads."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a ClusterRole named {name} that grants {wording.grants(rules)}."
        f"{label_text} Grant nothing else: no wildcards, no other verbs or resources.",
        simplified=f"ClusterRole {name}: {wording.grants(rules)}.{label_text} Nothing else.",
        terse=f"clusterrole {name}: "
        + "; ".join(wording.grant_terse(r) for r in rules)
        + (f" labels {wording.pairs(labels)}" if label_text else ""),
        objects=[obj],
        checks=checks,
    )
