"""`/etc/resolv.conf` and `/etc/hosts` as a v1.36.3 kubelet (and containerd under it)
write them for a pod.

resolv.conf: `GetPodDNS` (pkg/kubelet/network/dns/dns.go:386-441) decides servers, searches
and options; containerd's `parseDNSOptions` (internal/cri/server/podsandbox, 2.x) writes
`search …`, one `nameserver` line per server, `options …`, in that order.
hosts: `ensureHostsFile`/`managedHostsFileContent` (pkg/kubelet/kubelet_pods.go:476-551)
with the names from `GeneratePodHostNameAndDomain` (kubelet_pods.go:580-618)."""

from dataclasses import dataclass, field

from kubeproof.netsim.objects import DNS_SERVICE_IP

CLUSTER_DOMAIN = "cluster.local"  # the kubelet's --cluster-domain (kubeadm's default)
DEFAULT_DNS_OPTIONS = ["ndots:5"]  # dns.go:44 defaultDNSOptions
MAX_DNS_NAMESERVERS = 3  # pkg/apis/core/validation/validation.go:4129
MAX_DNS_SEARCH_PATHS = 32  # validation.go:4131
MAX_DNS_SEARCH_LIST_CHARS = 2048  # validation.go:4133
MAX_SEARCH_DOMAIN_LENGTH = 253  # utilvalidation.DNS1123SubdomainMaxLength
HOSTNAME_MAX_LENGTH = 63  # kubelet_pods.go truncatePodHostnameIfNeeded

# What a simulated node's own resolver file (the kubelet's --resolv-conf) and /etc/hosts
# hold: a modelling choice, not upstream text. `dnsPolicy: Default` and host-network pods
# see these.
NODE_NAMESERVERS = ["10.0.0.2"]
NODE_SEARCHES: list[str] = []
NODE_OPTIONS: list[str] = []


@dataclass
class DNSConfig:
    servers: list[str] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # DNSConfigForming event messages

    def resolv_conf(self) -> str:
        """containerd parseDNSOptions."""
        text = ""
        if self.searches:
            text += f"search {' '.join(self.searches)}\n"
        if self.servers:
            text += "".join(f"nameserver {s}\n" for s in self.servers)
        if self.options:
            text += f"options {' '.join(self.options)}\n"
        return text


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))  # dns.go omitDuplicates


def _dns_type(spec: dict) -> str:
    """getPodDNSType (dns.go:304-323): cluster, host or none."""
    policy = spec.get("dnsPolicy", "ClusterFirst")
    if policy == "None":
        return "none"
    if policy == "ClusterFirstWithHostNet":
        return "cluster"
    if policy == "ClusterFirst" and not spec.get("hostNetwork"):
        return "cluster"
    return "host"


def _merge_options(existing: list[str], extra: list[dict]) -> list[str]:
    """mergeDNSOptions (dns.go:327-353): a pod's option replaces one of the same name.
    Upstream rebuilds a Go map (random order); here the order is first appearance."""
    merged: dict[str, str] = {}
    for op in existing:
        name, _, value = op.partition(":")
        merged[name] = value
    for op in extra:
        merged[op["name"]] = op.get("value") or ""
    return [f"{name}:{value}" if value else name for name, value in merged.items()]


def pod_dns(pod: dict) -> DNSConfig:
    """GetPodDNS (dns.go:386-441) for a kubelet with --cluster-dns=DNS_SERVICE_IP."""
    spec, namespace = pod["spec"], pod["metadata"]["namespace"]
    kind = _dns_type(spec)
    if kind == "none":
        config = DNSConfig()
    elif kind == "cluster":
        # generateSearchesForDNSClusterFirst (dns.go:165-175)
        cluster = [f"{namespace}.svc.{CLUSTER_DOMAIN}", f"svc.{CLUSTER_DOMAIN}", CLUSTER_DOMAIN]
        config = DNSConfig(
            [DNS_SERVICE_IP], _unique(cluster + NODE_SEARCHES), list(DEFAULT_DNS_OPTIONS)
        )
    else:
        config = DNSConfig(list(NODE_NAMESERVERS), list(NODE_SEARCHES), list(NODE_OPTIONS))
    if extra := spec.get("dnsConfig"):
        # appendDNSConfig (dns.go:378-383)
        config.servers = _unique(config.servers + (extra.get("nameservers") or []))
        config.searches = _unique(config.searches + (extra.get("searches") or []))
        config.options = _merge_options(config.options, extra.get("options") or [])
    _fit_limits(config)
    return config


