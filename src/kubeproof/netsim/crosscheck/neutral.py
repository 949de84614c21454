"""A case said so that `key NotIn (values)` means the same in both readings of a missing key.

Kubernetes matches `key NotIn (values)` on an object without the key (k8s.io/apimachinery
pkg/labels/selector.go, Requirement.Matches); cyclonus v0.5.6 does not
(pkg/kube/labelselector.go). A selector with NotIn is therefore rewritten into selectors that
are OR-ed where the API ORs them, one per choice for each NotIn expression:

- `key DoesNotExist`, or
- `key NotIn (values)` together with `key Exists`.

Both readings give each branch the same meaning, and in Kubernetes' reading the branches
together match exactly what the original selector matched. Peers of a rule are OR-ed, so a
peer becomes one peer per combination of its pod and namespace selectors' branches; the
policies selecting a pod are OR-ed too (their rules add up, and a pod is isolated when any
selects it), so a policy becomes one policy per branch of its `podSelector`, with the same
rules and policyTypes. The engine's verdicts on this form judge Kubernetes' semantics, and
netsim must give the same verdicts on both forms — `tests/netsim/test_crosscheck.py` holds
it to that.
"""

import copy
import itertools

from kubeproof.netsim.crosscheck.cases import Case


def selector_branches(selector: dict | None) -> list[dict | None]:
    """`selector` as a list of selectors OR-ed, each without a reading-dependent NotIn."""
    expressions = (selector or {}).get("matchExpressions") or []
    notin = [e for e in expressions if e["operator"] == "NotIn"]
    if not notin:
        return [selector]
    others = [e for e in expressions if e["operator"] != "NotIn"]
    branches: list[dict | None] = []
    for choice in itertools.product((False, True), repeat=len(notin)):
        branch = copy.deepcopy(selector) or {}
        written = copy.deepcopy(others)
        for expression, key_present in zip(notin, choice, strict=True):
            if key_present:
                exists = {"key": expression["key"], "operator": "Exists"}
                written += [copy.deepcopy(expression), exists]
            else:
                written.append({"key": expression["key"], "operator": "DoesNotExist"})
        branch["matchExpressions"] = written
        branches.append(branch)
    return branches


def _peer_branches(peer: dict) -> list[dict]:
    pods = selector_branches(peer["podSelector"]) if peer.get("podSelector") else [None]
    spaces: list[dict | None] = [None]
    if peer.get("namespaceSelector"):
        spaces = selector_branches(peer["namespaceSelector"])
    if pods == [None] and spaces == [None]:
        return [peer]
    peers = []
    for pod_selector, namespace_selector in itertools.product(pods, spaces):
        branch = dict(peer)
        if pod_selector is not None:
            branch["podSelector"] = pod_selector
        if namespace_selector is not None:
            branch["namespaceSelector"] = namespace_selector
        peers.append(branch)
    return peers


def _policy_branches(policy: dict) -> list[dict]:
    policy = copy.deepcopy(policy)
    spec = policy["spec"]
    for direction, peers_key in (("ingress", "from"), ("egress", "to")):
        for rule in spec.get(direction) or []:
            if rule.get(peers_key):
                rule[peers_key] = [b for peer in rule[peers_key] for b in _peer_branches(peer)]
    targets = selector_branches(spec.get("podSelector"))
    if len(targets) == 1:
        return [policy]
    policies = []
    for number, target in enumerate(targets):
        branch = copy.deepcopy(policy)
        branch["metadata"]["name"] = f"{policy['metadata']['name']}-b{number}"
        branch["spec"]["podSelector"] = target
        policies.append(branch)
    return policies


def reading_neutral(case: Case) -> Case:
    """`case` with every NetworkPolicy rewritten as the module says; pods, namespaces and
    probes unchanged."""
    policies = [b for policy in case.policies for b in _policy_branches(policy)]
    return case.model_copy(update={"policies": policies})
