"""A representative subset of the fidelity scenarios live: an embedded cluster with one
simulated node (fast timing), the scenarios applied and watched through stock kubectl
exactly as `kubeproof fidelity --kubeconfig` does against any cluster."""

import pytest

from kubeproof.fidelity.live import Kubectl, run_live
from kubeproof.fidelity.runner import run_all
from kubeproof.fidelity.scenario import load, select
from kubeproof.nodesim.timing import FAST

pytestmark = pytest.mark.cluster

# chosen to cover images, config errors, probes, phases, init containers, sidecars,
# deletion and deadlines, and to hold under the fast profile (whose kubelet durations are a
# tenth, while probe periods and commands keep theirs)
SUBSET = [
    "pull-create-start",
    "pull-tag-not-found",
    "invalid-image-name-uppercase",
    "never-pull-policy-image-absent",
    "env-secret-missing",
    "volume-configmap-missing",
    "readiness-http-404",
    "readiness-tcp-refused",
    "multiple-containers-unready-list",
    "exit-code-never-fails-pod",
    "init-failure-never-fails-pod",
    "sidecar-stopped-after-main-containers",
    "active-deadline-fails-pod",
    "readiness-gate-missing-condition",
    "delete-shell-waits-grace-period",
]


@pytest.fixture(scope="module")
def fast_cluster(binaries_built):
    from kubeproof.cluster import EmbeddedCluster

    with EmbeddedCluster(nodes=1, timing="fast") as cluster:
        yield cluster


def test_a_representative_subset_matches_live(fast_cluster):
    kubectl = Kubectl(fast_cluster.admin_kubeconfig)
    scenarios = select(load(), SUBSET)
    results = run_all(scenarios, lambda s: run_live(s, kubectl, FAST), parallel=5)
    report = []
    for r in results:
        if r.error:
            report.append(f"{r.scenario}: {r.error}")
        report += [
            f"{r.scenario}: {c.what}: expected {c.expected!r}, observed {c.observed!r}"
            for c in r.checks if not c.matched
        ]  # fmt: skip
    assert not report, "\n".join(report)
    assert all(r.total for r in results)
    # every scenario cleaned up its namespace (deletion may still be in progress)
    done = fast_cluster.kubectl("get", "namespaces", "-l", "kubeproof.dev/fidelity", "-o", "name")
    terminating = fast_cluster.kubectl(
        "get", "namespaces", "-l", "kubeproof.dev/fidelity",
        "--field-selector", "status.phase=Active", "-o", "name",
    )  # fmt: skip
    assert not terminating.stdout.strip(), done.stdout
