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
        if len(parts) == 3:  # endpoint.service.namespace: one of a Service's endpoints
            return _endpoint_answer(objects, fqdn, *parts)
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


def _endpoint_answer(objects: Objects, fqdn: str, label: str, name: str, ns: str) -> Answer:
    """An endpoint query, as CoreDNS's kubernetes plugin answers it (findServices and
    endpointHostname in plugin/kubernetes/kubernetes.go): the Service must exist, and the
    record is an address of its Endpoints whose hostname is `label`, ready addresses only
    (a not-ready one is in NotReadyAddresses, which are not served; with
    publishNotReadyAddresses the EndpointSlice controller marks every one ready). A
    StatefulSet's pod `web-0` with subdomain `web` answers to `web-0.web.ns.svc` only
    while it is ready, unless the Service publishes not-ready addresses."""
    from kubeproof.netsim.services import endpoints

    svc = objects.services.get(f"{ns}/{name}")
    if svc is None or (svc.get("spec") or {}).get("type") == "ExternalName":
        return Answer("nxdomain", fqdn=fqdn)
    publish = bool((svc.get("spec") or {}).get("publishNotReadyAddresses"))
    pods: list[Pod] = []
    for e in endpoints(objects, svc, None):
        served = (e.ready or publish) and e.pod.ip and e.pod not in pods
        if served and endpoint_hostname(e.pod, name) == label:
            pods.append(e.pod)
    if not pods:
        return Answer("nxdomain", fqdn=fqdn)
    return Answer("pod", fqdn=fqdn, pods=pods, ips=[p.ip for p in pods])


def endpoint_hostname(pod: Pod, service: str) -> str:
    """The hostname of a pod's endpoint in `service`'s EndpointSlices: its spec.hostname
    when its spec.subdomain names the Service (the EndpointSlice controller's podToEndpoint,
    pkg/controller/util/endpointslice), else the address with dashes (CoreDNS's
    endpointHostname)."""
    spec = pod.obj.get("spec") or {}
    if spec.get("hostname") and spec.get("subdomain") == service:
        return str(spec["hostname"])
    return pod.ip.replace(".", "-").replace(":", "-")
