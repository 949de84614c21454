"""The cross-check of netsim against an independent NetworkPolicy evaluator (docs/netsim.md,
Cross-check): the case generator covers what it claims and is reproducible; with the
evaluator built (`make bench` builds it), 200 cases agree except where the evaluator's own
proved deviations say otherwise."""

import json

import pytest

from kubeproof.netsim import Network
from kubeproof.netsim.crosscheck import engine
from kubeproof.netsim.crosscheck.cases import Case, case, cases
from kubeproof.netsim.crosscheck.compare import (
    AGREE,
    DEVIATIONS,
    ENGINE_NOTIN,
    compare,
    netsim_verdicts,
)
from kubeproof.netsim.crosscheck.neutral import reading_neutral, selector_branches
from tests.netsim.builders import namespace, netpol, pod


def _shapes(sample: list[Case]) -> set[str]:
    """Which policy shapes a sample of cases contains."""
    seen: set[str] = set()

    def nulls(obj: dict, where: str) -> None:
        seen.update(f"null:{where}.{k}" for k, v in obj.items() if v is None)

    def selector(s: dict | None, where: str) -> None:
        nulls(s or {}, "selector")
        if s == {}:
            seen.add(f"{where}:empty")
        for expression in (s or {}).get("matchExpressions") or []:
            seen.add(f"{where}:{expression['operator']}")
        if (s or {}).get("matchLabels"):
            seen.add(f"{where}:matchLabels")

    for c in sample:
        if len(c.policies) > 1:
            seen.add("several policies")
        for p in c.policies:
            spec = p["spec"]
            nulls(spec, "spec")
            seen.add(f"policyTypes:{spec.get('policyTypes', 'implicit')}")
            seen.add(f"podSelector:{'missing' if 'podSelector' not in spec else 'given'}")
            selector(spec.get("podSelector"), "target")
            for direction, peers_key in (("ingress", "from"), ("egress", "to")):
                rules = spec.get(direction)
                seen.add(f"{direction}:{'missing' if rules is None else len(rules) and 'rules'}")
                for rule in rules or []:
                    nulls(rule, "rule")
                    seen.add(f"{peers_key}:{'missing' if rule.get(peers_key) is None else 'list'}")
                    seen.add(
                        f"ports:{'missing' if rule.get('ports') is None else len(rule['ports'])}"
                    )
                    for peer in rule.get(peers_key) or []:
                        nulls(peer, "peer")
                        seen.add("peer:" + "+".join(sorted(k for k, v in peer.items() if v)))
                        selector(peer.get("podSelector"), "pod")
                        selector(peer.get("namespaceSelector"), "namespace")
                        block = peer.get("ipBlock") or {}
                        nulls(block, "ipBlock")
                        if block.get("except"):
                            seen.add("ipBlock:except")
                        if ":" in block.get("cidr", ""):
                            seen.add("ipBlock:IPv6")
                    for port in rule.get("ports") or []:
                        nulls(port, "port")
                        seen.add(f"protocol:{port.get('protocol', 'implicit')}")
                        value = port.get("port")
                        kind = "none" if value is None else type(value).__name__
                        seen.add(f"port:{'range' if 'endPort' in port else kind}")
    return seen


def test_the_generator_covers_every_shape_it_claims():
    seen = _shapes(cases(seed=3, count=200))
    for operator in ("In", "NotIn", "Exists", "DoesNotExist", "matchLabels", "empty"):
        assert {f"target:{operator}", f"pod:{operator}", f"namespace:{operator}"} <= seen
    assert {
        "several policies",
        "policyTypes:implicit",
        "policyTypes:[]",
        "policyTypes:['Ingress']",
        "policyTypes:['Egress']",
        "policyTypes:['Ingress', 'Egress']",
        "ingress:missing",
        "ingress:0",
        "ingress:rules",
        "egress:missing",
        "egress:0",
        "egress:rules",
        "from:missing",
        "to:list",
        "ports:missing",
        "ports:0",
        "peer:podSelector",
        "peer:namespaceSelector",
        "peer:namespaceSelector+podSelector",
        "peer:ipBlock",
        "ipBlock:except",
        "ipBlock:IPv6",
        "protocol:implicit",
        "protocol:TCP",
        "protocol:UDP",
        "protocol:SCTP",
        "port:int",
        "port:str",
        "port:range",
        "port:none",
        "podSelector:missing",
        "null:spec.podSelector",
        "null:spec.policyTypes",
        "null:rule.ports",
        "null:peer.ipBlock",
        "null:peer.podSelector",
        "null:port.protocol",
        "null:selector.matchExpressions",
    } <= seen


def test_the_same_seed_gives_the_same_case_and_another_seed_another():
    assert case(7, 12).model_dump_json() == case(7, 12).model_dump_json()
    assert case(7, 12).model_dump_json() != case(8, 12).model_dump_json()
    assert case(7, 12).model_dump_json() != case(7, 13).model_dump_json()


def test_probes_cover_pods_and_addresses_outside_in_both_directions():
    probes = [p for c in cases(seed=3, count=50) for p in c.probes]
    assert any(p.source.pod and p.target.pod for p in probes)
    assert any(p.source.pod and p.target.ip for p in probes)
    assert any(p.source.ip and p.target.pod for p in probes)
    assert not any(p.source.pod and p.source.pod == p.target.pod for p in probes)
    assert {p.protocol for p in probes} == {"TCP", "UDP", "SCTP"}


