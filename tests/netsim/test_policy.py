"""NetworkPolicy semantics: the examples of the Kubernetes documentation and the upstream
e2e suite's cases, table-driven."""

import pytest

from kubeproof.netsim import Network
from tests.netsim.builders import namespace, netpol, pod

BASE = [
    namespace("default"),
    namespace("myproject", project="myproject"),
    namespace("other", project="other"),
    pod("default/db", "10.244.1.10", {"role": "db"}, ports=[6379, (5432, "pg")]),
    pod("default/frontend", "10.244.1.11", {"role": "frontend"}),
    pod("default/backend", "10.244.1.12", {"role": "backend"}),
    pod("myproject/client", "10.244.2.10", {"role": "client"}),
    pod("myproject/frontend", "10.244.2.11", {"role": "frontend"}),
    pod("other/frontend", "10.244.3.11", {"role": "frontend"}),
    pod("other/external-ish", "172.17.0.5", {"role": "x"}),
    pod("other/excepted", "172.17.1.5", {"role": "x"}),
]

DOC_EXAMPLE = netpol(
    "default/test-network-policy",
    {
        "podSelector": {"matchLabels": {"role": "db"}},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [
            {
                "from": [
                    {"ipBlock": {"cidr": "172.17.0.0/16", "except": ["172.17.1.0/24"]}},
                    {"namespaceSelector": {"matchLabels": {"project": "myproject"}}},
                    {"podSelector": {"matchLabels": {"role": "frontend"}}},
                ],
                "ports": [{"protocol": "TCP", "port": 6379}],
            }
        ],
        "egress": [
            {
                "to": [{"ipBlock": {"cidr": "10.0.0.0/24"}}],
                "ports": [{"protocol": "TCP", "port": 5978}],
            }
        ],
    },
)

AND_PEER = netpol(
    "default/and",
    {
        "podSelector": {"matchLabels": {"role": "db"}},
        "ingress": [
            {
                "from": [
                    {
                        "namespaceSelector": {"matchLabels": {"project": "myproject"}},
                        "podSelector": {"matchLabels": {"role": "client"}},
                    }
                ]
            }
        ],
    },
)
OR_PEERS = netpol(
    "default/or",
    {
        "podSelector": {"matchLabels": {"role": "db"}},
        "ingress": [
            {
                "from": [
                    {"namespaceSelector": {"matchLabels": {"project": "myproject"}}},
                    {"podSelector": {"matchLabels": {"role": "frontend"}}},
                ]
            }
        ],
    },
)
DENY_INGRESS = netpol(
    "default/default-deny-ingress", {"podSelector": {}, "policyTypes": ["Ingress"]}
)
ALLOW_ALL_INGRESS = netpol(
    "default/allow-all-ingress", {"podSelector": {}, "ingress": [{}], "policyTypes": ["Ingress"]}
)
DENY_EGRESS = netpol("default/default-deny-egress", {"podSelector": {}, "policyTypes": ["Egress"]})
ALLOW_ALL_EGRESS = netpol(
    "default/allow-all-egress", {"podSelector": {}, "egress": [{}], "policyTypes": ["Egress"]}
)
DENY_ALL = netpol(
    "default/default-deny-all", {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
)
END_PORT = netpol(
    "default/multi-port-egress",
    {
        "podSelector": {"matchLabels": {"role": "backend"}},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [{"ipBlock": {"cidr": "10.244.1.0/24"}}],
                "ports": [{"protocol": "TCP", "port": 32000, "endPort": 32768}],
            }
        ],
    },
)
NAMED_PORT = netpol(
    "default/named",
    {
        "podSelector": {"matchLabels": {"role": "db"}},
        "ingress": [{"ports": [{"port": "pg"}]}],
    },
)
BY_NAMESPACE_NAME = netpol(
    "default/from-myproject-by-name",
    {
        "podSelector": {"matchLabels": {"role": "db"}},
        "ingress": [
            {
                "from": [
                    {
                        "namespaceSelector": {
                            "matchLabels": {"kubernetes.io/metadata.name": "myproject"}
                        }
                    }
                ]
            }
        ],
    },
)
EXPRESSIONS = netpol(
    "default/expressions",
    {
        "podSelector": {"matchExpressions": [{"key": "role", "operator": "In", "values": ["db"]}]},
        "ingress": [
            {
                "from": [
                    {
                        "podSelector": {
                            "matchExpressions": [
                                {"key": "role", "operator": "NotIn", "values": ["frontend"]}
                            ]
                        }
                    }
                ]
            }
        ],
    },
)
EGRESS_ONLY = netpol(
    "default/egress-only",
    {
        "podSelector": {"matchLabels": {"role": "frontend"}},
        "egress": [{"to": [{"podSelector": {"matchLabels": {"role": "db"}}}]}],
    },
)
SELECTS_NOTHING = netpol(
    "default/nothing",
    {"podSelector": {"matchLabels": {"role": "nonexistent"}}, "policyTypes": ["Ingress"]},
)

