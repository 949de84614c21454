"""Properties every NetworkPolicy evaluation must keep, over generated worlds."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubeproof.netsim import Network
from kubeproof.netsim import matrix as mx
from tests.netsim.builders import namespace, netpol, pod

ROLES = ["fe", "be", "db"]
NAMESPACES = ["a", "b"]

labels = st.fixed_dictionaries({"role": st.sampled_from(ROLES)})
selector = st.one_of(
    st.just({}),
    st.builds(lambda r: {"matchLabels": {"role": r}}, st.sampled_from(ROLES)),
)
peer = st.one_of(
    st.builds(lambda s: {"podSelector": s}, selector),
    st.builds(
        lambda n: {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": n}}},
        st.sampled_from(NAMESPACES),
    ),
    st.builds(
        lambda s, n: {
            "podSelector": s,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": n}},
        },
        selector,
        st.sampled_from(NAMESPACES),
    ),
    st.just({"ipBlock": {"cidr": "10.244.0.0/16", "except": ["10.244.1.0/24"]}}),
)
ports = st.one_of(
    st.none(),
    st.lists(
        st.builds(lambda p: {"port": p, "protocol": "TCP"}, st.sampled_from([80, 443, 8080])),
        min_size=1,
        max_size=2,
    ),
)
rule = st.builds(
    lambda peers, p: {k: v for k, v in (("from", peers), ("ports", p)) if v},
    st.one_of(st.none(), st.lists(peer, min_size=1, max_size=2)),
    ports,
)
policy_spec = st.builds(
    lambda sel, rules, types: {"podSelector": sel, "ingress": rules, "policyTypes": types},
    selector,
    st.lists(rule, max_size=2),
    st.sampled_from([["Ingress"], ["Ingress", "Egress"]]),
)
policies = st.lists(st.tuples(st.sampled_from(NAMESPACES), policy_spec), max_size=4)
pods = st.lists(st.tuples(st.sampled_from(NAMESPACES), labels), min_size=2, max_size=5)


def build(pod_specs, policy_specs) -> list[dict]:
    objects = [namespace(n) for n in NAMESPACES]
    for i, (ns, lab) in enumerate(pod_specs):
        objects.append(pod(f"{ns}/p{i}", f"10.244.{i % 2}.{i + 2}", lab))
    for i, (ns, spec) in enumerate(policy_specs):
        objects.append(netpol(f"{ns}/pol{i}", spec))
    return objects


def allowed_set(objects) -> set[tuple[str, str]]:
    net = Network.from_objects(objects)
    sources = mx.default_sources(net, NAMESPACES)
    targets = [f"{net.objects.pods[s].ip}:{p}" for s in sources for p in (80, 443, 8080)]
    return {k for k, v in mx.compute(net, sources, targets).items() if v.allowed}


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(pods, policies.filter(bool), st.data(), rule)
def test_adding_a_rule_never_removes_connectivity(pod_specs, policy_specs, data, extra):
    before = allowed_set(build(pod_specs, policy_specs))
    index = data.draw(st.integers(0, len(policy_specs) - 1))
    ns, spec = policy_specs[index]
    widened = [*policy_specs]
    widened[index] = (ns, {**spec, "ingress": [*spec["ingress"], extra]})
    assert before <= allowed_set(build(pod_specs, widened))


@SETTINGS
@given(pods, policies, st.sampled_from(NAMESPACES))
def test_a_policy_that_selects_no_pod_changes_nothing(pod_specs, policy_specs, ns):
    nobody = (
        ns,
        {"podSelector": {"matchLabels": {"role": "nobody"}}, "policyTypes": ["Ingress", "Egress"]},
    )
    assert allowed_set(build(pod_specs, policy_specs)) == allowed_set(
        build(pod_specs, [*policy_specs, nobody])
    )


@SETTINGS
@given(pods, st.lists(rule, max_size=2))
def test_default_deny_leaves_only_what_a_rule_allows(pod_specs, rules):
    deny = [(n, {"podSelector": {}, "policyTypes": ["Ingress"]}) for n in NAMESPACES]
    assert allowed_set(build(pod_specs, deny)) == {
        (s, t)
        for s, t in allowed_set(build(pod_specs, []))
        if t.startswith(Network.from_objects(build(pod_specs, [])).pod(s).ip + ":")
    }  # only a pod reaching itself survives default deny
    allow = [
        (n, {"podSelector": {}, "ingress": rules, "policyTypes": ["Ingress"]}) for n in NAMESPACES
    ]
    with_rules = allowed_set(build(pod_specs, deny + allow))
    assert with_rules <= allowed_set(build(pod_specs, allow))
    assert with_rules == allowed_set(build(pod_specs, allow))
