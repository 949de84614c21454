"""netsim's verdict on each probe of a case beside the independent engine's, and every
disagreement put in a class that says whose semantics it is (docs/netsim.md, Cross-check).

A class is proved per probe, not guessed: the engine's simplifier is blamed only when the
engine's verdict on the policies as written agrees with netsim, and its NotIn reading only
when netsim, given the case rewritten into the engine's reading, agrees with the engine.
"""

import copy
from collections.abc import Callable
from dataclasses import dataclass

from kubeproof.netsim import policy
from kubeproof.netsim.connect import Network
from kubeproof.netsim.crosscheck.cases import Case, Probe
from kubeproof.netsim.objects import Objects

AGREE = "agree"
UNEXPLAINED = "unexplained"


@dataclass(frozen=True)
class Deviation:
    name: str
    whose: str  # netsim, engine, model
    explanation: str


ENGINE_NOTIN = Deviation(
    "engine-notin-needs-key",
    "engine",
    "cyclonus reads `key NotIn (values)` as false for an object without the key "
    "(pkg/kube/labelselector.go:38-50, v0.5.6); Kubernetes matches it "
    "(k8s.io/apimachinery pkg/labels/selector.go:255-260, Requirement.Matches; "
    "kubernetes/kubernetes#81149 closed as intended), as netsim does",
)
ENGINE_SIMPLIFIER = Deviation(
    "engine-simplifier",
    "engine",
    "cyclonus's policy simplifier (matcher.Simplify, used by its analyze command) changes "
    "the verdict: the policies as written give netsim's",
)
DEVIATIONS = {d.name: d for d in (ENGINE_NOTIN, ENGINE_SIMPLIFIER)}


@dataclass(frozen=True)
class ProbeResult:
    probe: Probe
    netsim: bool
    engine: bool
    verdict: str  # AGREE, a Deviation's name, or UNEXPLAINED


def _network(objects: list[dict]) -> Network:
    # policy verdicts only: every pod listens on every port, and no stand-in DNS pod
    return Network(Objects.build(objects, virtual_dns=False), listening=lambda *_: True)


def netsim_verdicts(case: Case, objects: list[dict] | None = None) -> list[bool]:
    net = _network(objects if objects is not None else case.objects())
    verdicts = []
    for probe in case.probes:
        if probe.source.pod is not None:
            target = probe.target.ip
            if probe.target.pod is not None:
                target = net.objects.pods[probe.target.pod].ip
            where = f"{target}:{probe.port}/{probe.protocol}"
            verdicts.append(net.connect(probe.source.pod, where).allowed)
        else:  # from outside the cluster: the destination's ingress alone
            dst = net.objects.pods[probe.target.pod or ""]
            decision = policy.evaluate(
                net.objects, "Ingress", dst, None, probe.source.ip, probe.port, probe.protocol, dst
            )
            verdicts.append(decision.allowed)
    return verdicts


def _rewrite_selectors(objects: list[dict], rewrite: Callable[[dict], None]) -> list[dict]:
    objects = copy.deepcopy(objects)
    for obj in objects:
        if obj["kind"] != "NetworkPolicy":
            continue
        spec = obj["spec"]
        rewrite(spec.get("podSelector") or {})
        for direction, peers_key in (("ingress", "from"), ("egress", "to")):
            for rule in spec.get(direction) or []:
                for peer in rule.get(peers_key) or []:
                    for key in ("podSelector", "namespaceSelector"):
                        if peer.get(key) is not None:
                            rewrite(peer[key])
    return objects


def _notin_needs_key(selector: dict) -> None:
    """The engine's NotIn, said in Kubernetes' terms: the key must also exist."""
    expressions = selector.get("matchExpressions") or []
    for expression in list(expressions):
        if expression["operator"] == "NotIn":
            expressions.append({"key": expression["key"], "operator": "Exists"})


def compare(case: Case, answer: dict, mine: list[bool] | None = None) -> list[ProbeResult]:
    """`answer`: the engine's for this case; an "error" answer is a ValueError (the
    generator made a policy the apiserver refuses). `mine`: netsim's verdicts on the case,
    if already computed."""
    if "error" in answer:
        raise ValueError(f"case {case.seed}/{case.index}: {answer['error']}")
    engine = answer["verdicts"]
    if len(engine) != len(case.probes):
        raise ValueError(f"case {case.seed}/{case.index}: {len(engine)} verdicts")
    if mine is None:
        mine = netsim_verdicts(case)
    notin_reading: list[bool] | None = None
    results = []
    for index, (probe, ours, theirs) in enumerate(zip(case.probes, mine, engine, strict=True)):
        verdict = AGREE
        if ours != theirs["allowed"]:
            verdict = UNEXPLAINED
            if theirs["unsimplified"] == ours:
                verdict = ENGINE_SIMPLIFIER.name
            else:
                if notin_reading is None:
                    rewritten = _rewrite_selectors(case.objects(), _notin_needs_key)
                    notin_reading = netsim_verdicts(case, rewritten)
                if notin_reading[index] == theirs["allowed"]:
                    verdict = ENGINE_NOTIN.name
        results.append(ProbeResult(probe, ours, theirs["allowed"], verdict))
    return results
