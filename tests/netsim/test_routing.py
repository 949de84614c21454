"""Cluster DNS names, Service routing and DNS egress."""

import pytest

from kubeproof.netsim import Network
from tests.netsim.builders import allow_dns_egress, namespace, netpol, pod, service

OBJECTS = [
    namespace("shop"),
    namespace("pay", team="payments"),
    pod("shop/web", "10.244.1.2", {"app": "web"}),
    pod("shop/api-1", "10.244.1.3", {"app": "api"}, ports=[(8080, "http")]),
    pod("shop/api-2", "10.244.1.4", {"app": "api"}, ports=[(8080, "http")], ready=False),
    pod("shop/api-v2", "10.244.1.5", {"app": "api-v2"}, ports=[(9090, "web")]),
    pod("pay/ledger", "10.244.2.2", {"app": "ledger"}, ports=[5432]),
    pod("pay/db-0", "10.244.2.3", {"app": "db"}, ports=[5432], hostname="db-0", subdomain="db"),
    service(
        "shop/api",
        {"app": "api"},
        [{"name": "http", "port": 80, "targetPort": "http"}],
        cluster_ip="10.96.0.20",
    ),
    service(
        "shop/api-v2",
        {"app": "api-v2"},
        [{"name": "http", "port": 80, "targetPort": "http"}],
        cluster_ip="10.96.0.21",
    ),
    service("shop/nobody", {"app": "missing"}, [80], cluster_ip="10.96.0.22"),
    service("pay/ledger", {"app": "ledger"}, [5432], cluster_ip="10.96.0.30"),
    service("pay/db", {"app": "db"}, [5432], cluster_ip="None"),
    service(
        "shop/ledger-alias",
        None,
        [],
        cluster_ip="",
        type="ExternalName",
        externalName="ledger.pay.svc.cluster.local",
    ),
    service(
        "shop/stripe", None, [], cluster_ip="", type="ExternalName", externalName="api.stripe.com"
    ),
]

CASES = [
    # (target from shop/web, allowed, code, fragment of the explanation)
    ("api:80", True, "ok", "shop/api-1:8080"),  # short name, named targetPort, ready only
    ("api.shop:80", True, "ok", "api.shop.svc.cluster.local"),
    ("api.shop.svc:80", True, "ok", "api.shop.svc.cluster.local"),
    ("api.shop.svc.cluster.local:80", True, "ok", "api.shop.svc.cluster.local"),
    ("api.shop.svc.cluster.local.:80", True, "ok", "10.96.0.20"),
    ("10.96.0.20:80", True, "ok", "shop/api-1:8080"),  # by cluster IP
    ("ledger:5432", False, "nxdomain", "no such host"),  # short name, wrong namespace
    ("ledger.pay:5432", True, "ok", "pay/ledger:5432"),
    ("api:8080", False, "no-port", "has no port 8080/TCP"),  # targetPort, not service port
    ("api-v2:80", False, "no-endpoints", "no ready pod matches its selector"),  # port name
    ("nobody:80", False, "no-endpoints", "connection refused"),
    ("db.pay:5432", True, "ok", "pay/db-0:5432"),  # headless: pod records
    ("db-0.db.pay.svc.cluster.local:5432", True, "ok", "pay/db-0:5432"),
    ("10-244-2-3.pay.pod.cluster.local:5432", True, "ok", "pay/db-0:5432"),
    ("ledger-alias:5432", True, "ok", "CNAME ledger.pay.svc.cluster.local"),
    ("stripe:443", True, "external", "api.stripe.com"),
    ("no-such-service:80", False, "nxdomain", "no such host"),
    ("10.244.1.3:8080", True, "ok", "shop/api-1:8080"),  # pod IP directly
    ("10.244.1.3:9999", False, "not-listening", "nothing listens on port 9999"),
]


@pytest.mark.parametrize(("target", "allowed", "code", "fragment"), CASES)
def test_dns_and_service_routing(target, allowed, code, fragment):
    verdict = Network.from_objects(OBJECTS).connect("shop/web", target)
    assert (verdict.allowed, verdict.code) == (allowed, code), verdict.explain()
    assert fragment in verdict.explain()


def test_publish_not_ready_addresses_resolves_unready_pods():
    others = [o for o in OBJECTS if not (o["kind"] == "Service" and o["metadata"]["name"] == "db")]
    unready = pod("pay/db-1", "10.244.2.4", {"app": "db"}, ports=[5432], ready=False)
    plain = service("pay/db", {"app": "db"}, [5432], cluster_ip="None")
    assert (
        "pay/db-1:5432/TCP"
        not in Network.from_objects([*others, plain, unready])
        .connect("shop/web", "db.pay:5432")
        .endpoints
    )
    publishing = service(
        "pay/db", {"app": "db"}, [5432], cluster_ip="None", publishNotReadyAddresses=True
    )
    verdict = Network.from_objects([*others, publishing, unready]).connect(
        "shop/web", "db.pay:5432"
    )
    assert "pay/db-1:5432/TCP" in verdict.endpoints


