"""NetworkPolicy judged by the connectivity it produces (golden, no cluster): an appended
allow-all rule opens paths wherever it sits; the intended rule opens only what it should,
in any position, policy or selector form."""

import copy

from kubeproof.verify import netpolicy
from kubeproof.verify.netpolicy import EXTERNAL_IP, Path, matrix, workloads

NS = "shop"


def namespace(name):
    return {
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
    }


def pod(app, ip, port):
    return {
        "kind": "Pod",
        "metadata": {
            "name": f"{app}-7d9f-x",
            "namespace": NS,
            "labels": {"app": app, "pod-template-hash": "7d9f"},
            "ownerReferences": [{"kind": "ReplicaSet", "name": f"{app}-7d9f", "controller": True}],
        },
        "spec": {"containers": [{"name": app, "ports": [{"containerPort": port}]}]},
        "status": {"phase": "Running", "podIP": ip},
    }


def policy(name, ingress, selector=None):
    return {
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "podSelector": selector or {"matchLabels": {"app": "db"}},
            "policyTypes": ["Ingress"],
            "ingress": ingress,
        },
    }


CHECKOUT_RULE = {
    "from": [{"podSelector": {"matchLabels": {"app": "checkout"}}}],
    "ports": [{"port": 5432}],
}
BROKEN_RULE = {
    "from": [{"podSelector": {"matchLabels": {"app": "checkout"}}}],
    "ports": [{"port": 5433}],
}
METRICS_RULE = {
    "from": [{"podSelector": {"matchLabels": {"app": "metrics"}}}],
    "ports": [{"port": 9187}],
}

BASE = [
    namespace(NS),
    pod("checkout", "10.0.0.1", 8080),
    pod("web", "10.0.0.2", 8080),
    pod("metrics", "10.0.0.3", 9090),
    {
        **pod("db", "10.0.0.4", 5432),
        "spec": {
            "containers": [
                {"name": "db", "ports": [{"containerPort": 5432}, {"containerPort": 9187}]}
            ]
        },
    },
    policy("db-ingress", [BROKEN_RULE, METRICS_RULE]),
]


def opened(objects):
    return matrix(objects, [NS]) - matrix(BASE, [NS])


def with_policy(*rules, extra=()):
    objects = copy.deepcopy(BASE)
    objects[-1] = policy("db-ingress", list(rules))
    return objects + list(extra)


def test_the_intended_rule_opens_exactly_the_intended_path_in_any_position():
    want = {Path("shop/checkout", "shop/db", 5432, "TCP")}
    assert opened(with_policy(CHECKOUT_RULE, METRICS_RULE)) == want
    assert opened(with_policy(METRICS_RULE, CHECKOUT_RULE)) == want
    expressions = {
        "from": [
            {
                "podSelector": {
                    "matchExpressions": [{"key": "app", "operator": "In", "values": ["checkout"]}]
                }
            }
        ],
        "ports": [{"port": 5432, "protocol": "TCP"}],
    }
    assert opened(with_policy(METRICS_RULE, expressions)) == want
    beside = policy("checkout-to-db", [CHECKOUT_RULE])
    assert opened(with_policy(BROKEN_RULE, METRICS_RULE, extra=[beside])) == want


def test_an_appended_allow_all_rule_opens_paths_wherever_it_sits():
    for rules in ([CHECKOUT_RULE, METRICS_RULE, {}], [{}, CHECKOUT_RULE, METRICS_RULE]):
        found = opened(with_policy(*rules))
        assert Path("shop/web", "shop/db", 5432, "TCP") in found
        assert Path("kubeproof-outsider/outsider", "shop/db", 5432, "TCP") in found


def test_a_cross_namespace_rule_opens_the_outsider_path():
    everyone = {"from": [{"namespaceSelector": {}}], "ports": [{"port": 5432}]}
    found = opened(with_policy(CHECKOUT_RULE, METRICS_RULE, everyone))
    assert Path("kubeproof-outsider/outsider", "shop/db", 5432, "TCP") in found
    assert Path("shop/web", "shop/db", 5432, "TCP") in found


def test_egress_to_the_outside_is_judged_too():
    deny = {
        "kind": "NetworkPolicy",
        "metadata": {"name": "deny-egress", "namespace": NS},
        "spec": {"podSelector": {}, "policyTypes": ["Egress"]},
    }
    base = [*copy.deepcopy(BASE), deny]
    everywhere = copy.deepcopy(deny)
    everywhere["spec"]["egress"] = [{}]
    now = [*copy.deepcopy(BASE), everywhere]
    found = matrix(now, [NS]) - matrix(base, [NS])
    assert Path("shop/web", EXTERNAL_IP, 443, "TCP") in found


def test_a_workload_nobody_could_reach_at_baseline_is_still_judged():
    isolated = copy.deepcopy(BASE)
    isolated[-1] = policy("db-ingress", [])  # nothing reaches the database at baseline
    allow_all = copy.deepcopy(BASE)
    allow_all[-1] = policy("db-ingress", [{}])
    before, now = matrix(isolated, [NS]), matrix(allow_all, [NS])
    pods = [o for o in allow_all if o["kind"] == "Pod"]
    found = netpolicy.opened(before, now, workloads(isolated, [NS]), [], pods)
    assert Path("shop/web", "shop/db", 5432, "TCP") in found
    assert Path("kubeproof-outsider/outsider", "shop/db", 5432, "TCP") in found
    wanted = netpolicy.opened(
        before, now, workloads(isolated, [NS]), ["shop/* -> shop/app=db:*"], pods
    )
    # what is left is from beyond the namespace: outsiders and the system namespaces' probes
    assert {p.source.split("/")[0] for p in wanted} == {
        "kubeproof-outsider",
        "kube-system",
        "default",
    }


