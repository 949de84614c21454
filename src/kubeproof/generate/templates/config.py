"""ConfigMap and Secret: keys and values given in the request, checked by value (Secrets
decoded, `stringData` merged as the apiserver does), with labels, immutability and typed
Secrets (basic-auth, dockerconfigjson) in the higher tiers."""

import base64
import json
import random

from kubeproof.generate import vocab, wording
from kubeproof.generate.draft import Draft, meta, namespace_fixture, ref
from kubeproof.generate.model import (
    Check,
    FieldEquals,
    KeysPresent,
    MapIncludes,
    SecretData,
    SecretType,
    Tier,
)


def _labels(rng: random.Random, app: str, team: str) -> dict[str, str]:
    labels = {"app.kubernetes.io/name": app, "team": team}
    if rng.random() < 0.5:
        labels["environment"] = vocab.word(rng, vocab.ENVS)
    return labels


def configmap_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app = vocab.namespace(rng), vocab.app_name(rng)
    team = ns.split("-")[0]
    count = {Tier.easy: 2, Tier.intermediate: 4, Tier.advanced: 5}[tier]
    data = vocab.config_pairs(rng, app, count)
    name = f"{app}-{rng.choice(('config', 'settings', 'env'))}"
    obj: dict = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name, ns), "data": data}
    target = ref(obj)
    checks: list[Check] = [KeysPresent(target=target, path="data", keys=list(data), exact=True)]
    checks += [FieldEquals(target=target, path=f'data["{k}"]', value=v) for k, v in data.items()]
    extra, extra_terse = "", ""
    if tier is not Tier.easy:
        labels = _labels(rng, app, team)
        obj["metadata"] = meta(name, ns, labels)
        checks.append(MapIncludes(target=target, path="metadata.labels", entries=labels))
        extra += f" Label it {wording.pairs(labels)}."
        extra_terse += f" labels {wording.pairs(labels)}"
    if tier is Tier.advanced:
        owner = f"{vocab.word(rng, vocab.PEOPLE)}@{vocab.word(rng, vocab.DOMAINS)}"
        obj["metadata"]["annotations"] = {"owner": owner}
        obj["immutable"] = True
        checks.append(
            MapIncludes(target=target, path="metadata.annotations", entries={"owner": owner})
        )
        checks.append(FieldEquals(target=target, path="immutable", value=True))
        extra += f" Annotate it owner={owner}, and make it immutable."
        extra_terse += f" anno owner={owner}, immutable"
    scenario = f"The {team} team configures {app} through environment variables in {ns}."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a ConfigMap named {name} in namespace {ns} with exactly these "
        f"keys and values: {wording.pairs(data)}.{extra} The namespace already exists.",
        simplified=f"ConfigMap {name} in {ns} with {wording.pairs(data)}.{extra}",
        terse=f"cm {name} -n {ns}: {wording.pairs(data)}{extra_terse}",
        objects=[obj],
        checks=checks,
        fixtures=[namespace_fixture(ns)],
    )


def _dockerconfig(registry: str, user: str, password: str) -> str:
    auth = base64.b64encode(f"{user}:{password}".encode()).decode()
    return json.dumps(
        {"auths": {registry: {"username": user, "password": password, "auth": auth}}},
        sort_keys=True,
    )


def secret_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app = vocab.namespace(rng), vocab.app_name(rng)
    team = ns.split("-")[0]
    user = f"{app.split('-')[1]}_{rng.choice(('svc', 'app', 'rw', 'ro'))}"
    password = vocab.password(rng)
    registry = vocab.word(rng, vocab.REGISTRIES)
    kind_of = {
        Tier.easy: ("Opaque", [], "db-credentials"),
        Tier.intermediate: ("kubernetes.io/basic-auth", ["username", "password"], "basic-auth"),
        Tier.advanced: ("kubernetes.io/dockerconfigjson", [".dockerconfigjson"], "pull-secret"),
    }
    secret_type, required, suffix = kind_of[tier]
    name = f"{app}-{suffix}"
    obj: dict = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": meta(name, ns),
        "type": secret_type,
    }
    target = ref(obj)
    checks: list[Check] = [
        SecretType(target=target, secret_type=secret_type, required_keys=required)
    ]
    if tier is Tier.advanced:
        obj["stringData"] = {".dockerconfigjson": _dockerconfig(registry, user, password)}
        obj["immutable"] = True
        auth = f'auths["{registry}"]'
        checks.append(
            SecretData(
                target=target,
                values={},
                json_fields={
                    ".dockerconfigjson": {f"{auth}.username": user, f"{auth}.password": password}
                },
            )
        )
        checks.append(FieldEquals(target=target, path="immutable", value=True))
        ask = (
            f"an image pull Secret (type kubernetes.io/dockerconfigjson) for registry "
            f"{registry} with username {user} and password {password}, immutable"
        )
        terse_ask = f"dockerconfigjson {registry} {user}/{password} immutable"
    else:
        values = {"username": user, "password": password}
        obj["stringData"] = values
        checks.append(SecretData(target=target, values=values))
        checks.append(KeysPresent(target=target, path="data", keys=list(values), exact=True))
        ask = f"a Secret of type {secret_type} with username={user} and password={password}"
        terse_ask = f"{secret_type} username={user} password={password}"
    if tier is Tier.intermediate:
        labels = _labels(rng, app, team)
        obj["metadata"] = meta(name, ns, labels)
        checks.append(MapIncludes(target=target, path="metadata.labels", entries=labels))
        ask += f", labelled {wording.pairs(labels)}"
        terse_ask += f" labels {wording.pairs(labels)}"
    scenario = f"{app} in namespace {ns} needs credentials; the {team} team keeps them in a Secret."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create {ask}. Name it {name}, in namespace {ns}. Only those keys.",
        simplified=f"Secret {name} in {ns}: {ask}.",
        terse=f"secret {name} -n {ns}: {terse_ask}",
        objects=[obj],
        checks=checks,
        fixtures=[namespace_fixture(ns)],
    )