NOT_IN = [
    namespace("shop"),
    pod("shop/db", "10.244.0.2", {"app": "db"}),
    pod("shop/unlabelled", "10.244.0.3"),
    pod("shop/web", "10.244.0.4", {"app": "web", "tier": "front"}),
    netpol(
        "shop/db",
        {
            "podSelector": {"matchLabels": {"app": "db"}},
            "ingress": [
                {
                    "from": [
                        {
                            "podSelector": {
                                "matchExpressions": [
                                    {"key": "tier", "operator": "NotIn", "values": ["front"]}
                                ]
                            }
                        }
                    ]
                }
            ],
        },
    ),
]


def test_notin_matches_a_pod_without_the_key():
    """`tier NotIn (front)` selects pods with no tier label: Requirement.Matches in
    k8s.io/apimachinery pkg/labels/selector.go:255-260 (v0.36.3); the labels concept page
    says so too. The cross-check's engine reads it otherwise (its class below)."""
    net = Network.from_objects(NOT_IN)
    assert net.connect("shop/unlabelled", "10.244.0.2:5432").allowed
    assert not net.connect("shop/web", "10.244.0.2:5432").allowed


def test_a_notin_selector_branches_into_readings_that_agree():
    selector = {
        "matchLabels": {"app": "db"},
        "matchExpressions": [
            {"key": "tier", "operator": "NotIn", "values": ["front"]},
            {"key": "env", "operator": "Exists"},
        ],
    }
    assert selector_branches(selector) == [
        {
            "matchLabels": {"app": "db"},
            "matchExpressions": [
                {"key": "env", "operator": "Exists"},
                {"key": "tier", "operator": "DoesNotExist"},
            ],
        },
        {
            "matchLabels": {"app": "db"},
            "matchExpressions": [
                {"key": "env", "operator": "Exists"},
                {"key": "tier", "operator": "NotIn", "values": ["front"]},
                {"key": "tier", "operator": "Exists"},
            ],
        },
    ]
    assert selector_branches({"matchLabels": {"a": "b"}}) == [{"matchLabels": {"a": "b"}}]
    assert selector_branches(None) == [None]


def test_the_reading_neutral_form_changes_no_netsim_verdict():
    """In Kubernetes' reading the rewrite is an identity, so netsim (which reads NotIn as
    Kubernetes does) must answer every probe of both forms alike; 300 seeded cases, and
    enough of them have NotIn somewhere to mean it."""
    sample = cases(seed=5, count=300)
    rewritten = 0
    for c in sample:
        neutral = reading_neutral(c)
        rewritten += neutral.policies != c.policies
        assert netsim_verdicts(c) == netsim_verdicts(neutral, neutral.objects()), (c.seed, c.index)
    assert rewritten > 50


def _binary():
    binary = engine.built()
    if binary is None:
        pytest.skip(
            "netpolcheck is not built: `make bench` (or python benchmarks/netpol_crosscheck.py)"
            " builds it from the Go module proxy; too slow for a test to do"
        )
    return binary


def _as_case(objects: list[dict], probes: list[dict]) -> Case:
    by_kind: dict[str, list[dict]] = {"Namespace": [], "Pod": [], "NetworkPolicy": []}
    for obj in objects:
        by_kind[obj["kind"]].append({k: v for k, v in obj.items() if k != "kind"})
    return Case.model_validate(
        {
            "seed": 0,
            "index": 0,
            "namespaces": by_kind["Namespace"],
            "pods": by_kind["Pod"],
            "policies": by_kind["NetworkPolicy"],
            "probes": probes,
        }
    )


def test_the_engines_notin_reading_is_proved_per_probe():
    probes = [
        {"source": {"pod": f"shop/{name}"}, "target": {"pod": "shop/db"}, "port": 5432}
        | {"protocol": "TCP"}
        for name in ("unlabelled", "web")
    ]
    c = _as_case(NOT_IN, probes)
    [answer] = engine.judge(_binary(), [c.engine_input()])
    unlabelled, web = compare(c, answer)
    assert (unlabelled.netsim, unlabelled.engine, unlabelled.verdict) == (
        True,
        False,
        ENGINE_NOTIN.name,
    )
    assert (web.netsim, web.engine, web.verdict) == (False, False, AGREE)
    # said in the reading-neutral form, the engine gives Kubernetes' answer
    [neutral_answer] = engine.judge(_binary(), [reading_neutral(c).engine_input()])
    assert [r.verdict for r in compare(c, neutral_answer)] == [AGREE, AGREE]


def test_the_engine_refuses_a_policy_the_apiserver_would():
    c = _as_case(
        [namespace("shop"), netpol("shop/bad", {"podSelector": {}, "ingress": [{"ports": []}]})],
        [],
    )
    bad = c.engine_input()
    bad["policies"][0]["spec"]["ingress"][0]["ports"] = [{"port": 90, "endPort": 80}]
    [answer] = engine.judge(_binary(), [bad])
    assert "endPort" in answer["error"]
    with pytest.raises(ValueError, match="endPort"):
        compare(c, answer)


def test_netsim_agrees_with_the_independent_engine_on_200_cases():
    sample = cases(seed=11, count=200)
    answers = engine.judge(_binary(), [c.engine_input() for c in sample])
    verdicts = [r.verdict for c, a in zip(sample, answers, strict=True) for r in compare(c, a)]
    assert len(verdicts) > 3000
    unexplained = [v for v in verdicts if v != AGREE and v not in DEVIATIONS]
    assert unexplained == [], json.dumps(unexplained[:5])
    assert ENGINE_NOTIN.name in verdicts  # the sample has the known deviation
    neutral = engine.judge(_binary(), [reading_neutral(c).engine_input() for c in sample])
    verdicts = [r.verdict for c, a in zip(sample, neutral, strict=True) for r in compare(c, a)]
    assert set(verdicts) == {AGREE}
    assert verdicts.count(AGREE) / len(verdicts) > 0.98