def _fit_limits(config: DNSConfig) -> None:
    """formDNSNameserversFitsLimits and formDNSSearchFitsLimits (dns.go:102-163)."""
    if len(config.servers) > MAX_DNS_NAMESERVERS:
        config.servers = config.servers[:MAX_DNS_NAMESERVERS]
        config.warnings.append(
            "Nameserver limits were exceeded, some nameservers have been omitted, the "
            f"applied nameserver line is: {' '.join(config.servers)}"
        )
    search, exceeded = config.searches, False
    if len(search) > MAX_DNS_SEARCH_PATHS:
        search, exceeded = search[:MAX_DNS_SEARCH_PATHS], True
    kept = [s for s in search if len(s) <= MAX_SEARCH_DOMAIN_LENGTH]
    exceeded = exceeded or len(kept) != len(search)
    search = kept
    length = len(" ".join(search))
    if length > MAX_DNS_SEARCH_LIST_CHARS:
        cut, cut_len = 0, 0
        for domain in reversed(search):
            cut_len += len(domain) + 1
            cut += 1
            if length - cut_len <= MAX_DNS_SEARCH_LIST_CHARS:
                break
        search, exceeded = search[: len(search) - cut], True
    config.searches = search
    if exceeded:
        config.warnings.append(
            "Search Line limits were exceeded, some search paths have been omitted, the "
            f"applied search line is: {' '.join(search)}"
        )


def hostname_and_domain(pod: dict) -> tuple[str, str]:
    """GeneratePodHostNameAndDomain (kubelet_pods.go:580-620); HostnameOverride is beta and
    on in 1.36 (pkg/features/kube_features.go:1507-1510)."""
    spec, meta = pod["spec"], pod["metadata"]
    if spec.get("hostnameOverride"):
        return _truncate(spec["hostnameOverride"]), ""
    hostname = _truncate(spec.get("hostname") or meta["name"])
    domain = ""
    if spec.get("subdomain"):
        domain = f"{spec['subdomain']}.{meta['namespace']}.svc.{CLUSTER_DOMAIN}"
    return hostname, domain


def _truncate(hostname: str) -> str:
    """truncatePodHostnameIfNeeded (kubelet_pods.go:556-573)."""
    if len(hostname) <= HOSTNAME_MAX_LENGTH:
        return hostname
    return hostname[:HOSTNAME_MAX_LENGTH].rstrip("-.")


def _alias_lines(aliases: list[dict]) -> str:
    """hostsEntriesFromHostAliases (kubelet_pods.go:540-553)."""
    if not aliases:
        return ""
    tab = "\t"  # "%s\t%s\n" of the IP and the hostnames joined by tabs
    lines = "".join(
        f"{a.get('ip', '')}{tab}{tab.join(a.get('hostnames') or [])}\n" for a in aliases
    )
    return "\n# Entries added by HostAliases.\n" + lines


def node_hosts(node_name: str, node_ip: str) -> str:
    """A simulated node's own /etc/hosts (a modelling choice, as a kind or kubeadm node)."""
    return (
        f"127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n{node_ip}\t{node_name}\n"
    )


def hosts(pod: dict, pod_ips: list[str], node_ip: str) -> str:
    """ensureHostsFile (kubelet_pods.go:476-498)."""
    spec = pod["spec"]
    aliases = spec.get("hostAliases") or []
    if spec.get("hostNetwork"):
        # nodeHostsFileContent (kubelet_pods.go:501-512)
        return (
            "# Kubernetes-managed hosts file (host network).\n"
            + node_hosts(spec.get("nodeName", ""), node_ip)
            + _alias_lines(aliases)
        )
    hostname, domain = hostname_and_domain(pod)
    text = (
        "# Kubernetes-managed hosts file.\n"
        "127.0.0.1\tlocalhost\n"
        "::1\tlocalhost ip6-localhost ip6-loopback\n"
        "fe00::0\tip6-localnet\n"
        "fe00::0\tip6-mcastprefix\n"
        "fe00::1\tip6-allnodes\n"
        "fe00::2\tip6-allrouters\n"
    )
    for ip in pod_ips:
        text += f"{ip}\t{hostname}.{domain}\t{hostname}\n" if domain else f"{ip}\t{hostname}\n"
    return text + _alias_lines(aliases)


def etc_files(pod: dict, container: dict, pod_ips: list[str], node_ip: str) -> dict[str, str]:
    """/etc/resolv.conf (every container shares the sandbox's) and /etc/hosts, unless the
    container mounts a volume there itself (makeMounts, kubelet_pods.go:279-285)."""
    files = {"/etc/resolv.conf": pod_dns(pod).resolv_conf()}
    mounts = {m.get("mountPath") for m in container.get("volumeMounts") or []}
    if (pod_ips or pod["spec"].get("hostNetwork")) and "/etc/hosts" not in mounts:
        files["/etc/hosts"] = hosts(pod, pod_ips, node_ip)
    return files
