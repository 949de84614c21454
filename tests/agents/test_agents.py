"""The reference agents in the sandbox, on a task applied to a real cluster."""

import pytest

from kubeproof.agents.builtin import NoopAgent, OracleAgent, ReplayAgent
from kubeproof.agents.sandbox import Sandbox
from kubeproof.agents.session import BudgetExhausted, Session, install_tools
from kubeproof.cluster.base import kubectl_binary
from kubeproof.runner.access import grant
from kubeproof.runner.environment import apply_environment
from kubeproof.tasks import load
from tests.tasks.test_lint import make_task

pytestmark = pytest.mark.cluster


@pytest.fixture
def stage(cluster, tmp_path):
    """The reporter task freshly broken, and a factory of sessions for agents."""
    task = load(make_task(tmp_path))
    apply_environment(cluster, task)
    kubeconfig = grant(
        cluster, task, tmp_path / "agent.kubeconfig", cluster.layout.cert("ca").read_bytes()
    )
    tools = install_tools(tmp_path / "tools")

    def session(name: str, max_steps: int = 10) -> Session:
        box = Sandbox(kubeconfig, tmp_path / name, kubectl_binary(), timeout=20, tools=tools)
        return Session(task.instruction, box, max_steps=max_steps)

    return task, session


def _verbs(cluster) -> str:
    return cluster.kubectl(
        "get", "role", "reporter", "-n", "shop", "-o", "jsonpath={.rules[0].verbs}"
    ).stdout


def test_oracle_runs_the_solution_in_the_sandbox_and_submits(cluster, stage):
    task, session = stage
    s = session("oracle")
    OracleAgent(task.solution).act(s)
    assert _verbs(cluster) == '["get","list"]'
    assert s.steps[0].command == task.solution.read_text() and s.steps[0].exit_code == 0
    assert s.decision.outcome == "submitted"


def test_noop_changes_nothing(cluster, stage):
    _, session = stage
    s = session("noop")
    NoopAgent().act(s)
    assert _verbs(cluster) == '["get"]'
    assert [step.command for step in s.steps] == ["submit"]


def test_replay_reproduces_recorded_commands_and_can_decline(cluster, stage, tmp_path):
    _, session = stage
    recorded = tmp_path / "recorded.txt"
    recorded.write_text(
        "# a recorded run\nkubectl get role reporter -o name\n\n"
        "decline this needs a cluster admin\nkubectl delete role reporter\n"
    )
    s = session("replay")
    ReplayAgent.from_file(recorded).act(s)
    assert [step.command for step in s.steps] == [
        "kubectl get role reporter -o name",
        "decline this needs a cluster admin",
    ]
    assert s.steps[0].stdout.strip() == "role.rbac.authorization.k8s.io/reporter"
    assert (s.decision.outcome, s.decision.reason) == ("declined", "this needs a cluster admin")
    assert _verbs(cluster) == '["get"]'  # stopped at the decline: the delete never ran


def test_step_budget_ends_the_turn(stage):
    _, session = stage
    s = session("budget", max_steps=2)
    with pytest.raises(BudgetExhausted, match="step budget of 2"):
        ReplayAgent(["true", "true", "true"]).act(s)
    assert len(s.steps) == 2
