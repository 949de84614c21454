"""netsim benchmark: the connectivity matrix of 50 pods x 20 Services x 3 ports under 30
NetworkPolicies (target: under 1 s), measured beside the same matrix with no policies.

    python benchmarks/netsim.py [--pods 50] [--services 20] [--policies 30] [--json out.json]
"""

import argparse
import random
import statistics
import sys
import time

from rich.table import Table

from kubeproof.netsim import Network
from kubeproof.netsim import matrix as mx
from report import publish


def world(pods: int, services: int, policies: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    namespaces = [f"ns{i}" for i in range(5)]
    objects: list[dict] = [
        {"kind": "Namespace", "metadata": {"name": n, "labels": {"tier": f"t{i % 3}"}}}
        for i, n in enumerate(namespaces)
    ]
    apps = [f"app{i}" for i in range(services)]
    for i in range(pods):
        app = apps[i % services]
        objects.append(
            {
                "kind": "Pod",
                "metadata": {
                    "name": f"pod{i}",
                    "namespace": namespaces[(i % services) % 5],
                    "labels": {"app": app, "role": rng.choice(["fe", "be", "db"])},
                },
                "spec": {
                    "containers": [
                        {
                            "name": "c",
                            "ports": [
                                {"containerPort": 8000 + k, "name": f"p{k}"} for k in range(3)
                            ],
                        }
                    ]
                },
                "status": {
                    "podIP": f"10.244.{i // 250}.{i % 250 + 2}",
                    "phase": "Running",
                    "conditions": [{"type": "Ready", "status": "True"}],
                },
            }
        )
    for s, app in enumerate(apps):
        objects.append(
            {
                "kind": "Service",
                "metadata": {"name": f"svc{s}", "namespace": namespaces[s % 5]},
                "spec": {
                    "selector": {"app": app},
                    "clusterIP": f"10.96.1.{s + 1}",
                    "ports": [
                        {"name": f"p{k}", "port": 80 + k, "targetPort": f"p{k}"} for k in range(3)
                    ],
                },
            }
        )
    for p in range(policies):
        ns = namespaces[p % 5]
        objects.append(
            {
                "kind": "NetworkPolicy",
                "metadata": {"name": f"pol{p}", "namespace": ns},
                "spec": {
                    "podSelector": {"matchLabels": {"role": rng.choice(["fe", "be", "db"])}},
                    "policyTypes": rng.choice([["Ingress"], ["Ingress", "Egress"]]),
                    "ingress": [
                        {
                            "from": [
                                {
                                    "namespaceSelector": {"matchLabels": {"tier": f"t{p % 3}"}},
                                    "podSelector": {"matchLabels": {"role": "fe"}},
                                }
                            ],
                            "ports": [{"port": f"p{p % 3}"}],
                        }
                    ],
                    "egress": [
                        {"to": [{"podSelector": {}}]},
                        {"ports": [{"protocol": "UDP", "port": 53}]},
                    ],
                },
            }
        )
    return objects


def timed(objects: list[dict], namespaces: list[str], repeats: int) -> dict:
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        net = Network.from_objects(objects)
        result = mx.compute(
            net, mx.default_sources(net, namespaces), mx.default_targets(net, namespaces)
        )
        seconds.append(time.perf_counter() - started)
    allowed = sum(v.allowed for v in result.values())
    return {
        "cells": len(result),
        "allowed": allowed,
        "median_s": round(statistics.median(seconds), 4),
        "min_s": round(min(seconds), 4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pods", type=int, default=50)
    parser.add_argument("--services", type=int, default=20)
    parser.add_argument("--policies", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    namespaces = [f"ns{i}" for i in range(5)]
    with_policies = timed(world(args.pods, args.services, args.policies), namespaces, args.repeats)
    without = timed(world(args.pods, args.services, 0), namespaces, args.repeats)
    result = {
        "pods": args.pods,
        "services": args.services,
        "ports_per_service": 3,
        "policies": args.policies,
        "with_policies": with_policies,
        "no_policies": without,
        "budget_s": 1.0,
        "ratio_to_budget": round(with_policies["median_s"] / 1.0, 3),
        "policy_overhead": round(with_policies["median_s"] / max(without["median_s"], 1e-9), 2),
    }
    table = Table(
        "matrix", "cells", "allowed", "median (s)", "budget (s)", title="netsim connectivity matrix"
    )
    table.add_row(
        f"{args.policies} policies",
        str(with_policies["cells"]),
        str(with_policies["allowed"]),
        str(with_policies["median_s"]),
        "1.0",
    )
    table.add_row(
        "no policies", str(without["cells"]), str(without["allowed"]), str(without["median_s"]), ""
    )
    publish(table, result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
