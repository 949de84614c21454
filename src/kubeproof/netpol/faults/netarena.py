"""NetArena's five error types (app-k8s/inject_errors.py `_inject_errors_with_detail`), made
on any topology's per-app policies and chosen with the task's seed instead of unseeded
`random`. The parameters are drawn as NetArena draws them: two source apps for add_ingress
and add_egress, a port in 1..65535, UDP or SCTP."""

from collections.abc import Iterator
from random import Random

from kubeproof.netpol.faults.base import (
    Candidate,
    Context,
    Objects,
    app_policies,
    cause,
    kind,
    peers,
    pick,
    port_entries,
    ref,
    same_namespace_apps,
)


@kind("remove-ingress", "The policy's first ingress rule is gone.", netarena="remove_ingress")
def remove_ingress(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in app_policies(objects):
        if not policy["spec"].get("ingress"):
            continue
        key = ref(policy)

        def apply(objs: Objects, key: str = key) -> list:
            objs[key]["spec"]["ingress"].pop(0)
            return [cause(objs[key], "spec.ingress[0]")]

        name = policy["metadata"]["name"]
        yield Candidate({"policy": name}, f"removed ingress rule 0 of policy {name}", apply)


@kind(
    "add-ingress",
    "Two apps that should not reach the app are admitted on every port.",
    netarena="add_ingress",
)
def add_ingress(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in app_policies(objects):
        if "Ingress" not in (policy["spec"].get("policyTypes") or ["Ingress"]):
            continue
        name, namespace = policy["metadata"]["name"], policy["metadata"]["namespace"]
        admitted = {
            (p.get("podSelector") or {}).get("matchLabels", {}).get("app")
            for _, _, p in peers(policy)
            if "namespaceSelector" not in p
        }
        others = [a for a in same_namespace_apps(ctx, namespace) if a not in admitted | {name}]
        apps = pick(rng, others, 2)
        if not apps:
            continue
        key = ref(policy)

        def apply(objs: Objects, key: str = key, apps: list = apps) -> list:
            rules = objs[key]["spec"].setdefault("ingress", [])
            first = len(rules)
            rules += [{"from": [{"podSelector": {"matchLabels": {"app": a}}}]} for a in apps]
            return [cause(objs[key], f"spec.ingress[{first + i}]") for i in range(len(apps))]

        yield Candidate(
            {"policy": name, "apps": apps},
            f"policy {name} admits {' and '.join(apps)} on every port",
            apply,
        )


def _rewrite_ports(policy: dict, field: str, value: int | str) -> list:
    """Every ingress port entry's `field` set to `value`, as NetArena rewrites them all."""
    causes = []
    for i, j, entry in port_entries(policy):
        entry[field] = value
        if field == "port":
            entry.pop("endPort", None)
        causes.append(cause(policy, f"spec.ingress[{i}].ports[{j}].{field}"))
    return causes


@kind("change-port", "Every ingress port of the policy is rewritten.", netarena="change_port")
def change_port(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in app_policies(objects):
        entries = list(port_entries(policy))
        if not entries:
            continue
        used = {e.get("port") for _, _, e in entries}
        new_port = rng.randint(1, 65535)
        while new_port in used:
            new_port = rng.randint(1, 65535)
        key = ref(policy)

        def apply(objs: Objects, key: str = key, new_port: int = new_port) -> list:
            return _rewrite_ports(objs[key], "port", new_port)

        name = policy["metadata"]["name"]
        yield Candidate(
            {"policy": name, "new_port": new_port},
            f"policy {name} admits on port {new_port} instead",
            apply,
        )


@kind(
    "change-protocol",
    "Every ingress port of the policy gets another protocol.",
    netarena="change_protocol",
)
def change_protocol(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in app_policies(objects):
        entries = list(port_entries(policy))
        if not entries:
            continue
        for protocol in ("UDP", "SCTP"):
            if all(e.get("protocol", "TCP") == protocol for _, _, e in entries):
                continue
            key = ref(policy)

            def apply(objs: Objects, key: str = key, protocol: str = protocol) -> list:
                return _rewrite_ports(objs[key], "protocol", protocol)

            name = policy["metadata"]["name"]
            yield Candidate(
                {"policy": name, "new_protocol": protocol},
                f"policy {name} admits {protocol} instead",
                apply,
            )


@kind(
    "add-egress",
    "The app's egress is restricted to two apps (so its DNS lookups fail too).",
    netarena="add_egress",
)
def add_egress(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    callers = {w.app.key for w in ctx.topology.workloads() if w.calls}
    for policy in app_policies(objects):
        name, namespace = policy["metadata"]["name"], policy["metadata"]["namespace"]
        if f"{namespace}/{name}" not in callers:
            continue
        apps = pick(rng, [a for a in same_namespace_apps(ctx, namespace) if a != name], 2)
        if not apps:
            continue
        key = ref(policy)

        def apply(objs: Objects, key: str = key, apps: list = apps) -> list:
            spec = objs[key]["spec"]
            # NetArena drops the open rule `{}` and appends; on a policy with real egress
            # rules (the deny variant) that would widen egress, so the rules are replaced
            spec["egress"] = [{"to": [{"podSelector": {"matchLabels": {"app": a}}}]} for a in apps]
            types = spec.setdefault("policyTypes", ["Ingress"])
            if "Egress" not in types:
                types.append("Egress")
            return [cause(objs[key], "spec.egress")]

        yield Candidate(
            {"policy": name, "apps": apps},
            f"policy {name} lets the app send only to {' and '.join(apps)}",
            apply,
        )


KINDS = ["remove-ingress", "add-ingress", "change-port", "change-protocol", "add-egress"]
