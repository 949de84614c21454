"""A task's stage and the agent's identity on a real cluster, used from the sandbox."""

import pytest

from kubeproof.agents.sandbox import Sandbox
from kubeproof.cluster.base import kubectl_binary
from kubeproof.runner.access import grant
from kubeproof.runner.environment import apply_environment
from kubeproof.tasks import load
from tests.tasks.test_lint import make_task

pytestmark = pytest.mark.cluster


def test_agent_gets_exactly_the_tasks_rules_and_nothing_else(cluster, tmp_path):
    task = load(make_task(tmp_path))
    apply_environment(cluster, task)
    role = cluster.kubectl(
        "get", "role", "reporter", "-n", "shop", "-o", "jsonpath={.rules[0].verbs}"
    ).stdout
    assert role == '["get"]'  # the break was applied after the setup
    kubeconfig = grant(
        cluster, task, tmp_path / "agent.kubeconfig", cluster.layout.cert("ca").read_bytes()
    )
    box = Sandbox(kubeconfig, tmp_path / "scratch", kubectl_binary(), timeout=20)

    def can(*args):
        return box.run("kubectl auth can-i " + " ".join(args)).stdout.strip()

    assert can("patch", "roles", "-n", "shop") == "yes"
    assert can("list", "pods", "-n", "shop") == "yes"
    assert can("get", "pods/log", "-n", "shop") == "yes"
    assert can("delete", "pods", "-n", "shop") == "no"
    assert can("list", "secrets", "-n", "shop") == "no"
    assert can("list", "pods", "-n", "default") == "no"
    assert can("create", "clusterrolebindings") == "no"
    # its default namespace is the task's, so plain commands act there
    assert box.run("kubectl get role reporter -o name").stdout.strip() == (
        "role.rbac.authorization.k8s.io/reporter"
    )
    # and it cannot read its own identity's objects or token
    assert can("get", "serviceaccounts", "-n", "kubeproof-agent") == "no"
