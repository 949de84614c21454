"""Namespace and ServiceAccount: labels and Pod Security levels, a namespace with its quota
and default limits (Quantity-normalised checks), a ServiceAccount with pull secrets and no
token automount, and one with the Role and RoleBinding it needs (a permission matrix)."""

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
)
from kubeproof.generate.model import (
    Check,
    FieldEquals,
    ListContains,
    MapIncludes,
    Permissions,
    Subject,
    Tier,
)
from kubeproof.generate.templates import quotas
from kubeproof.generate.templates.roles import NAMESPACED, pick

PSA = "pod-security.kubernetes.io/enforce"


def namespace_task(rng: random.Random, tier: Tier) -> Draft:
    ns = vocab.namespace(rng)
    team, env = ns.split("-")
    labels = {"team": team, "cost-center": f"cc-{rng.randrange(1000, 10000)}"}
    if tier is not Tier.easy:
        labels |= {"environment": env, PSA: rng.choice(("restricted", "baseline"))}
    obj: dict = {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(ns, None, labels)}
    target = ref(obj)
    checks: list[Check] = [MapIncludes(target=target, path="metadata.labels", entries=labels)]
    objects, asks, terse = [obj], [f"labelled {wording.pairs(labels)}"], [wording.pairs(labels)]
    if tier is Tier.intermediate:
        owner = f"{vocab.word(rng, vocab.PEOPLE)}@{vocab.word(rng, vocab.DOMAINS)}"
        obj["metadata"]["annotations"] = {"owner": owner}
        checks.append(
            MapIncludes(target=target, path="metadata.annotations", entries={"owner": owner})
        )
        asks.append(f"annotated owner={owner}")
        terse.append(f"anno owner={owner}")
    if tier is Tier.advanced:
        for made in (quotas.quota(rng, ns, quotas.HARD), quotas.limit_range(rng, ns)):
            objects.append(made.obj)
            checks += made.checks
            asks.append(f"with {made.ask}")
            terse.append(made.terse)
    scenario = f"The {team} team is onboarding its {env} environment to the shared cluster."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create the namespace {ns}, " + ", ".join(asks) + ".",
        simplified=f"Namespace {ns}, " + ", ".join(asks) + ".",
        terse=f"ns {ns}: " + "; ".join(terse),
        objects=objects,
        checks=checks,
    )


def serviceaccount_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app = vocab.namespace(rng), vocab.app_name(rng)
    team = ns.split("-")[0]
    name = f"{app}-{rng.choice(('sa', 'runner', 'bot'))}"
    obj: dict = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(name, ns)}
    target = ref(obj)
    fixtures = [namespace_fixture(ns)]
    checks: list[Check] = []
    ask, terse = "", ""
    if tier is Tier.intermediate:
        pull = f"{vocab.word(rng, vocab.REGISTRIES).split('.')[0]}-pull"
        labels = {"app.kubernetes.io/name": app, "team": team}
        obj["metadata"]["labels"] = labels
        obj["automountServiceAccountToken"] = False
        obj["imagePullSecrets"] = [{"name": pull}]
        fixtures.append(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": meta(pull, ns),
                "type": "Opaque",
                "stringData": {"note": "fixture"},
            }
        )
        checks += [
            MapIncludes(target=target, path="metadata.labels", entries=labels),
            FieldEquals(target=target, path="automountServiceAccountToken", value=False),
            ListContains(target=target, path="imagePullSecrets", item={"name": pull}),
        ]
        ask = (
            f" It must not automount its API token, must use the existing image pull secret "
            f"{pull}, and is labelled {wording.pairs(labels)}."
        )
        terse = f" no token automount, pull secret {pull}, labels {wording.pairs(labels)}"
    objects = [obj]
    if tier is Tier.advanced:
        rules = pick(rng, NAMESPACED, 2)
        role_obj = role("Role", f"{name}-role", ns, rules)
        binding = {
            "apiVersion": RBAC_API,
            "kind": "RoleBinding",
            "metadata": meta(f"{name}-role", ns),
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": f"{name}-role"},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}],
        }
        objects += [role_obj, binding]
        checks.append(
            Permissions(
                target=ref(binding),
                subject=Subject(kind="ServiceAccount", name=name, namespace=ns),
                cells=cells_for(rules, [ns], near_misses(rules, ns, "default")),
            )
        )
        ask = (
            f" Give it, through a Role and a RoleBinding both named {name}-role, exactly: "
            f"{wording.grants(rules)}."
        )
        terse = f" + role/rb {name}-role: " + "; ".join(wording.grant_terse(r) for r in rules)
    scenario = f"{app} runs in namespace {ns} under its own identity."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a ServiceAccount named {name} in namespace {ns}.{ask} "
        f"The namespace already exists.",
        simplified=f"ServiceAccount {name} in {ns}.{ask}",
        terse=f"sa {name} -n {ns}{terse}",
        objects=objects,
        checks=checks or [FieldEquals(target=target, path="metadata.name", value=name)],
        fixtures=fixtures,
    )
