"""Cluster DNS answers as the Corefile each ready CoreDNS pod has loaded (netsim/coredns.py),
CoreDNS 1.14.2's routing: the server block by longest zone (core/dnsserver/server.go
ServeDNS), then rewrite, hosts, kubernetes in plugin.cfg order. No cluster: plain objects."""

from kubeproof.netsim import Network, corefile
from kubeproof.netsim.coredns import Served
from tests.netsim.builders import pod, service
from tests.netsim.test_cluster_dns import COREFILE, KUBE_DNS, coredns

NO_KUBERNETES = COREFILE.replace(
    COREFILE[COREFILE.index("    kubernetes") : COREFILE.index("    prometheus")], ""
)
EXTRAS = COREFILE.replace(
    "    ready\n",
    "    ready\n"
    "    rewrite name exact db.example.com api.shop.svc.cluster.local\n"
    "    hosts {\n"
    "       10.1.2.3 legacy.example.com\n"
    "       fallthrough\n"
    "    }\n",
)


def net(loaded: dict[str, str | None]) -> Network:
    """kube-dns with one ready CoreDNS pod per entry, each running the given Corefile."""
    objs = [
        {"kind": "Service", **KUBE_DNS},
        pod("shop/client", "10.244.1.9", {"app": "client"}),
        pod("shop/api-0", "10.244.1.10", {"app": "api"}, ports=[80]),
        service("shop/api", {"app": "api"}, [80], cluster_ip="10.96.5.5"),
        *(coredns(name, f"10.244.{i + 1}.2") for i, name in enumerate(loaded)),
    ]
    return Network.from_objects(objs, corefile=lambda p: loaded.get(p.name))


def lookup(n: Network, name: str):
    return n.lookup(n.pod("shop/client"), name)


def test_kubeadms_corefile_serves_the_cluster_domain():
    # plugin/kubernetes/setup.go:99: zones from its arguments (cluster.local in-addr.arpa
    # ip6.arpa), handler.go:17-20 takes names under them
    n = net({"coredns-0": COREFILE})
    assert lookup(n, "api") == ("ok", ["10.96.5.5"])
    assert lookup(n, "api.shop.svc.cluster.local") == ("ok", ["10.96.5.5"])
    assert Served(COREFILE).route("api.shop.svc.cluster.local").kind == "kubernetes"
    assert Served(COREFILE).route("example.com").kind == "upstream"  # forward . resolv.conf


def test_a_loaded_corefile_without_the_kubernetes_plugin_resolves_no_cluster_name():
    # the query falls to `forward . /etc/resolv.conf`: the node's resolver has no cluster.local
    n = net({"coredns-0": NO_KUBERNETES})
    assert lookup(n, "api") == ("nxdomain", [])
    verdict = n.connect("shop/client", "api:80")
    assert verdict.code == "nxdomain" and verdict.reason.endswith("no such host")
    # an address needs no name
    assert n.connect("shop/client", "10.96.5.5:80").allowed


def test_the_kubernetes_zone_must_be_the_cluster_domain_itself():
    # parse.go: a name under `local` parses `…svc.cluster` and finds no svc right under it
    for zones in ("example.org", "local"):
        text = COREFILE.replace("kubernetes cluster.local", f"kubernetes {zones}")
        assert lookup(net({"coredns-0": text}), "api") == ("nxdomain", [])
    # no argument: the server block's keys (.:53 -> the root), not the cluster domain
    root = COREFILE.replace("kubernetes cluster.local in-addr.arpa ip6.arpa", "kubernetes")
    assert Served(root).route("api.shop.svc.cluster.local").kind == "nxdomain"


def test_a_server_block_for_the_cluster_zone_wins_over_the_root():
    # server.go ServeDNS: the longest zone among the blocks on the port answers
    split = (
        "cluster.local:53 {\n    kubernetes\n}\n"
        ".:53 {\n    forward . /etc/resolv.conf\n    reload\n}\n"
    )
    assert corefile.check(split) is None
    assert lookup(net({"coredns-0": split}), "api") == ("ok", ["10.96.5.5"])
    other_port = split.replace("cluster.local:53", "cluster.local:5353")
    assert lookup(net({"coredns-0": other_port}), "api") == ("nxdomain", [])
    assert Served("example.org:53 {\n    whoami\n}\n").route("a.example.com").kind == "refused"


def test_rewrite_name_exact_and_hosts_inline_entries():
    n = net({"coredns-0": EXTRAS})
    # rewrite.go:47-60: the rest of the chain looks up the rewritten name
    assert lookup(n, "db.example.com") == ("ok", ["10.96.5.5"])
    assert n.connect("shop/client", "db.example.com:80").allowed
    # hosts/setup.go:143-147 inline entries; fallthrough lets cluster names through
    assert lookup(n, "legacy.example.com") == ("ok", ["10.1.2.3"])
    assert lookup(n, "api") == ("ok", ["10.96.5.5"])
    # hosts.go:53-60: without fallthrough a name in its zones it lacks is SERVFAIL
    closed = EXTRAS.replace("       fallthrough\n", "")
    assert Served(closed).route("api.shop.svc.cluster.local").kind == "servfail"
    assert lookup(net({"coredns-0": closed}), "api") == ("nxdomain", [])


def test_each_endpoint_answers_with_what_it_loaded():
    # the first ready endpoint by name answers (kube-proxy would pick one per query)
    assert lookup(net({"coredns-a": NO_KUBERNETES, "coredns-b": COREFILE}), "api")[0] == (
        "nxdomain"
    )
    assert lookup(net({"coredns-a": COREFILE, "coredns-b": NO_KUBERNETES}), "api")[0] == "ok"
    # not known (manifests read from files): answered as kubeadm's Corefile would
    assert lookup(net({"coredns-a": None}), "api") == ("ok", ["10.96.5.5"])


def test_the_sha512_is_of_the_parsed_blocks_as_coredns_logs_it():
    # reload.go:55-82: json.Marshal of caddyfile.ServerBlock; the value every kubeadm
    # cluster's CoreDNS logs for this Corefile
    assert corefile.sha512(COREFILE) == (
        "1b226df79860026c6a52e67daa10d7f0d57ec5b023288ec00c5e05f93523c894"
        "564e15b91770d3a07ae1cfbe861d15b37d4a0027e69c546ab112970993a3b03b"
    )
    # comments and spacing do not change it; a token does
    assert corefile.sha512("# dns\n" + COREFILE.replace("    errors", "    errors  ")) != (
        corefile.sha512(COREFILE)
    )  # the comment shifts every line number
    assert corefile.sha512(COREFILE.replace("    errors", "  errors")) == corefile.sha512(COREFILE)