CASES = [
    # (policies, source, target, allowed, code)
    ([], "default/frontend", "10.244.1.10:6379", True, "ok"),
    ([DOC_EXAMPLE], "default/frontend", "10.244.1.10:6379", True, "ok"),
    ([DOC_EXAMPLE], "default/frontend", "10.244.1.10:5432", False, "ingress-denied"),
    ([DOC_EXAMPLE], "default/backend", "10.244.1.10:6379", False, "ingress-denied"),
    ([DOC_EXAMPLE], "myproject/client", "10.244.1.10:6379", True, "ok"),
    ([DOC_EXAMPLE], "other/frontend", "10.244.1.10:6379", False, "ingress-denied"),
    ([DOC_EXAMPLE], "other/external-ish", "10.244.1.10:6379", True, "ok"),  # in the ipBlock
    ([DOC_EXAMPLE], "other/excepted", "10.244.1.10:6379", False, "ingress-denied"),  # except
    ([DOC_EXAMPLE], "default/db", "10.0.0.7:5978", True, "external"),
    ([DOC_EXAMPLE], "default/db", "10.0.0.7:5979", False, "egress-denied"),
    ([DOC_EXAMPLE], "default/db", "10.244.1.11:80", False, "egress-denied"),
    ([AND_PEER], "myproject/client", "10.244.1.10:6379", True, "ok"),
    ([AND_PEER], "myproject/frontend", "10.244.1.10:6379", False, "ingress-denied"),
    ([AND_PEER], "default/frontend", "10.244.1.10:6379", False, "ingress-denied"),
    ([OR_PEERS], "myproject/frontend", "10.244.1.10:6379", True, "ok"),
    ([OR_PEERS], "default/frontend", "10.244.1.10:6379", True, "ok"),
    ([OR_PEERS], "other/frontend", "10.244.1.10:6379", False, "ingress-denied"),
    ([DENY_INGRESS], "default/frontend", "10.244.1.10:6379", False, "ingress-denied"),
    ([DENY_INGRESS], "default/db", "10.244.2.10:80", True, "ok"),  # egress untouched
    ([DENY_INGRESS, ALLOW_ALL_INGRESS], "other/frontend", "10.244.1.10:6379", True, "ok"),
    ([DENY_EGRESS], "default/frontend", "10.244.2.10:80", False, "egress-denied"),
    ([DENY_EGRESS], "myproject/client", "10.244.1.10:6379", True, "ok"),  # ingress untouched
    ([DENY_EGRESS, ALLOW_ALL_EGRESS], "default/frontend", "10.244.2.10:80", True, "ok"),
    ([DENY_ALL], "default/frontend", "10.244.1.10:6379", False, "egress-denied"),
    ([DENY_ALL], "myproject/client", "10.244.1.10:6379", False, "ingress-denied"),
    ([END_PORT], "default/backend", "10.244.1.11:32000", True, "ok"),
    ([END_PORT], "default/backend", "10.244.1.11:32768", True, "ok"),
    ([END_PORT], "default/backend", "10.244.1.11:32769", False, "egress-denied"),
    ([END_PORT], "default/backend", "10.244.1.11:31999", False, "egress-denied"),
    ([NAMED_PORT], "default/frontend", "10.244.1.10:5432", True, "ok"),
    ([NAMED_PORT], "default/frontend", "10.244.1.10:6379", False, "ingress-denied"),
    ([BY_NAMESPACE_NAME], "myproject/client", "10.244.1.10:6379", True, "ok"),
    ([BY_NAMESPACE_NAME], "default/frontend", "10.244.1.10:6379", False, "ingress-denied"),
    ([EXPRESSIONS], "default/backend", "10.244.1.10:6379", True, "ok"),
    ([EXPRESSIONS], "default/frontend", "10.244.1.10:6379", False, "ingress-denied"),
    # policyTypes defaulting: egress rules imply Egress, and Ingress is always implied
    ([EGRESS_ONLY], "default/frontend", "10.244.1.10:6379", True, "ok"),
    ([EGRESS_ONLY], "default/frontend", "10.244.1.12:80", False, "egress-denied"),
    ([EGRESS_ONLY], "default/backend", "10.244.1.11:80", False, "ingress-denied"),
    ([SELECTS_NOTHING], "default/frontend", "10.244.1.10:6379", True, "ok"),
    ([DENY_ALL], "default/db", "10.244.1.10:6379", True, "ok"),  # a pod reaches itself
]


@pytest.mark.parametrize(("policies", "source", "target", "allowed", "code"), CASES)
def test_network_policy_semantics(policies, source, target, allowed, code):
    verdict = Network.from_objects(BASE + policies).connect(source, target)
    assert (verdict.allowed, verdict.code) == (allowed, code), verdict.explain()


def test_denial_names_the_isolating_policy():
    verdict = Network.from_objects([*BASE, DENY_INGRESS]).connect(
        "default/frontend", "10.244.1.10:6379"
    )
    text = verdict.explain()
    assert "default/db is isolated for ingress by NetworkPolicy default-deny-ingress" in text
    assert "no rule allows default/frontend on 6379/TCP" in text


def test_ports_are_matched_by_protocol():
    udp_only = netpol(
        "default/udp",
        {
            "podSelector": {"matchLabels": {"role": "frontend"}},
            "ingress": [{"ports": [{"protocol": "UDP", "port": 6379}]}],
        },
    )
    net = Network.from_objects([*BASE, udp_only])
    assert net.connect("default/backend", "10.244.1.11:6379/UDP").allowed
    assert not net.connect("default/backend", "10.244.1.11:6379").allowed
