"""ingress-nginx's published status without a cluster (nodesim/ingressstatus.py): the node
IPs of the Running, Ready controller pods (ExternalIP before InternalIP, GetNodeIPs), sorted
and deduplicated, and only Ingresses whose status differs are updated (status.go)."""

import pytest

from kubeproof.netsim.objects import Pod
from kubeproof.nodesim.ingressstatus import addresses, pending

LABELS = {"app.kubernetes.io/component": "controller", "pod-template-hash": "abc"}


def ctl(name, node, ready=True, phase="Running", labels=LABELS, ns="ingress-nginx"):
    return Pod(
        {
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"nodeName": node, "containers": []},
            "status": {
                "phase": phase,
                "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
            },
        }
    )


def node(name, internal, external=None):
    found = [{"type": "InternalIP", "address": internal}, {"type": "Hostname", "address": name}]
    if external:
        found.append({"type": "ExternalIP", "address": external})
    return {"metadata": {"name": name}, "status": {"addresses": found}}


NODES = {
    "n1": node("n1", "172.18.0.3"),
    "n2": node("n2", "172.18.0.2"),
    "n3": node("n3", "172.18.0.4", external="203.0.113.7"),
}


@pytest.mark.parametrize(
    ("pods", "want"),
    [
        ([ctl("a", "n1")], ["172.18.0.3"]),
        ([ctl("a", "n1"), ctl("b", "n2")], ["172.18.0.2", "172.18.0.3"]),  # sorted by IP
        ([ctl("a", "n1"), ctl("b", "n1")], ["172.18.0.3"]),  # one entry per address
        ([ctl("a", "n3")], ["203.0.113.7"]),  # ExternalIP wins
        ([ctl("a", "n1", ready=False)], []),  # only Ready pods
        ([ctl("a", "n1", phase="Pending")], []),  # only Running pods
        ([ctl("a", "n1"), ctl("x", "n2", labels={"app": "other"})], ["172.18.0.3"]),
        ([ctl("a", "n1"), ctl("y", "n2", ns="default")], ["172.18.0.3"]),
    ],
)
def test_addresses(pods, want):
    got = addresses(pods[0], pods, NODES)
    assert got == [{"ip": ip} for ip in want]


def ingress(name, current):
    status = {"loadBalancer": {"ingress": current}} if current is not None else {}
    return {"metadata": {"name": name, "namespace": "shop"}, "status": status}


def test_pending_updates_only_what_differs():
    want = [{"ip": "172.18.0.2"}, {"ip": "172.18.0.3"}]
    same = ingress("same", [{"ip": "172.18.0.3"}, {"ip": "172.18.0.2"}])  # order ignored
    empty = ingress("empty", None)
    other = ingress("other", [{"ip": "10.0.0.1"}])
    assert [i["metadata"]["name"] for i in pending([same, empty, other], want)] == [
        "empty",
        "other",
    ]
    assert pending([empty], []) == []  # nothing published, nothing to clear
