"""Each topology's baseline manifests give exactly the intended matrix through netsim, in
both variants; the NetArena profile is NetArena's 92 probes with its 15 allowed cells."""

import pytest

from kubeproof.netpol import baseline, intent, manifests, materialize, report, topology

CASES = [(name, variant) for name in topology.names() for variant in baseline.VARIANTS]


def world(name: str, variant: str) -> list[dict]:
    tp = topology.load(name)
    return materialize.materialize(manifests.workloads(tp) + baseline.policies(tp, variant))


@pytest.mark.parametrize(("name", "variant"), CASES)
def test_baseline_gives_the_intended_matrix(name, variant):
    tp = topology.load(name)
    rep = report.compute(tp, world(name, variant))
    assert rep.matrix() == intent.matrix(tp)
    assert rep.mismatches == []
    assert any(rep.matrix().values()) and not all(rep.matrix().values())


def test_at_least_three_topologies_ship():
    assert {"online-boutique", "bookinfo", "shop-shared-db"} <= set(topology.names())


def test_online_boutique_netarena_profile_is_netarenas_ground_truth():
    tp = topology.load("online-boutique")
    m = intent.matrix(tp, "netarena")
    assert len(m) == 92
    allowed = {k for k, v in m.items() if v}
    # NetArena app-k8s/correctness_check.py EXPECTED_RESULTS: its 15 True cells
    want = {
        ("frontend", "adservice:9555"),
        ("frontend", "cartservice:7070"),
        ("frontend", "checkoutservice:5050"),
        ("frontend", "currencyservice:7000"),
        ("frontend", "productcatalogservice:3550"),
        ("frontend", "recommendationservice:8080"),
        ("frontend", "shippingservice:50051"),
        ("cartservice", "redis-cart:6379"),
        ("checkoutservice", "cartservice:7070"),
        ("checkoutservice", "currencyservice:7000"),
        ("checkoutservice", "productcatalogservice:3550"),
        ("checkoutservice", "shippingservice:50051"),
        ("checkoutservice", "emailservice:5000"),
        ("checkoutservice", "paymentservice:50051"),
        ("recommendationservice", "productcatalogservice:3550"),
    }
    assert allowed == {
        f"default/{src} -> {svc}.default:{port}/TCP"
        for src, target in want
        for svc, port in [target.split(":")]
    }
    sources = {k.split(" -> ")[0] for k in m}
    assert "default/currencyservice" not in sources and "default/paymentservice" not in sources
    assert not any("frontend.default" in k for k in m)


def test_intent_text_lists_every_call_and_public_port():
    tp = topology.load("bookinfo")
    text = intent.text(tp)
    assert "- bookinfo/reviews-v1 -> nothing" in text
    assert "- bookinfo/reviews-v2 -> ratings:9080/TCP" in text
    assert "clients outside the cluster -> bookinfo/productpage:9080/TCP" in text


def test_cross_namespace_peers_select_the_namespace_label():
    tp = topology.load("shop-shared-db")
    postgres = next(
        p for p in baseline.policies(tp, "ingress") if p["metadata"]["name"] == "postgres"
    )
    peers = postgres["spec"]["ingress"][0]["from"]
    assert {
        "namespaceSelector": {"matchLabels": {"team": "storefront"}},
        "podSelector": {"matchLabels": {"app": "api"}},
    } in peers


def test_a_call_to_a_port_that_does_not_exist_is_refused():
    spec = topology.load("bookinfo").model_dump()
    spec["apps"][0]["calls"] = [{"service": "details", "port": 1234}]
    with pytest.raises(ValueError, match="no such port"):
        topology.Topology.model_validate(spec)
