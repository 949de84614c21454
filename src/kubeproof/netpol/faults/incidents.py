"""Incident faults on whole objects: the policies' types and targets, namespaces, Services,
DNS egress. Each is a mistake real clusters have had; docs/netpol.md lists them."""

import copy
from collections.abc import Iterator
from random import Random

from kubeproof.netpol import baseline
from kubeproof.netpol.faults.base import (
    Candidate,
    Context,
    Objects,
    app_policies,
    cause,
    kind,
    of_kind,
    ref,
    same_namespace_apps,
)


@kind("dns-egress-blocked", "Egress is locked down and DNS (53/UDP to kube-dns) was forgotten.")
def dns_egress_blocked(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in of_kind(objects, "NetworkPolicy"):
        if policy["metadata"]["name"] != "allow-dns":
            continue
        key, ns = ref(policy), policy["metadata"]["namespace"]

        def only_tcp(objs: Objects, key: str = key) -> list:
            rule = objs[key]["spec"]["egress"][0]
            rule["ports"] = [p for p in rule["ports"] if p.get("protocol") != "UDP"]
            return [cause(objs[key], "spec.egress[0].ports")]

        yield Candidate(
            {"policy": "allow-dns", "namespace": ns},
            f"allow-dns in {ns} allows 53/TCP only",
            only_tcp,
        )
    for policy in app_policies(objects):
        name, ns = policy["metadata"]["name"], policy["metadata"]["namespace"]
        rules = baseline.egress_rules(ctx.topology, ctx.topology.app(f"{ns}/{name}"))
        if not rules or policy["spec"].get("egress") == rules:
            continue
        key = ref(policy)

        def callees_only(objs: Objects, key: str = key, rules: list = rules) -> list:
            spec = objs[key]["spec"]
            spec["egress"] = copy.deepcopy(rules)
            if "Egress" not in spec.setdefault("policyTypes", ["Ingress"]):
                spec["policyTypes"].append("Egress")
            return [cause(objs[key], "spec.egress")]

        yield Candidate(
            {"policy": name},
            f"policy {name} allows egress to its callees only (no DNS)",
            callees_only,
        )


@kind("namespace-label-renamed", "A namespace's label that namespaceSelectors use was renamed.")
def namespace_label_renamed(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    selected: set[str] = set()
    for policy in of_kind(objects, "NetworkPolicy"):
        for direction, side in (("ingress", "from"), ("egress", "to")):
            for rule in policy["spec"].get(direction) or []:
                for peer in rule.get(side) or []:
                    selected |= set((peer.get("namespaceSelector") or {}).get("matchLabels") or {})
    for ns in of_kind(objects, "Namespace"):
        for label in sorted(set(ns["metadata"].get("labels") or {}) & selected):
            if label.startswith("kubernetes.io/"):
                continue  # set by the apiserver, cannot be renamed
            new = "owner" if label != "owner" else "team"
            key, name = ref(ns), ns["metadata"]["name"]

            def apply(objs: Objects, key: str = key, label: str = label, new: str = new) -> list:
                labels = objs[key]["metadata"]["labels"]
                labels[new] = labels.pop(label)
                return [cause(objs[key], f"metadata.labels.{label}")]

            yield Candidate(
                {"namespace": name, "label": label, "renamed_to": new},
                f"namespace {name}'s label {label} is now {new}",
                apply,
            )


@kind("policy-types-dropped", "A direction left policyTypes: its rules are ignored.")
def policy_types_dropped(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in app_policies(objects):
        types = policy["spec"].get("policyTypes") or []
        for direction in types if len(types) > 1 else []:
            key, name = ref(policy), policy["metadata"]["name"]

            def apply(objs: Objects, key: str = key, direction: str = direction) -> list:
                objs[key]["spec"]["policyTypes"].remove(direction)
                return [cause(objs[key], "spec.policyTypes")]

            yield Candidate(
                {"policy": name, "dropped": direction},
                f"policy {name} no longer lists {direction}",
                apply,
            )


@kind("policy-types-added", "A direction without rules joined policyTypes: it is now denied.")
def policy_types_added(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in of_kind(objects, "NetworkPolicy"):
        types = policy["spec"].get("policyTypes") or []
        for direction in ("Ingress", "Egress"):
            if direction in types or policy["spec"].get(direction.lower()):
                continue
            key, name = ref(policy), policy["metadata"]["name"]

            def apply(objs: Objects, key: str = key, direction: str = direction) -> list:
                objs[key]["spec"].setdefault("policyTypes", []).append(direction)
                return [cause(objs[key], "spec.policyTypes")]

            yield Candidate(
                {"policy": name, "added": direction},
                f"policy {name} now lists {direction} with no rules",
                apply,
            )


@kind("default-deny-wrong-namespace", "A default deny meant for another namespace landed here.")
def default_deny_wrong_namespace(
    objects: Objects, ctx: Context, rng: Random
) -> Iterator[Candidate]:
    for ns in ctx.topology.namespaces:
        if f"NetworkPolicy/{ns.name}/default-deny" in objects:
            continue

        def apply(objs: Objects, ns: str = ns.name) -> list:
            policy = {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "NetworkPolicy",
                "metadata": {"name": "default-deny", "namespace": ns},
                "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
            }
            objs[ref(policy)] = policy
            return [cause(policy, "")]

        yield Candidate({"namespace": ns.name}, f"a default deny was added in {ns.name}", apply)


@kind("wrong-target-pods", "A policy's podSelector picks another app's pods.")
def wrong_target_pods(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in app_policies(objects):
        name, ns = policy["metadata"]["name"], policy["metadata"]["namespace"]
        for other in same_namespace_apps(ctx, ns):
            if other == name:
                continue
            key = ref(policy)

            def apply(objs: Objects, key: str = key, other: str = other) -> list:
                objs[key]["spec"]["podSelector"]["matchLabels"]["app"] = other
                return [cause(objs[key], "spec.podSelector.matchLabels.app")]

            yield Candidate(
                {"policy": name, "selects": other}, f"policy {name} selects app={other}", apply
            )


@kind("service-targetport-drift", "A Service's targetPort no longer matches the pods' port.")
def service_targetport_drift(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for svc in of_kind(objects, "Service"):
        for i, port in enumerate(svc["spec"].get("ports") or []):
            target = port.get("targetPort", port["port"])
            if not isinstance(target, int):
                continue
            key, name = ref(svc), svc["metadata"]["name"]

            def apply(objs: Objects, key: str = key, i: int = i, new: int = target + 1) -> list:
                objs[key]["spec"]["ports"][i]["targetPort"] = new
                return [cause(objs[key], f"spec.ports[{i}].targetPort")]

            yield Candidate(
                {"service": name, "port": port["port"], "target_port": target + 1},
                f"Service {name} port {port['port']} targets {target + 1}",
                apply,
            )


KINDS = [
    "dns-egress-blocked",
    "namespace-label-renamed",
    "policy-types-dropped",
    "policy-types-added",
    "default-deny-wrong-namespace",
    "wrong-target-pods",
    "service-targetport-drift",
]
