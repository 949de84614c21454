"""Cluster DNS served by real CoreDNS pods (cluster/addons.py): names resolve only while
the kube-dns Service has a ready CoreDNS endpoint the pod may reach on 53/UDP; CoreDNS
refuses a Corefile that does not parse. No cluster: plain objects and the shipped model."""

import yaml

from kubeproof.cluster.addons import COREDNS
from kubeproof.netsim import Network, corefile
from kubeproof.nodesim import shell
from kubeproof.nodesim.catalog import shipped
from kubeproof.nodesim.process import plan
from tests.netsim.builders import allow_dns_egress, netpol, pod, service

DOCS = list(yaml.safe_load_all(COREDNS))
KUBE_DNS = next(d for d in DOCS if d["kind"] == "Service")
COREFILE = next(d for d in DOCS if d["kind"] == "ConfigMap")["data"]["Corefile"]
DEPLOYMENT = next(d for d in DOCS if d["kind"] == "Deployment")
DNS_PORTS = [(53, "dns")]


def coredns(name: str, ip: str, ready: bool = True) -> dict:
    obj = pod(f"kube-system/{name}", ip, {"k8s-app": "kube-dns"}, ready=ready)
    obj["spec"]["containers"][0]["ports"] = [
        {"containerPort": 53, "name": "dns", "protocol": "UDP"},
        {"containerPort": 53, "name": "dns-tcp", "protocol": "TCP"},
    ]
    return obj


def world(*extra: dict, dns_pods=("10.244.1.2", "10.244.2.2"), ready=True) -> Network:
    objs = [
        {"kind": "Service", **KUBE_DNS},
        pod("shop/client", "10.244.1.9", {"app": "client"}),
        pod("shop/api-0", "10.244.1.10", {"app": "api"}, ports=[80]),
        service("shop/api", {"app": "api"}, [80], cluster_ip="10.96.5.5"),
        *(coredns(f"coredns-{i}", ip, ready) for i, ip in enumerate(dns_pods)),
        *extra,
    ]
    return Network.from_objects(objs)


def lookup(net: Network, name: str):
    return net.lookup(net.pod("shop/client"), name)


def test_the_kubeadm_service_is_the_address_every_pod_resolver_uses():
    assert KUBE_DNS["spec"]["clusterIP"] == "10.96.0.10"
    assert [(p["name"], p["port"], p["protocol"]) for p in KUBE_DNS["spec"]["ports"]] == [
        ("dns", 53, "UDP"),
        ("dns-tcp", 53, "TCP"),
        ("metrics", 9153, "TCP"),
    ]


def test_names_resolve_while_coredns_has_ready_endpoints():
    net = world()
    assert lookup(net, "api") == ("ok", ["10.96.5.5"])
    assert lookup(net, "nope") == ("nxdomain", [])
    assert net.connect("shop/client", "api:80").allowed


def test_coredns_scaled_to_zero_or_unready_makes_lookups_time_out():
    for net in (world(dns_pods=()), world(ready=False)):
        assert lookup(net, "api") == ("timeout", [])
        verdict = net.connect("shop/client", "api:80")
        assert verdict.code == "dns-blocked"
        assert "kube-dns on 53/UDP unreachable" in verdict.steps[0]
        # an address needs no DNS
        assert net.connect("shop/client", "10.96.5.5:80").allowed


def test_egress_that_blocks_port_53_to_the_coredns_pods_breaks_resolution():
    deny = netpol("shop/deny", {"podSelector": {}, "policyTypes": ["Egress"]})
    assert lookup(world(deny), "api") == ("timeout", [])
    allow_dns = allow_dns_egress("shop/dns")
    assert lookup(world(deny, allow_dns), "api") == ("ok", ["10.96.5.5"])


def test_nslookup_prints_busybox_timeout_when_no_server_answers():
    net = world(dns_pods=())
    me = net.pod("shop/client")
    tools = shell.Net(lambda where: net.connect(me, where).code, lambda n: net.lookup(me, n))
    result = shell._network("nslookup", ["api"], tools)
    assert result.code == 1
    assert result.stdout == ";; connection timed out; no servers could be reached\n\n"
    result = shell._network("wget", ["-qO-", "http://api"], tools)
    assert result.code == 1 and result.stderr == "wget: bad address 'api'\n"  # as written


def test_corefile_parses_as_coredns_reads_it():
    assert corefile.check(COREFILE) is None
    assert (
        corefile.check(COREFILE.replace("    errors", "    erors"))
        == "/etc/coredns/Corefile:2 - Error during parsing: Unknown directive 'erors'"
    )
    assert corefile.check(".:53 {\n    forward . 8.8.8.8 }\n}\n") == (
        "/etc/coredns/Corefile:2 - Error during parsing: "
        "Unexpected '}' because no matching opening brace"
    )
    assert corefile.check(".:53 {\n    cache 30\n") == (
        "/etc/coredns/Corefile:2 - Syntax error: Unexpected token '30', expecting '}'"
    )


def test_the_coredns_model_logs_its_start_and_exits_on_a_bad_corefile():
    model = shipped().resolve(DEPLOYMENT["spec"]["template"]["spec"]["containers"][0]["image"])[2]
    container = DEPLOYMENT["spec"]["template"]["spec"]["containers"][0]
    good = plan(model, container, {}, {"/etc/coredns/Corefile": COREFILE})
    assert good.runs_for == float("inf")
    assert good.logs == [
        ".:53",
        f"[INFO] plugin/reload: Running configuration SHA512 = {corefile.sha512(COREFILE)}",
        "CoreDNS-1.14.2",
    ]
    bad = plan(model, container, {}, {"/etc/coredns/Corefile": COREFILE.replace("ready", "redy")})
    assert (bad.exit_code, bad.reason, bad.logs) == (1, "Error", [])
    assert bad.exit_logs == [
        "/etc/coredns/Corefile:6 - Error during parsing: Unknown directive 'redy'"
    ]


def test_one_reachable_coredns_pod_is_enough_the_resolver_retries():
    only_first = netpol(
        "shop/dns-one",
        {
            "podSelector": {},
            "policyTypes": ["Egress"],
            "egress": [
                {
                    "to": [{"ipBlock": {"cidr": "10.244.1.2/32"}}],
                    "ports": [{"port": 53, "protocol": "UDP"}],
                }
            ],
        },
    )
    net = world(only_first)
    assert net.dns(net.pod("shop/client")).code == "partial"
    assert lookup(net, "api") == ("ok", ["10.96.5.5"])
