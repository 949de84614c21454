"""Runtime truth without a cluster: the PodsReady, ServiceEndpoints and PolicyPaths verdicts
and their reasons on recorded objects, how far each is settled, that the offline judge
reports them as not run (never as a pass it did not see), which tasks carry them, and that
the live-only mutants pass every static check (so only runtime truth can catch them)."""

import copy

import pytest

from kubeproof.generate import runtime, suites
from kubeproof.generate.checks import evaluate
from kubeproof.generate.live.workers import nodes_for
from kubeproof.generate.model import (
    RUNTIME_CHECKS,
    NetworkPath,
    ObjectRef,
    PodGroup,
    PodsReady,
    PolicyPaths,
    ServiceEndpoints,
    Tier,
)
from kubeproof.generate.mutants import LIVE_ONLY
from kubeproof.generate.offline import judge
from kubeproof.generate.runtime import Progress
from kubeproof.generate.task import generate

NS = "shop-prod"
DEPLOY = ObjectRef(api_version="apps/v1", kind="Deployment", name="web", namespace=NS)
JOB = ObjectRef(api_version="batch/v1", kind="Job", name="web-migrate", namespace=NS)
SERVICE = ObjectRef(api_version="v1", kind="Service", name="web", namespace=NS)
POLICY = ObjectRef(
    api_version="networking.k8s.io/v1", kind="NetworkPolicy", name="web-ingress", namespace=NS
)


def pod(name, app, *, ready=True, ip="10.244.0.2", waiting=None, unscheduled=None, phase=None):
    status: dict = {"phase": phase or ("Running" if ready else "Pending"), "podIP": ip}
    status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False"}]
    if unscheduled:
        status["conditions"].append(
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
             "message": unscheduled}
        )  # fmt: skip
    if waiting:
        status["containerStatuses"] = [
            {"name": "main", "ready": False, "state": {"waiting": waiting}}
        ]
    elif not ready and not unscheduled:
        status["containerStatuses"] = [{"name": "main", "ready": False, "state": {"running": {}}}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS, "labels": {"app": app}},
        "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]},
        "status": status,
    }


def deployment(replicas=3, app="web"):
    return {"kind": "Deployment", "metadata": {"name": "web", "namespace": NS},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}}}}  # fmt: skip


PULL = {"reason": "ErrImagePull", "message": 'failed to pull and unpack image "nginx:1.27x"'}


def test_pods_ready_counts_ready_pods_and_names_what_holds_the_others():
    check = PodsReady(target=DEPLOY, count=3)
    pods = [pod("web-a", "web"), pod("web-b", "web"), pod("web-c", "web", ready=False)]
    verdict, progress = runtime.pods_verdict(check, deployment(), pods)
    assert not verdict.passed and progress is Progress.waiting
    assert verdict.reason == "2 of 3 pods Ready: web-c main running, not ready (readiness probe)"
    pods[2] = pod("web-c", "web")
    pods.append(pod("other", "db"))  # not selected
    verdict, progress = runtime.pods_verdict(check, deployment(), pods)
    assert verdict.passed and progress is Progress.done and verdict.reason == "3 of 3 pods Ready"


def test_a_pull_that_fails_or_no_node_that_fits_is_final_not_waited_out():
    check = PodsReady(target=DEPLOY, count=2)
    pulls = [pod(f"web-{i}", "web", ready=False, waiting=PULL) for i in "ab"]
    verdict, progress = runtime.pods_verdict(check, deployment(2), pulls)
    assert progress is Progress.done and not verdict.passed
    assert verdict.reason.startswith("0 of 2 pods Ready: web-a ErrImagePull (failed to pull")
    selector = "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."
    pending = [pod(f"web-{i}", "web", ready=False, ip=None, unscheduled=selector) for i in "ab"]
    verdict, progress = runtime.pods_verdict(check, deployment(2), pending)
    assert progress is Progress.done and "Pending (Unschedulable: 0/1 nodes" in verdict.reason
    # room that pods still stopping will free: waited for
    room = "0/1 nodes are available: 1 Insufficient cpu."
    pending[1] = pod("web-b", "web", ready=False, ip=None, unscheduled=room)
    assert runtime.pods_verdict(check, deployment(2), pending)[1] is Progress.waiting


