"""An optional NetworkPolicy or container-port field written as null (YAML's `key:` or
`key: ~`) means what leaving it out means: the apiserver decodes null into the zero value
or a nil pointer, then defaults. netsim reads manifests from files undefaulted, so it must
read null the same way. Found by the cross-check against an independent evaluator
(docs/netsim.md, Cross-check)."""

from kubeproof.netsim import Network
from tests.netsim.builders import namespace, netpol, pod

BASE = [
    namespace("shop"),
    pod("shop/db", "10.244.0.2", {"app": "db"}, ports=[(5432, "pg")]),
    pod("shop/web", "10.244.0.3", {"app": "web"}),
]


def test_a_null_pod_selector_selects_every_pod_of_the_namespace():
    """podSelector "is optional. If it is not specified, it defaults to an empty selector"
    (k8s.io/api networking/v1 types.go:62-69, v0.36.3): a default deny written with
    `podSelector:` isolates every pod."""
    for spec in ({"podSelector": None}, {}):
        net = Network.from_objects([*BASE, netpol("shop/deny", spec)])
        verdict = net.connect("shop/web", "10.244.0.2:5432")
        assert (verdict.allowed, verdict.code) == (False, "ingress-denied"), spec


def test_a_null_protocol_is_tcp():
    """SetDefaults_NetworkPolicyPort and SetDefaults_ContainerPort (pkg/apis/{networking,
    core}/v1/defaults.go) give TCP to a port whose protocol is unset, null included."""
    allow = netpol(
        "shop/db",
        {
            "podSelector": {"matchLabels": {"app": "db"}},
            "ingress": [{"ports": [{"protocol": None, "port": "pg"}]}],
        },
    )
    db = pod("shop/db", "10.244.0.2", {"app": "db"})
    db["spec"]["containers"][0]["ports"] = [{"containerPort": 5432, "name": "pg", "protocol": None}]
    net = Network.from_objects([BASE[0], db, BASE[2], allow])
    assert net.connect("shop/web", "10.244.0.2:5432").allowed
    assert not net.connect("shop/web", "10.244.0.2:5432/UDP").allowed


def test_a_null_ip_block_beside_a_selector_is_no_ip_block():
    """NetworkPolicyPeer.ipBlock is a pointer: null is nil, and the peer is its selector."""
    allow = netpol(
        "shop/db",
        {
            "podSelector": {"matchLabels": {"app": "db"}},
            "ingress": [
                {"from": [{"podSelector": {"matchLabels": {"app": "web"}}, "ipBlock": None}]}
            ],
        },
    )
    net = Network.from_objects([*BASE, pod("shop/other", "10.244.0.4"), allow])
    assert net.connect("shop/web", "10.244.0.2:5432").allowed
    assert not net.connect("shop/other", "10.244.0.2:5432").allowed
