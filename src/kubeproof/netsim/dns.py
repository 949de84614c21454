"""Cluster DNS as CoreDNS's kubernetes plugin answers it, with a pod's search path
(`<ns>.svc.cluster.local svc.cluster.local cluster.local`, ndots 5). Given the Corefile the
answering CoreDNS has loaded (netsim/coredns.py), each name is first routed through it: a
rewrite, a `hosts` entry, or no `kubernetes` plugin for the cluster domain change the
answer. SERVFAIL and REFUSED are answered as NXDOMAIN (not told apart)."""

import ipaddress
from dataclasses import dataclass, field

from kubeproof.netsim.coredns import Route, Served
from kubeproof.netsim.objects import CLUSTER_DOMAIN, Objects, Pod


@dataclass
class Answer:
    kind: str  # service, headless, pod, external, ip, hosts, nxdomain
    fqdn: str = ""
    service: dict | None = None
    pods: list[Pod] = field(default_factory=list)  # headless or pod records
    ips: list[str] = field(default_factory=list)
    target: str = ""  # ExternalName: where the CNAME points


def candidates(name: str, namespace: str) -> list[str]:
    if name.endswith("."):
        return [name.rstrip(".")]
    search = [f"{namespace}.svc.{CLUSTER_DOMAIN}", f"svc.{CLUSTER_DOMAIN}", CLUSTER_DOMAIN]
    expanded = [f"{name}.{suffix}" for suffix in search]
    return [*expanded, name] if name.count(".") < 5 else [name, *expanded]


def resolve(
    objects: Objects, name: str, namespace: str, depth: int = 0, served: Served | None = None
) -> Answer:
    """`served`: the loaded Corefile of the CoreDNS that answers (None: kubeadm's)."""
    try:
        ipaddress.ip_address(name)
        return Answer("ip", fqdn=name, ips=[name])
    except ValueError:
        pass
    for fqdn in candidates(name, namespace):
        route = served.route(fqdn) if served else Route("kubernetes", fqdn)
        if route.kind == "hosts":
            return Answer("hosts", fqdn=fqdn, ips=list(route.ips))
        if route.kind != "kubernetes":
            continue  # forwarded upstream (which knows no cluster names), or an error
        answer = _lookup(objects, route.name, depth, served)
        if answer.kind != "nxdomain":
            return answer
    return Answer("nxdomain", fqdn=name)


def _lookup(objects: Objects, fqdn: str, depth: int, served: Served | None) -> Answer:
    suffix = f".svc.{CLUSTER_DOMAIN}"
    if fqdn.endswith(suffix):
        parts = fqdn[: -len(suffix)].split(".")
        if len(parts) == 2:
            svc = objects.services.get(f"{parts[1]}/{parts[0]}")
            if svc is None:
                return Answer("nxdomain", fqdn=fqdn)
            return _service_answer(objects, svc, fqdn, depth, served)
        if len(parts) == 3:  # hostname.subdomain.namespace: a headless service's pod
            hostname, subdomain, ns = parts
            for pod in objects.pods.values():
                spec = pod.obj.get("spec") or {}
                if (
                    pod.namespace == ns
                    and spec.get("hostname") == hostname
                    and spec.get("subdomain") == subdomain
                    and pod.ip
                ):
                    return Answer("pod", fqdn=fqdn, pods=[pod], ips=[pod.ip])
        return Answer("nxdomain", fqdn=fqdn)
    pod_suffix = f".pod.{CLUSTER_DOMAIN}"
    if fqdn.endswith(pod_suffix):
        parts = fqdn[: -len(pod_suffix)].split(".")
        if len(parts) == 2:
            ip = parts[0].replace("-", ".")
            pod = objects.pod_by_ip(ip)
            if pod and pod.namespace == parts[1]:
                return Answer("pod", fqdn=fqdn, pods=[pod], ips=[ip])
    return Answer("nxdomain", fqdn=fqdn)


def _service_answer(
    objects: Objects, svc: dict, fqdn: str, depth: int, served: Served | None
) -> Answer:
    from kubeproof.netsim.services import endpoints

    spec = svc.get("spec") or {}
    if spec.get("type") == "ExternalName":
        target = spec.get("externalName", "")
        if depth < 8 and target.endswith(f".{CLUSTER_DOMAIN}"):
            inner = resolve(objects, target + ".", "default", depth + 1, served)
            if inner.kind != "nxdomain":
                inner.target = target
                return inner
        return Answer("external", fqdn=fqdn, service=svc, target=target)
    if spec.get("clusterIP") == "None":
        publish = bool(spec.get("publishNotReadyAddresses"))
        pods = [e.pod for e in endpoints(objects, svc, None) if e.ready or publish]
        return Answer(
            "headless", fqdn=fqdn, service=svc, pods=pods, ips=[p.ip for p in pods if p.ip]
        )
    return Answer("service", fqdn=fqdn, service=svc, ips=[spec.get("clusterIP", "")])