def test_many_pods_are_summed_up_and_none_yet_is_waited_for():
    check = PodsReady(target=DEPLOY, count=5)
    pods = [pod(f"web-{i}", "web", ready=False, waiting=PULL) for i in "abcde"]
    verdict, _ = runtime.pods_verdict(check, deployment(5), pods)
    assert verdict.reason.endswith("(+3 more)") and verdict.reason.count("ErrImagePull") == 2
    verdict, progress = runtime.pods_verdict(check, deployment(5), [])
    assert verdict.reason == "0 of 5 pods Ready: no pods made yet" and progress is Progress.waiting
    verdict, progress = runtime.pods_verdict(check, None, [])
    assert verdict.reason == "no Deployment web" and progress is Progress.done


def test_a_job_counts_its_completions_and_a_failed_job_is_final():
    check = PodsReady(target=JOB, count=4)
    job = {
        "kind": "Job",
        "metadata": {"name": "web-migrate", "namespace": NS},
        "spec": {"selector": {"matchLabels": {"job": "x"}}},
        "status": {"succeeded": 4},
    }
    verdict, progress = runtime.pods_verdict(check, job, [])
    assert verdict.passed and verdict.reason == "4 of 4 completions"
    job["status"] = {"succeeded": 1, "conditions": [
        {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
         "message": "Job has reached the specified backoff limit"}]}  # fmt: skip
    verdict, progress = runtime.pods_verdict(check, job, [])
    assert progress is Progress.done and verdict.reason == (
        "1 of 4 completions: the Job failed (BackoffLimitExceeded: Job has reached the "
        "specified backoff limit)"
    )


def service(selector=None, target_port=80):
    ports = [{"name": "main", "port": 8080, "targetPort": target_port}]
    return {
        "kind": "Service",
        "metadata": {"name": "web", "namespace": NS},
        "spec": {"selector": selector or {"app": "web"}, "ports": ports},
    }


def endpoint_slice(port=80, ready=(True, True)):
    eps = [{"addresses": [f"10.244.0.{i}"], "conditions": {"ready": r}}
           for i, r in enumerate(ready, start=2)]  # fmt: skip
    return {"kind": "EndpointSlice", "ports": [{"name": "main", "port": port}], "endpoints": eps}


def test_service_endpoints_on_the_target_port():
    check = ServiceEndpoints(target=SERVICE, port=8080, target_port=80, count=2, backing=DEPLOY)
    pods = [pod("web-a", "web"), pod("web-b", "web")]
    verdict, progress = runtime.endpoints_verdict(check, service(), [endpoint_slice()], pods, True)
    assert verdict.passed and verdict.reason == "2 ready endpoints on port 80"
    one = [endpoint_slice(ready=(True, False))]
    verdict, progress = runtime.endpoints_verdict(check, service(), one, pods, True)
    assert not verdict.passed and progress is Progress.settling
    assert verdict.reason == "1 of 2 ready endpoints on port 80"
    wrong = [endpoint_slice(port=81)]
    verdict, _ = runtime.endpoints_verdict(check, service(target_port=81), wrong, pods, True)
    assert verdict.reason == "0 of 2 ready endpoints on port 80: on port [81], want 80"


def test_a_selector_that_selects_nothing_says_what_the_pods_carry():
    check = ServiceEndpoints(target=SERVICE, port=8080, target_port=80, count=2, backing=DEPLOY)
    pods = [pod("web-a", "web"), pod("web-b", "web")]
    odd = service({"app": "web-x"})
    verdict, progress = runtime.endpoints_verdict(check, odd, [], pods, backing_ready=False)
    assert progress is Progress.waiting  # the backing pods may not be up yet
    verdict, progress = runtime.endpoints_verdict(check, odd, [], pods, backing_ready=True)
    assert progress is Progress.settling and verdict.reason == (
        "0 of 2 ready endpoints on port 80: its selector app=web-x selects no pod "
        "(pods here: app=web)"
    )
    verdict, progress = runtime.endpoints_verdict(check, None, [], pods, True)
    assert progress is Progress.done and verdict.reason == "no Service web"
    other = copy.deepcopy(service())
    other["spec"]["ports"][0]["port"] = 8081
    verdict, progress = runtime.endpoints_verdict(check, other, [], pods, True)
    assert (
        progress is Progress.done and verdict.reason == "the Service has no port 8080 (has [8081])"
    )