def test_endpoint_slices_take_precedence_and_terminating_endpoints_serve_last():
    slice_ = {
        "kind": "EndpointSlice",
        "metadata": {
            "name": "api-x",
            "namespace": "shop",
            "labels": {"kubernetes.io/service-name": "api"},
        },
        "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
        "endpoints": [
            {
                "addresses": ["10.244.1.4"],
                "conditions": {"ready": False, "serving": True, "terminating": True},
                "targetRef": {"kind": "Pod", "namespace": "shop", "name": "api-2"},
            }
        ],
    }
    verdict = Network.from_objects([*OBJECTS, slice_]).connect("shop/web", "api:80")
    assert verdict.allowed and verdict.endpoints == ["shop/api-2:8080/TCP"]


def test_default_deny_egress_breaks_dns_until_dns_egress_is_allowed():
    deny = netpol("shop/deny-egress", {"podSelector": {}, "policyTypes": ["Egress"]})
    allow_api = netpol(
        "shop/allow-api",
        {
            "podSelector": {"matchLabels": {"app": "web"}},
            "policyTypes": ["Egress"],
            "egress": [{"to": [{"podSelector": {"matchLabels": {"app": "api"}}}]}],
        },
    )
    net = Network.from_objects([*OBJECTS, deny, allow_api])
    blocked = net.connect("shop/web", "api:80")
    assert (blocked.allowed, blocked.code) == (False, "dns-blocked")
    assert "i/o timeout" in blocked.reason
    assert net.connect("shop/web", "10.96.0.20:80").allowed  # no lookup needed
    allow_dns = allow_dns_egress("shop/allow-dns", ("UDP", "TCP"))
    net = Network.from_objects([*OBJECTS, deny, allow_api, allow_dns])
    assert net.connect("shop/web", "api:80").allowed


def test_a_partially_blocked_service_is_reported_with_what_still_works():
    extra = pod("shop/api-3", "10.244.1.6", {"app": "api", "zone": "b"}, ports=[(8080, "http")])
    isolate = netpol(
        "shop/isolate-api-3",
        {"podSelector": {"matchLabels": {"zone": "b"}}, "policyTypes": ["Ingress"]},
    )
    verdict = Network.from_objects([*OBJECTS, extra, isolate]).connect("shop/web", "api:80")
    assert (verdict.allowed, verdict.code) == (False, "partial")
    assert verdict.endpoints == ["shop/api-1:8080/TCP"]


def test_a_pods_loopback_is_its_own_and_no_policy_applies():
    """localhost and 127.0.0.0/8 are the pod's own network namespace (a sidecar, a CGI the
    pod's httpd runs): a deny-all policy does not apply; a port nothing listens on refuses."""
    deny = netpol("shop/deny-all", {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]})
    net = Network.from_objects([*OBJECTS, deny])
    for target in ("127.0.0.1:8080", "localhost:8080", "127.1.2.3:8080"):
        verdict = net.connect("shop/api-1", target)
        assert (verdict.allowed, verdict.endpoints) == (True, ["shop/api-1:8080/TCP"]), target
    refused = net.connect("shop/api-1", "127.0.0.1:9999")
    assert (refused.allowed, refused.code) == (False, "not-listening")


@pytest.mark.parametrize(
    ("ready", "publish", "service_exists", "answer"),
    [
        (True, False, True, "ok"),
        (False, False, True, "nxdomain"),  # not ready: in NotReadyAddresses, not served
        (False, True, True, "ok"),  # publishNotReadyAddresses: served anyway
        (True, False, False, "nxdomain"),  # no Service named by the subdomain: no record
    ],
)
def test_a_pods_name_in_its_headless_service_follows_its_readiness(
    ready, publish, service_exists, answer
):
    # a StatefulSet's peers find each other as web-0.web.ns.svc: CoreDNS serves the
    # record from the Service's ready endpoints (kubernetes.go findServices)
    svc = service("pay/store", {"app": "store"}, [5432], cluster_ip="None")
    if publish:
        svc["spec"]["publishNotReadyAddresses"] = True
    objects = [
        namespace("pay"),
        pod("pay/web", "10.244.2.9", {"app": "web"}),
        pod(
            "pay/store-0",
            "10.244.2.3",
            {"app": "store"},
            ports=[5432],
            hostname="store-0",
            subdomain="store",
            ready=ready,
        ),
        *([svc] if service_exists else []),
    ]
    net = Network.from_objects(objects)
    me = net.objects.pods["pay/web"]
    status, ips = net.lookup(me, "store-0.store.pay.svc.cluster.local")
    assert (status, ips) == (answer, ["10.244.2.3"] if answer == "ok" else [])


def test_an_endpoint_without_a_hostname_answers_to_its_dashed_address():
    net = Network.from_objects(
        [
            namespace("pay"),
            pod("pay/web", "10.244.2.9", {"app": "web"}),
            pod("pay/api-1", "10.244.2.4", {"app": "api"}, ports=[80]),
            service("pay/api", {"app": "api"}, [80], cluster_ip="10.96.0.9"),
        ]
    )
    me = net.objects.pods["pay/web"]
    assert net.lookup(me, "10-244-2-4.api.pay.svc.cluster.local") == ("ok", ["10.244.2.4"])
    assert net.lookup(me, "api-1.api.pay.svc.cluster.local") == ("nxdomain", [])
