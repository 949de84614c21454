"""`can A reach host:port, and if not, why`: DNS, then service routing, then the source's
egress and the destination's ingress policy, each step explained."""

from collections.abc import Callable
from dataclasses import dataclass, field

from kubeproof.netsim import coredns, dns, policy
from kubeproof.netsim.objects import DNS_SERVICE_IP, Objects, Pod
from kubeproof.netsim.services import endpoints, routable, service_port

LOOPBACK_NAMES = {"localhost", "ip6-localhost", "ip6-loopback"}  # a pod's /etc/hosts


@dataclass
class Verdict:
    allowed: bool
    code: str  # ok, partial, nxdomain, dns-blocked, no-port, no-endpoints, egress-denied,
    #           ingress-denied, not-listening, external, no-source
    reason: str  # what the application would see, e.g. "connection refused"
    steps: list[str] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)  # ns/pod:port reached

    def explain(self) -> str:
        return "\n".join(
            [
                f"{'ALLOWED' if self.allowed else 'DENIED'} ({self.code}): {self.reason}",
                *(f"  - {s}" for s in self.steps),
            ]
        )


Listening = Callable[[Pod, int, str], bool]
# the Corefile a CoreDNS pod has loaded (None: unknown, answered as kubeadm's)
LoadedCorefile = Callable[[Pod], str | None]


def declared_or_unknown(pod: Pod, port: int, protocol: str) -> bool:
    """Without a behaviour model: a pod listens on its declared ports, or on any if it
    declares none."""
    declared = pod.declared_ports()
    return not declared or (port, protocol) in declared