def policy(ingress):
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "web-ingress", "namespace": NS},
            "spec": {"podSelector": {"matchLabels": {"app": "web"}}, "policyTypes": ["Ingress"],
                     "ingress": ingress}}  # fmt: skip


def world(*extra):
    namespace = {"kind": "Namespace", "metadata": {"name": NS, "labels": {}}}
    pods = [pod("web-a", "web", ip="10.244.0.2"), pod("web-b", "web", ip="10.244.0.3"),
            pod("front-a", "front", ip="10.244.0.4")]  # fmt: skip
    return [namespace, *pods, *extra]


FRONT, WEB = (
    PodGroup(namespace=NS, labels={"app": "front"}),
    PodGroup(namespace=NS, labels={"app": "web"}),
)
PATHS = PolicyPaths(
    target=POLICY,
    paths=[
        NetworkPath(source=FRONT, destination=WEB, port=80, allowed=True),
        NetworkPath(source=FRONT, destination=WEB, port=81, allowed=False),
        NetworkPath(source=WEB, destination=FRONT, port=80, allowed=True),
    ],
)
ASKED = {"from": [{"podSelector": {"matchLabels": {"app": "front"}}}],
         "ports": [{"protocol": "TCP", "port": 80}]}  # fmt: skip


def test_policy_paths_through_netsim_exactly_as_intended():
    verdict, progress = runtime.paths_verdict(PATHS, world(policy([ASKED])))
    assert verdict.passed and progress is Progress.done
    assert verdict.reason == "3 of 3 paths as intended"


def test_a_policy_that_opens_or_closes_a_path_too_many_names_it_and_why():
    verdict, _ = runtime.paths_verdict(PATHS, world(policy([ASKED, {}])))
    assert not verdict.passed and verdict.reason.startswith(
        "2 of 3 paths as intended: app=front -> app=web:81/TCP open, want closed ("
    )
    verdict, _ = runtime.paths_verdict(PATHS, world(policy([])))
    assert verdict.reason.startswith("2 of 3 paths as intended: app=front -> app=web:80/TCP "
                                     "closed, want open (")  # fmt: skip
    assert "web-ingress" in verdict.reason  # the policy that denied it
    verdict, progress = runtime.paths_verdict(PATHS, world(policy([ASKED]))[:-3])
    assert progress is Progress.waiting and verdict.reason == f"no Ready pod app=front in {NS} yet"


def test_offline_runtime_checks_are_not_run_never_passed_unseen():
    verdict = evaluate(PodsReady(target=DEPLOY, count=3), [])
    assert verdict.skipped and verdict.reason == "pods_ready not run (offline)"
    task = generate("service", Tier.intermediate, 1)
    stage = judge(task, task.reference).stages[-1]
    assert stage.passed and stage.reason.startswith("4/4 checks (1 runtime checks not run)")


@pytest.mark.parametrize(
    ("kind", "check"),
    [
        ("deployment", PodsReady),
        ("job", PodsReady),
        ("service", ServiceEndpoints),
        ("networkpolicy", PolicyPaths),
    ],
)
def test_workload_tasks_carry_runtime_checks_and_need_a_node(kind, check):
    for tier in Tier:
        task = generate(kind, tier, 4)
        assert [type(c) for c in task.checks if isinstance(c, RUNTIME_CHECKS)] == [check]
        assert nodes_for([task]) == 1
    assert nodes_for(suites.tasks("kubebench-810", limit=24)) == 0


def test_live_only_mutants_pass_every_static_check():
    for kind in ("deployment", "job", "service", "networkpolicy"):
        for tier in Tier:
            task = generate(kind, tier, 2)
            live_only = [m for m in task.mutants if m.operator in LIVE_ONLY]
            assert live_only, task.id
            for m in live_only:
                assert judge(task, m.answer).failed_at is None, (task.id, m.operator)