def test_a_rule_for_look_alike_pods_of_any_namespace_is_an_opening():
    look_alikes = {
        "from": [
            {
                "namespaceSelector": {},
                "podSelector": {"matchLabels": {"app": "checkout"}},
            }
        ],
        "ports": [{"port": 5432}],
    }
    found = netpolicy.opened(
        matrix(BASE, [NS]),
        matrix(with_policy(look_alikes, METRICS_RULE), [NS]),
        workloads(BASE, [NS]),
        ["shop/app=checkout -> shop/app=db:5432"],
        [o for o in BASE if o["kind"] == "Pod"],
    )
    assert [p.target for p in found] == ["shop/db"]
    assert found[0].source.startswith("kubeproof-outsider/outsider-")


def egress(name, selector, rules):
    return {
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"podSelector": selector, "policyTypes": ["Egress"], "egress": rules},
    }


TO_DB = {"to": [{"podSelector": {"matchLabels": {"app": "db"}}}], "ports": [{"port": 5432}]}
KUBE_SYSTEM = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}
DNS_PORTS = [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]
DNS_ALLOWED = ["shop/app=checkout -> *:53"]
# checkout may reach only its database: its name lookups fail (the broken state)
LOCKED = [
    *copy.deepcopy(BASE),
    egress("checkout-egress", {"matchLabels": {"app": "checkout"}}, [TO_DB]),
]


def opened_by(rule, allow=DNS_ALLOWED):
    now = copy.deepcopy(LOCKED)
    now[-1]["spec"]["egress"].append(rule)
    pods = [o for o in now if o["kind"] == "Pod"]
    return netpolicy.opened(
        matrix(LOCKED, [NS]), matrix(now, [NS]), workloads(LOCKED, [NS]), allow, pods
    )


def test_dns_to_the_cluster_dns_opens_nothing_beyond_port_53():
    precise = {
        "to": [{**KUBE_SYSTEM, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
        "ports": DNS_PORTS,
    }
    assert opened_by(precise) == []
    assert {p.show() for p in opened_by(precise, allow=[])} == {
        "shop/checkout -> kube-system/coredns:53/UDP",
        "shop/checkout -> kube-system/coredns:53/TCP",
    }
    # the namespace alone on port 53, or port 53 anywhere: only DNS opens
    assert opened_by({"to": [KUBE_SYSTEM], "ports": DNS_PORTS}) == []
    assert opened_by({"ports": DNS_PORTS}) == []


def test_opening_all_of_kube_system_is_caught():
    found = {p.show() for p in opened_by({"to": [KUBE_SYSTEM]})}
    assert "shop/checkout -> kube-system/coredns:9153/TCP" in found
    assert "shop/checkout -> kube-system/kubeproof-probe:6443/TCP" in found
    assert not any(p.endswith(":53/UDP") for p in found)


def test_a_default_deny_beside_the_fix_closes_what_worked():
    deny = egress("default-deny-egress", {}, [])
    now = [*copy.deepcopy(LOCKED), deny]
    now[-2]["spec"]["egress"].append({"ports": DNS_PORTS})
    pods = [o for o in LOCKED if o["kind"] == "Pod"]
    known = workloads(LOCKED, [NS])
    lost = {
        p.show() for p in netpolicy.closed(matrix(LOCKED, [NS]), matrix(now, [NS]), known, [], pods)
    }
    assert "shop/web -> kube-system/coredns:53/UDP" in lost
    assert f"shop/web -> {EXTERNAL_IP}:443/TCP" in lost
    assert "shop/web -> shop/db:5432/TCP" not in lost  # the db's ingress never let web in
    assert not any(p.startswith("shop/checkout") for p in lost)  # was locked already
    assert not any("outsider" in p or "probe" in p for p in lost)
    # the fix alone closes nothing
    fixed = copy.deepcopy(LOCKED)
    fixed[-1]["spec"]["egress"].append({"ports": DNS_PORTS})
    assert netpolicy.closed(matrix(LOCKED, [NS]), matrix(fixed, [NS]), known, [], pods) == []


def test_a_rule_rewritten_for_one_client_closes_the_others():
    rewritten = copy.deepcopy(BASE)
    rewritten[-1] = policy("db-ingress", [CHECKOUT_RULE])  # the metrics rule dropped
    pods = [o for o in BASE if o["kind"] == "Pod"]
    lost = netpolicy.closed(
        matrix(BASE, [NS]), matrix(rewritten, [NS]), workloads(BASE, [NS]), [], pods
    )
    assert [p.show() for p in lost] == ["shop/metrics -> shop/db:9187/TCP"]
    allowed = ["shop/app=metrics -> shop/app=db:9187"]
    assert (
        netpolicy.closed(
            matrix(BASE, [NS]), matrix(rewritten, [NS]), workloads(BASE, [NS]), allowed, pods
        )
        == []
    )
