"""Runtime truth live, on a cluster with simulated nodes: a Service task's reference passes
S4 with its backing Deployment's pods Ready and the Service's endpoints on the target port,
a Deployment task's reference with its pods Ready; mutants that break what runs (a selector
no pod matches, a nodeSelector no node matches) fail S4 with the reason an operator reads;
and cleanup takes the answers' pods, ReplicaSets and EndpointSlices along."""

import pytest

from kubeproof.generate.live.session import JudgeSession
from kubeproof.generate.model import Stage, Tier
from kubeproof.generate.task import generate

pytestmark = pytest.mark.cluster


def _mutant(task, operator):
    return next(m.answer for m in task.mutants if m.operator == operator)


def test_pods_become_ready_the_service_gets_endpoints_and_a_broken_runtime_fails_s4(sim):
    service = generate("service", Tier.easy, 1)
    deployment = generate("deployment", Tier.easy, 1)
    with JudgeSession(sim) as session:
        session.evaluator(service.identity)
        before = session.inventory()
        ref = session.judge(service, service.reference, "reference")
        assert ref.strict_pass, ref.stages[-1].reason
        assert ref.stages[-1].reason.startswith("3/3 checks")  # the runtime one ran
        # the selector asks one label more than the pods carry: every static check passes
        narrow = session.judge(service, _mutant(service, "narrow_selector"), "narrow")
        assert narrow.failed_at is Stage.s4_checks and not narrow.error
        assert "0 of 2 ready endpoints on port" in narrow.stages[-1].reason
        assert ",tier=web selects no pod (pods here: app=" in narrow.stages[-1].reason
        ready = session.judge(deployment, deployment.reference, "reference")
        assert ready.strict_pass, ready.stages[-1].reason
        stuck = session.judge(deployment, _mutant(deployment, "unschedulable"), "unschedulable")
        assert stuck.failed_at is Stage.s4_checks and not stuck.error
        reason = stuck.stages[-1].reason
        assert "0 of " in reason and "pods Ready" in reason and "Pending (Unschedulable" in reason
        assert stuck.stages[-1].seconds < 60  # no node fits: final, not waited out
        session.finish()
        own = service.identity.namespace  # the judge's own: its defaults come a moment later
        assert {o for o in session.inventory() if o[1] != own} == {o for o in before if o[1] != own}