class Network:
    def __init__(
        self,
        objects: Objects,
        listening: Listening = declared_or_unknown,
        corefile: LoadedCorefile = lambda pod: None,
    ):
        self.objects = objects
        self.listening = listening
        self.corefile = corefile

    @classmethod
    def from_objects(cls, objects: list[dict], **kwargs) -> "Network":
        return cls(Objects.build(objects), **kwargs)

    def pod(self, ref: str) -> Pod | None:
        return self.objects.pods.get(ref if "/" in ref else f"default/{ref}")

    def connect(self, source: str | Pod, target: str, protocol: str = "TCP") -> Verdict:
        src = source if isinstance(source, Pod) else self.pod(source)
        if src is None:
            return Verdict(False, "no-source", f"no pod {source}")
        host, _, port_text = target.rpartition(":")
        if "/" in port_text:
            port_text, protocol = port_text.split("/", 1)
        port = int(port_text)
        steps: list[str] = []
        if host in LOOPBACK_NAMES or host.startswith("127.") or host == "::1":
            return self._loopback(src, port, protocol)
        answer = dns.resolve(self.objects, host, src.namespace)
        if answer.kind != "ip":
            dns_check = self.dns(src)
            if dns_check.allowed:
                served = self.served(dns_check)
                answer = dns.resolve(self.objects, host, src.namespace, served=served)
            if not dns_check.allowed:
                steps += [f"DNS: kube-dns on 53/UDP unreachable: {dns_check.reason}"]
                steps += dns_check.steps
                return Verdict(
                    False,
                    "dns-blocked",
                    f"lookup {host} on {DNS_SERVICE_IP}:53: read udp: i/o timeout",
                    steps,
                )
            if answer.kind == "nxdomain":
                steps.append(
                    f"DNS: {host} does not name a Service or pod as seen from "
                    f"namespace {src.namespace}"
                )
                return Verdict(
                    False, "nxdomain", f"lookup {host} on {DNS_SERVICE_IP}:53: no such host", steps
                )
            via = f" (CNAME {answer.target})" if answer.target else ""
            steps.append(f"DNS: {host} -> {answer.fqdn}{via} {' '.join(answer.ips)}".rstrip())
        if answer.kind == "external":
            return Verdict(True, "external", f"{answer.target} is outside the cluster", steps)
        if answer.kind == "hosts":  # an address from CoreDNS's hosts plugin
            answer, host = dns.Answer("ip", ips=answer.ips), answer.ips[0]
        if answer.kind == "ip":
            svc = self.objects.service_by_ip(host)
            if svc is not None:
                return self._via_service(src, svc, port, protocol, steps)
            pod = self.objects.pod_by_ip(host)
            if pod is None:
                return self._to_external(src, host, port, protocol, steps)
            return self._to_pods(src, [(pod, port)], protocol, steps)
        if answer.kind == "service":
            return self._via_service(src, answer.service, port, protocol, steps)
        if not answer.pods:
            steps.append(f"headless service {answer.fqdn} has no ready endpoints")
            return Verdict(
                False, "nxdomain", f"lookup {host} on {DNS_SERVICE_IP}:53: no such host", steps
            )
        return self._to_pods(src, [(p, port) for p in answer.pods], protocol, steps)

    def dns(self, src: Pod) -> Verdict:
        """Whether `src` reaches the cluster DNS: 53/UDP of the kube-dns Service, routed like
        any Service (ready CoreDNS endpoints, the source's egress and the DNS pods' ingress
        policy, a pod that serves the port). Every name a pod resolves goes through it: a
        pod's resolv.conf names only that address (GetPodDNS, pkg/kubelet/network/dns/
        dns.go:386-441), so with no CoreDNS pod ready, or port 53 denied, lookups time out."""
        svc = self.objects.services.get("kube-system/kube-dns")
        if svc is None:
            return Verdict(False, "no-endpoints", "no kube-dns Service", [])
        if src.namespace == "kube-system" and src.labels.get("k8s-app") == "kube-dns":
            return Verdict(True, "ok", "CoreDNS answers itself")
        verdict = self._via_service(src, svc, 53, "UDP", [])
        if verdict.code == "partial":
            # the resolver retries; kube-proxy picks another endpoint: some server answers
            verdict.allowed = True
        return verdict

    def served(self, dns_check: Verdict) -> coredns.Served | None:
        """The loaded Corefile of the CoreDNS endpoint a lookup reaches. When several are
        reachable and differ (one has reloaded, the other not yet), kube-proxy would pick
        one per query; netsim takes the first by name, so answers are stable."""
        for where in sorted(dns_check.endpoints):
            pod = self.objects.pods.get(where.split(":", 1)[0])
            text = self.corefile(pod) if pod is not None else None
            if text is not None:
                return coredns.served(text)
            return None
        return None

    def lookup(self, src: Pod, name: str) -> tuple[str, list[str]]:
        """What a resolver in `src` gets for `name`: ("timeout", []) when the cluster DNS is
        unreachable, ("nxdomain", []), or ("ok", addresses)."""
        answer = dns.resolve(self.objects, name, src.namespace)
        if answer.kind == "ip":
            return "ok", answer.ips
        dns_check = self.dns(src)
        if not dns_check.allowed:
            return "timeout", []
        answer = dns.resolve(self.objects, name, src.namespace, served=self.served(dns_check))
        if answer.kind in ("nxdomain", "external") or not answer.ips:
            return "nxdomain", []
        return "ok", answer.ips

    def _via_service(
        self, src: Pod, svc: dict, port: int, protocol: str, steps: list[str]
    ) -> Verdict:
        name = f"{svc['metadata'].get('namespace', 'default')}/{svc['metadata']['name']}"
        entry = service_port(svc, port, protocol)
        if entry is None:
            ports = (
                ", ".join(
                    f"{p.get('port')}/{p.get('protocol', 'TCP')}"
                    for p in svc["spec"].get("ports") or []
                )
                or "none"
            )
            steps.append(f"service {name} has no port {port}/{protocol} (ports: {ports})")
            return Verdict(False, "no-port", "i/o timeout", steps)
        all_eps = endpoints(self.objects, svc, entry)
        targets = routable(all_eps)
        if not targets:
            if all_eps:
                detail = f"{len(all_eps)} endpoint(s), none ready"
            elif svc["spec"].get("selector"):
                detail = "no ready pod matches its selector on that port"
            else:
                detail = "no selector and no EndpointSlices"
            target = entry.get("targetPort", entry.get("port"))
            steps.append(f"service {name} port {port} -> targetPort {target}: {detail}")
            return Verdict(False, "no-endpoints", "connection refused", steps)
        steps.append(
            f"service {name} port {port} -> " + ", ".join(f"{e.pod.key}:{e.port}" for e in targets)
        )
        return self._to_pods(src, [(e.pod, e.port) for e in targets], protocol, steps)

    def _to_external(
        self, src: Pod, ip: str, port: int, protocol: str, steps: list[str]
    ) -> Verdict:
        egress = policy.evaluate(self.objects, "Egress", src, None, ip, port, protocol, None)
        steps.append(egress.reason)
        if not egress.allowed:
            return Verdict(False, "egress-denied", "i/o timeout", steps)
        return Verdict(True, "external", f"{ip} is outside the cluster", steps)

    def _to_pods(
        self, src: Pod, targets: list[tuple[Pod, int]], protocol: str, steps: list[str]
    ) -> Verdict:
        results = []
        for dst, port in targets:
            results.append(self._pod_to_pod(src, dst, port, protocol))
        ok = [r for r in results if r.allowed]
        for r in results:
            steps.extend(r.steps)
        if len(ok) == len(results):
            return Verdict(True, "ok", "connected", steps, [e for r in ok for e in r.endpoints])
        if ok:
            bad = [r for r in results if not r.allowed]
            return Verdict(
                False,
                "partial",
                f"{len(ok)} of {len(results)} endpoints reachable; others: {bad[0].reason}",
                steps,
                [e for r in ok for e in r.endpoints],
            )
        return Verdict(False, results[0].code, results[0].reason, steps)

    def _loopback(self, src: Pod, port: int, protocol: str) -> Verdict:
        """The pod's own loopback (localhost, 127.0.0.0/8): its containers share the network
        namespace, and no NetworkPolicy applies within it; refused if nothing listens."""
        where = f"{src.key}:{port}/{protocol}"
        if not self.listening(src, port, protocol):
            why = [f"{where}: loopback: nothing listens"]
            return Verdict(False, "not-listening", "connection refused", why)
        return Verdict(True, "ok", "connected", [f"{where}: loopback"], [where])

    def _pod_to_pod(self, src: Pod, dst: Pod, port: int, protocol: str) -> Verdict:
        where = f"{dst.key}:{port}/{protocol}"
        if src.key == dst.key:
            return Verdict(True, "ok", "connected", [f"{where}: a pod reaches itself"], [where])
        egress = policy.evaluate(self.objects, "Egress", src, dst, dst.ip, port, protocol, dst)
        if not egress.allowed:
            return Verdict(False, "egress-denied", "i/o timeout", [f"{where}: {egress.reason}"])
        ingress = policy.evaluate(self.objects, "Ingress", dst, src, src.ip, port, protocol, dst)
        if not ingress.allowed:
            return Verdict(
                False,
                "ingress-denied",
                "i/o timeout",
                [f"{where}: {egress.reason}", f"{where}: {ingress.reason}"],
            )
        if not self.listening(dst, port, protocol):
            return Verdict(
                False,
                "not-listening",
                "connection refused",
                [f"{where}: nothing listens on port {port}"],
            )
        return Verdict(
            True, "ok", "connected", [f"{where}: {egress.reason}; {ingress.reason}"], [where]
        )
