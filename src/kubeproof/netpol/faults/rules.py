"""Incident faults inside policy rules: ports written wrong (a name the pods lack, a range
one short, the Service's port instead of the pod's), peers written wrong (an ipBlock for
in-cluster callers, the wrong version label, a namespaceSelector dropped)."""

from collections.abc import Iterator
from random import Random

from kubeproof.netpol.faults.base import (
    Candidate,
    Context,
    Objects,
    app_policies,
    cause,
    is_name,
    kind,
    of_kind,
    peers,
    port_entries,
    ref,
)

SERVICE_CIDR = "10.96.0.0/12"  # the apiserver's --service-cluster-ip-range
PRIVATE = "10.0.0.0/8"  # holds the pod CIDR 10.244.0.0/16


def _workloads_of(objects: Objects, namespace: str, app: str) -> list[dict]:
    return [
        d
        for d in of_kind(objects, "Deployment")
        if d["metadata"]["namespace"] == namespace
        and d["spec"]["template"]["metadata"]["labels"].get("app") == app
    ]


def _service(objects: Objects, namespace: str, app: str) -> dict | None:
    return objects.get(f"Service/{namespace}/{app}")


@kind("named-port-missing", "A policy names a port the pods do not declare.")
def named_port_missing(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in app_policies(objects):
        name, ns = policy["metadata"]["name"], policy["metadata"]["namespace"]
        for i, j, entry in port_entries(policy):
            key = ref(policy)
            if is_name(entry.get("port")):
                # the pods' port was renamed in a new release; the policy kept the old name
                old = entry["port"]
                deployments = [ref(d) for d in _workloads_of(objects, ns, name)]

                def rename(objs: Objects, old: str = old, keys: list = deployments) -> list:
                    causes = []
                    for k in keys:
                        containers = objs[k]["spec"]["template"]["spec"]["containers"]
                        for c, container in enumerate(containers):
                            for n, port in enumerate(container.get("ports") or []):
                                if port.get("name") == old:
                                    port["name"] = f"{old}-alt"
                                    field = f"spec.template.spec.containers[{c}].ports[{n}].name"
                                    causes.append(cause(objs[k], field))
                    return causes

                yield Candidate(
                    {"policy": name, "port": old, "renamed_to": f"{old}-alt"},
                    f"{name}'s pods name port {old} {old}-alt now",
                    rename,
                )
                continue
            svc = _service(objects, ns, name)
            for port in (svc or {}).get("spec", {}).get("ports") or []:
                if port.get("targetPort") != entry.get("port") or not port.get("name"):
                    continue

                def by_name(
                    objs: Objects, key: str = key, i: int = i, j: int = j, new: str = port["name"]
                ) -> list:
                    objs[key]["spec"]["ingress"][i]["ports"][j]["port"] = new
                    return [cause(objs[key], f"spec.ingress[{i}].ports[{j}].port")]

                yield Candidate(
                    {"policy": name, "port": port["name"]},
                    f"policy {name} names port {port['name']} (the Service's "
                    "port name, not the pods')",
                    by_name,
                )


@kind("endport-range", "A port range (port..endPort) stops one short of the port.")
def endport_range(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in app_policies(objects):
        for i, j, entry in port_entries(policy):
            found = entry.get("port")
            if not isinstance(found, int) or found <= 10:
                continue
            number: int = found
            key, name = ref(policy), policy["metadata"]["name"]

            def apply(objs: Objects, key: str = key, i: int = i, j: int = j, port: int = number):
                entry = objs[key]["spec"]["ingress"][i]["ports"][j]
                entry["port"], entry["endPort"] = port - 10, port - 1
                return [cause(objs[key], f"spec.ingress[{i}].ports[{j}].endPort")]

            yield Candidate(
                {"policy": name, "range": [number - 10, number - 1]},
                f"policy {name} admits {number - 10}-{number - 1}, not {number}",
                apply,
            )


def _replace_peers(cidr: str, except_: list[str] | None, field: str, what: str):
    def offer(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
        for policy in app_policies(objects):
            for i, rule in enumerate(policy["spec"].get("ingress") or []):
                if not rule.get("from"):
                    continue
                key, name = ref(policy), policy["metadata"]["name"]

                def apply(objs: Objects, key: str = key, i: int = i) -> list:
                    block: dict = {"cidr": cidr}
                    if except_:
                        block["except"] = list(except_)
                    objs[key]["spec"]["ingress"][i]["from"] = [{"ipBlock": block}]
                    return [cause(objs[key], field.format(i=i))]

                yield Candidate(
                    {"policy": name, "rule": i}, f"policy {name} rule {i} {what}", apply
                )

    return offer


kind(
    "ipblock-service-cidr",
    "In-cluster callers admitted by the Service CIDR: policies see pod addresses.",
)(
    _replace_peers(
        SERVICE_CIDR,
        None,
        "spec.ingress[{i}].from",
        f"admits ipBlock {SERVICE_CIDR} instead of its callers",
    )
)
kind("ipblock-except", "An ipBlock whose except carves out the callers' addresses.")(
    _replace_peers(
        "0.0.0.0/0",
        [PRIVATE],
        "spec.ingress[{i}].from[0].ipBlock.except",
        f"admits 0.0.0.0/0 except {PRIVATE} instead of its callers",
    )
)


@kind("version-label", "A peer's podSelector names the wrong version of the caller.")
def version_label(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in app_policies(objects):
        for i, k, peer in peers(policy):
            labels = (peer.get("podSelector") or {}).get("matchLabels") or {}
            if "version" not in labels:
                continue
            rule_versions = {
                ((p.get("podSelector") or {}).get("matchLabels") or {}).get("version")
                for rule_index, _, p in peers(policy)
                if rule_index == i
            }
            app = next(a for a in ctx.topology.apps if a.name == labels.get("app"))
            for version in [v.name for v in app.versions if v.name not in rule_versions]:
                key, name = ref(policy), policy["metadata"]["name"]

                def apply(
                    objs: Objects, key: str = key, i: int = i, k: int = k, version: str = version
                ) -> list:
                    peer = objs[key]["spec"]["ingress"][i]["from"][k]
                    peer["podSelector"]["matchLabels"]["version"] = version
                    field = f"spec.ingress[{i}].from[{k}].podSelector.matchLabels.version"
                    return [cause(objs[key], field)]

                yield Candidate(
                    {"policy": name, "was": labels["version"], "now": version},
                    f"policy {name} admits {labels['app']} {version} instead of "
                    f"{labels['version']}",
                    apply,
                )


@kind("service-port-in-policy", "A policy port is the Service's port, not the pod's targetPort.")
def service_port_in_policy(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in of_kind(objects, "NetworkPolicy"):
        ns = policy["metadata"]["namespace"]
        for direction in ("ingress", "egress"):
            for i, j, entry in port_entries(policy, direction):
                rule = policy["spec"][direction][i]
                apps = (
                    {
                        (p.get("podSelector") or {}).get("matchLabels", {}).get("app")
                        for p in rule.get("to") or []
                    }
                    if direction == "egress"
                    else {
                        (policy["spec"].get("podSelector") or {}).get("matchLabels", {}).get("app")
                    }
                )
                for svc in of_kind(objects, "Service"):
                    if svc["metadata"]["name"] not in apps:
                        continue
                    if direction == "ingress" and svc["metadata"]["namespace"] != ns:
                        continue
                    for port in svc["spec"]["ports"]:
                        pod_port = port.get("targetPort", port["port"])
                        if pod_port == port["port"] or entry.get("port") not in (
                            pod_port,
                            port.get("name"),
                        ):
                            continue
                        key, name = ref(policy), policy["metadata"]["name"]

                        def apply(
                            objs: Objects,
                            key: str = key,
                            d: str = direction,
                            i: int = i,
                            j: int = j,
                            new: int = port["port"],
                        ) -> list:
                            objs[key]["spec"][d][i]["ports"][j]["port"] = new
                            return [cause(objs[key], f"spec.{d}[{i}].ports[{j}].port")]

                        yield Candidate(
                            {"policy": name, "direction": direction, "port": port["port"]},
                            f"policy {name} {direction} names Service port {port['port']}, "
                            f"not pod port {pod_port}",
                            apply,
                        )


@kind("missing-namespace-selector", "A cross-namespace peer lost its namespaceSelector.")
def missing_namespace_selector(objects: Objects, ctx: Context, rng: Random) -> Iterator[Candidate]:
    for policy in of_kind(objects, "NetworkPolicy"):
        for direction, side in (("ingress", "from"), ("egress", "to")):
            for i, k, peer in peers(policy, direction):
                if "namespaceSelector" not in peer or "podSelector" not in peer:
                    continue
                if "kube-system" in str(peer["namespaceSelector"]):
                    continue  # the DNS peer: dns-egress-blocked covers it
                key, name = ref(policy), policy["metadata"]["name"]

                def apply(
                    objs: Objects,
                    key: str = key,
                    d: str = direction,
                    s: str = side,
                    i: int = i,
                    k: int = k,
                ) -> list:
                    del objs[key]["spec"][d][i][s][k]["namespaceSelector"]
                    return [cause(objs[key], f"spec.{d}[{i}].{s}[{k}].namespaceSelector")]

                yield Candidate(
                    {"policy": name, "direction": direction, "rule": i, "peer": k},
                    f"policy {name} {direction} peer {k} of rule {i} lost its namespaceSelector",
                    apply,
                )


KINDS = [
    "named-port-missing",
    "endport-range",
    "ipblock-service-cidr",
    "ipblock-except",
    "version-label",
    "service-port-in-policy",
    "missing-namespace-selector",
]
