"""Golden tests of the simulated kubelet's pod state machine on a fake clock: a pod spec in,
the events and statuses a v1.36.3 kubelet would show out, with their times. No cluster; each
expectation cites the upstream source it follows (k8s.io/kubernetes v1.36.3)."""

import itertools

import pytest

from kubeproof.fidelity.golden import pod_object, simulate
from kubeproof.nodesim import images
from kubeproof.nodesim.timing import FAST, Backoff, go_duration

UID = "00000000-0000-4000-8000-000000000001"
SLEEP = {"name": "app", "image": "busybox:1.36", "command": ["sleep", "3600"]}


def container(status: dict, name: str = "app", init: bool = False) -> dict:
    key = "initContainerStatuses" if init else "containerStatuses"
    return next(c for c in status[key] if c["name"] == name)


def condition(status: dict, kind: str) -> dict:
    return next(c for c in status["conditions"] if c["type"] == kind)


def reasons(trace) -> list[str]:
    return [reason for _, _, reason, _ in trace.events]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.3, "300ms"), (1.544, "1.544s"), (10, "10s"), (80, "1m20s"), (300, "5m0s"),
     (3600, "1h0m0s"), (0, "0s")],
)  # fmt: skip
def test_durations_print_as_go_prints_them(seconds, text):
    # time.Duration.String (Go's src/time/time.go), used by every kubelet message with %v
    assert go_duration(seconds) == text


def test_backoff_doubles_to_its_cap_and_is_forgotten_after_twice_the_cap():
    # k8s.io/client-go/util/flowcontrol/backoff.go: Next doubles, capped; hasExpired after 2 x max
    b = Backoff(10, 300)
    delays = []
    for t in range(8):
        b.next(t)
        delays.append(b.delay)
    assert delays == [10, 20, 40, 80, 160, 300, 300, 300]
    b.next(8 + 601)
    assert b.delay == 10


def test_events_of_a_first_start_are_the_kubelets_words():
    # image_manager.go:361,374 (Pulling, Pulled with Go durations truncated to ms);
    # kuberuntime_container.go:289,298 ("Container created", "Container started")
    trace = simulate(pod_object({"containers": [{"name": "web", "image": "nginx:1.27"}]}), 10)
    assert trace.event_lines() == [
        '0 Normal Pulling: Pulling image "nginx:1.27"',
        '0 Normal Pulled: Successfully pulled image "nginx:1.27" in 1.532s (1.532s including '
        "waiting). Image size: 71273870 bytes.",
        "1.532 Normal Created: Container created",
        "1.532 Normal Started: Container started",
    ]


def test_an_image_on_the_node_is_not_pulled_again():
    # image_manager.go:257 with KubeletEnsureSecretPulledImages (beta, on since 1.35)
    trace = simulate(
        pod_object({"containers": [SLEEP]}), 5, images={"docker.io/library/busybox:1.36"}
    )
    assert trace.events[0][3] == (
        'Container image "busybox:1.36" already present on machine and can be accessed by the pod'
    )


def test_a_container_shows_running_only_once_the_pleg_relists():
    # pleg/generic.go relist (1 s): status is generated from what the runtime reported
    trace = simulate(pod_object({"containers": [SLEEP]}), 5)
    assert container(trace.status_at(0.9))["state"] == {"waiting": {"reason": "ContainerCreating"}}
    running = container(trace.status_at(1.5))
    assert "running" in running["state"] and running["ready"] and running["started"]
    assert trace.status_at(1.5)["phase"] == "Running"


def test_a_container_that_dies_at_once_is_never_ready_and_crash_loops_as_upstream():
    # busybox without a command exits at once: first seen exited (never Running/Ready), restarted
    # at once (doBackOff: no back-off entry yet, kuberuntime_manager.go:1908-1940), then
    # back-off 10 s, 20 s, 40 s counted from each exit; RESTARTS 1 when CrashLoopBackOff shows
    trace = simulate(pod_object({"containers": [{"name": "app", "image": "busybox:1.36"}]}), 120)
    assert not any(container(s)["ready"] for _, s in trace.statuses)
    assert not any("running" in container(s)["state"] for _, s in trace.statuses)
    loops = [
        (t, container(s)) for t, s in trace.statuses
        if container(s)["state"].get("waiting", {}).get("reason") == "CrashLoopBackOff"
    ]  # fmt: skip
    first = loops[0][1]
    assert first["restartCount"] == 1
    assert first["state"]["waiting"]["message"] == (
        f"back-off 10s restarting failed container=app pod=p_default({UID})"
    )
    assert first["lastState"]["terminated"]["reason"] == "Completed"
    messages = {c["state"]["waiting"]["message"].split()[1] for _, c in loops}
    assert messages == {"10s", "20s", "40s", "1m20s"}  # Go's duration format
    starts = [t for t, _, reason, _ in trace.events if reason == "Started"]
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(starts)]
    # the first restart when the relist sees the exit (run 0.2 s + 1 s); then the back-off,
    # counted from the exit: 10 s, 20 s, 40 s
    assert gaps == [1.2, 10.2, 20.2, 40.2]
    assert trace.events[-1][2] == "BackOff"
    assert trace.events[-1][3] == (
        f"Back-off restarting failed container app in pod p_default({UID})"
    )


def test_the_fast_profile_divides_every_duration_by_ten():
    trace = simulate(
        pod_object({"containers": [{"name": "app", "image": "busybox:1.36"}]}), 12, timing=FAST
    )
    loops = [
        container(s)["state"]["waiting"]["message"].split()[1] for _, s in trace.statuses
        if "waiting" in container(s)["state"] and container(s)["restartCount"]
    ]  # fmt: skip
    # 1 s back-off is spent by the time the 1 s relist sees the exit: the first shown is 2 s
    assert loops[0] == "2s" and set(loops) <= {"2s", "4s", "8s", "16s", "30s"}


def test_a_missing_repository_and_a_missing_tag_fail_with_containerds_words():
    # image_manager.go:363-368, evalCRIPullErr; the CRI client strips codes.Unknown
    # (k8s.io/cri-client/pkg/remote_image.go:252-260); back-off 10 s, 20 s … (kubelet.go:180)
    missing = simulate(pod_object({"containers": [{"name": "a", "image": "nosuch/app:1"}]}), 40)
    ref = "docker.io/nosuch/app:1"
    assert missing.events[1][3] == (
        f'Failed to pull image "nosuch/app:1": failed to pull and unpack image "{ref}": '
        f'failed to resolve reference "{ref}": pull access denied, repository does not exist or '
        "may require authorization: server message: insufficient_scope: authorization failed"
    )
    assert missing.events[2][2:] == ("Failed", "Error: ErrImagePull")
    tag = simulate(pod_object({"containers": [{"name": "a", "image": "nginx:0.0.1"}]}), 5)
    waiting = container(tag.status_at(1), "a")["state"]["waiting"]
    assert waiting["reason"] == "ErrImagePull"
    assert waiting["message"].startswith(
        'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/'
        'nginx:0.0.1"'
    )
    # ErrImagePull until the pod worker's next sync (10 s), a second pull, then the back-off
    seq = [container(s, "a")["state"]["waiting"]["reason"] for _, s in missing.statuses]
    assert seq[:3] == ["ErrImagePull", "ImagePullBackOff", "ErrImagePull"]
    pulls = [t for t, _, reason, _ in missing.events if reason == "Pulling"]
    assert pulls == [0, 10, 30]  # back-off 10 s then 20 s from each failure, synced every 10 s
    backoff = next(
        container(s, "a")["state"]["waiting"]["message"] for _, s in missing.statuses
        if container(s, "a")["state"]["waiting"]["reason"] == "ImagePullBackOff"
    )  # fmt: skip
    assert backoff.startswith('Back-off pulling image "nosuch/app:1": ErrImagePull: failed to')
    assert ("Normal", "BackOff", 'Back-off pulling image "nosuch/app:1"') in [
        e[1:] for e in missing.events
    ]


def test_never_pull_policy_without_the_image():
    # image_manager.go:157 and kuberuntime_container.go:218
    spec = {"containers": [{**SLEEP, "imagePullPolicy": "Never"}]}
    trace = simulate(pod_object(spec), 5)
    assert trace.events[:2] == [
        (0, "Warning", "ErrImageNeverPull",
         'Container image "busybox:1.36" is not present with pull policy of Never'),
        (0, "Warning", "Failed", "Error: ErrImageNeverPull"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("image", "problem"),
    [
        (
            "Nginx:1.27",
            "invalid reference format: repository name (library/Nginx) must be lowercase",
        ),
        ("nginx::1", "invalid reference format"),
        ("nginx:1.27 ", "invalid reference format"),
    ],
)
def test_an_invalid_image_name_is_not_pulled(image, problem):
    # image_manager.go:176-180 (applyDefaultImageTag), pkg/util/parsers/parsers.go:35,
    # github.com/distribution/reference normalize.go:67-69, reference.go:186-196
    trace = simulate(pod_object({"containers": [{"name": "a", "image": image}]}), 3)
    message = (
        f'Failed to apply default image tag "{image}": '
        f'couldn\'t parse image name "{image}": {problem}'
    )
    assert trace.events[:2] == [
        (0, "Warning", "InspectFailed", message),
        (0, "Warning", "Failed", "Error: InvalidImageName"),
    ]
    waiting = container(trace.statuses[-1][1], "a")["state"]["waiting"]
    assert waiting == {"reason": "InvalidImageName", "message": message}


def test_default_tag_rules():
    assert images.apply_default_tag("busybox") == "busybox:latest"
    assert images.apply_default_tag("registry.local:5000/team/app") == (
        "registry.local:5000/team/app:latest"
    )
    assert images.apply_default_tag("nginx@sha256:" + "a" * 64) == "nginx@sha256:" + "a" * 64


def test_pod_conditions_carry_the_kubelets_messages():
    # status/generate.go:55-166: ContainersReady and Ready False with the unready list, Go's %s
    spec = {
        "containers": [
            {**SLEEP, "name": "a", "readinessProbe": {"exec": {"command": ["false"]}}},
            {**SLEEP, "name": "b"},
        ]
    }
    status = simulate(pod_object(spec), 0.5).statuses[-1][1]
    for kind in ("ContainersReady", "Ready"):
        c = condition(status, kind)
        assert (c["status"], c["reason"], c["message"]) == (
            "False",
            "ContainersNotReady",
            "containers with unready status: [a b]",
        )
    assert condition(status, "Ready")["observedGeneration"] == 1
    assert status["observedGeneration"] == 1


def test_readiness_gates_hold_ready_false():
    # status/generate.go:139-161
    spec = {"containers": [SLEEP], "readinessGates": [{"conditionType": "example.com/lb"}]}
    status = simulate(pod_object(spec), 3).statuses[-1][1]
    ready = condition(status, "Ready")
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "False",
        "ReadinessGatesNotReady",
        'corresponding condition of pod readiness gate "example.com/lb" does not exist.',
    )
    assert condition(status, "ContainersReady")["status"] == "True"


def test_init_containers_run_in_order_and_hold_the_app_at_pod_initializing():
    # kubelet_pods.go:2499-2501 (PodInitializing), status/generate.go:185-266 (incomplete list)
    spec = {
        "initContainers": [
            {"name": "first", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 3"]},
            {"name": "second", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 3"]},
        ],
        "containers": [SLEEP],
    }
    trace = simulate(pod_object(spec), 20)
    early = trace.status_at(2)
    assert container(early)["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert container(early, "second", init=True)["state"] == {
        "waiting": {"reason": "PodInitializing"}
    }
    init = condition(early, "Initialized")
    assert (init["status"], init["reason"], init["message"]) == (
        "False",
        "ContainersNotInitialized",
        "containers with incomplete status: [first second]",
    )
    assert early["phase"] == "Pending"
    done = trace.statuses[-1][1]
    assert container(done, "first", init=True)["ready"] is True  # completed init containers
    assert condition(done, "Initialized")["status"] == "True" and done["phase"] == "Running"


def test_an_init_container_failing_under_restart_policy_never_fails_the_pod():
    # kubelet_pods.go:1800-1809 (failedInitializationNotRestartable → PodFailed),
    # status/generate.go:290-320 (PodFailed reasons)
    spec = {
        "restartPolicy": "Never",
        "initContainers": [
            {"name": "i", "image": "busybox:1.36", "command": ["sh", "-c", "exit 3"]}
        ],
        "containers": [SLEEP],
    }
    status = simulate(pod_object(spec), 30).statuses[-1][1]
    assert status["phase"] == "Failed"
    assert container(status, "i", init=True)["state"]["terminated"]["exitCode"] == 3
    assert container(status)["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert condition(status, "Ready")["reason"] == "PodFailed"
    assert condition(status, "ContainersReady")["reason"] == "PodFailed"


def test_a_job_pod_succeeds_and_its_conditions_say_completed():
    # kubelet_pods.go getPhase; status/generate.go:88-90,209-217 (PodCompleted)
    job = {"name": "job", "image": "busybox:1.36", "command": ["sh", "-c", "echo done"]}
    spec = {"restartPolicy": "Never", "containers": [job]}
    status = simulate(pod_object(spec), 10).statuses[-1][1]
    assert status["phase"] == "Succeeded"
    assert condition(status, "Ready")["reason"] == "PodCompleted"
    assert condition(status, "ContainersReady")["reason"] == "PodCompleted"


def test_a_finished_pod_is_not_woken_again():
    # a Succeeded pod is done (kubelet.go: a terminal pod is not synced again until it is
    # deleted); its container's last due time, the relist after its exit, is in the past,
    # and taken as the next wake it spun the real pod worker at 100 % of a core
    job = {"name": "job", "image": "busybox:1.36", "command": ["sh", "-c", "echo done"]}
    trace = simulate(pod_object({"restartPolicy": "Never", "containers": [job]}), 600)
    assert trace.statuses[-1][1]["phase"] == "Succeeded"
    assert trace.wakes < 20, trace.wakes


def test_native_sidecars_are_stopped_once_the_main_containers_are_done():
    # kuberuntime_manager.go:1377-1382 (kill once no regular container is kept) and
    # kuberuntime_container.go:882 ("Stopping container s")
    spec = {
        "restartPolicy": "Never",
        "initContainers": [{"name": "proxy", "image": "nginx:1.27", "restartPolicy": "Always"}],
        "containers": [
            {"name": "job", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 2"]}
        ],
    }
    trace = simulate(pod_object(spec), 30)
    assert ("Normal", "Killing", "Stopping container proxy") in [e[1:] for e in trace.events]
    status = trace.statuses[-1][1]
    assert status["phase"] == "Succeeded"
    assert "terminated" in container(status, "proxy", init=True)["state"]


def test_active_deadline_fails_the_pod_with_the_kubelets_reason():
    # pkg/kubelet/active_deadline.go:31-32,74-75
    spec = {"restartPolicy": "Never", "activeDeadlineSeconds": 5, "containers": [SLEEP]}
    trace = simulate(pod_object(spec), 60)
    message = "Pod was active on the node longer than the specified deadline"
    assert (5, "Normal", "DeadlineExceeded", message) in trace.events
    status = trace.statuses[-1][1]
    assert (status["phase"], status["reason"], status["message"]) == (
        "Failed",
        "DeadlineExceeded",
        message,
    )


def test_deletion_waits_for_sigterm_or_the_grace_period():
    # kuberuntime_container.go:861-930 (killContainer), :781-806 (preStop counts against the
    # grace period); a shell as PID 1 ignores SIGTERM and is killed after 30 s (exit 137)
    sleeper = simulate(pod_object({"containers": [SLEEP]}), 100, delete_at=10)
    assert sleeper.gone_at == 40
    state = container(sleeper.statuses[-1][1])["state"]["terminated"]
    assert (state["exitCode"], state["reason"]) == (137, "Error")
    assert sleeper.events[-1][1:] == ("Normal", "Killing", "Stopping container app")
    nginx = {"name": "web", "image": "nginx:1.27"}
    assert simulate(pod_object({"containers": [nginx]}), 100, delete_at=10).gone_at == 10.2
    hooked = {**nginx, "lifecycle": {"preStop": {"sleep": {"seconds": 5}}}}
    assert simulate(pod_object({"containers": [hooked]}), 100, delete_at=10).gone_at == 15.2
    short = simulate(pod_object({"containers": [SLEEP]}), 100, delete_at=10, grace=1)
    assert short.gone_at == 12  # minimumGracePeriodInSeconds (kuberuntime_manager.go:84)


def test_a_missing_secret_is_retried_at_the_pod_workers_cadence():
    # kubelet_pods.go:905-915; pod worker requeue after a sync error (kubelet.go:225)
    spec = {"containers": [{**SLEEP, "env": [{"name": "P", "valueFrom": {
        "secretKeyRef": {"name": "db", "key": "password"}}}]}]}  # fmt: skip
    trace = simulate(pod_object(spec), 25, images={"docker.io/library/busybox:1.36"})
    failures = [t for t, _, _, m in trace.events if m == 'Error: secret "db" not found']
    assert failures == [0, 10, 20]
    waiting = container(trace.statuses[-1][1])["state"]["waiting"]
    assert waiting == {"reason": "CreateContainerConfigError", "message": 'secret "db" not found'}


def test_a_liveness_kill_stops_the_process_as_a_deletion_would_then_restarts_it():
    # kuberuntime_manager.go:1343-1366 (Killing message), kuberuntime_container.go:1434-1452
    # (the probe's grace period, else the pod's): nginx leaves on SIGTERM (exit 0), a shell as
    # PID 1 ignores it and is killed when the grace period ends (exit 137); restarts follow
    # doBackOff (the first at once)
    probe = {"httpGet": {"path": "/healthz", "port": 80}, "periodSeconds": 10}
    web = {"name": "web", "image": "nginx:1.27", "livenessProbe": probe}
    trace = simulate(pod_object({"containers": [web]}), 60)
    kills = [t for t, _, reason, _ in trace.events if reason == "Killing"]
    assert kills and trace.events[[e[2] for e in trace.events].index("Killing")][3] == (
        "Container web failed liveness probe, will be restarted"
    )
    restarted = next(container(s, "web") for _, s in trace.statuses
                     if container(s, "web")["restartCount"] == 1)  # fmt: skip
    assert restarted["lastState"]["terminated"]["exitCode"] == 0
    shell = {**SLEEP, "livenessProbe": {"tcpSocket": {"port": 80}}}  # nothing listens
    spec = {"terminationGracePeriodSeconds": 5, "containers": [shell]}
    sh = simulate(pod_object(spec), 120)
    first_kill = next(t for t, _, reason, _ in sh.events if reason == "Killing")
    after = next(container(s)["lastState"] for t, s in sh.statuses
                 if container(s)["restartCount"] == 1)  # fmt: skip
    assert after["terminated"]["exitCode"] == 137
    restart = next(t for t, s in sh.statuses if container(s)["restartCount"] == 1)
    assert restart - first_kill >= 5  # the grace period ran out first


def test_exec_probes_run_their_command():
    # pkg/probe/exec/exec.go:50-76 (exit 0 passes, else the output is the failure) and
    # prober.go:120-123 ("Readiness probe failed: OUTPUT")
    ok = {**SLEEP, "readinessProbe": {"exec": {"command": ["true"]}}}
    assert container(simulate(pod_object({"containers": [ok]}), 5).statuses[-1][1])["ready"]
    missing = {"exec": {"command": ["cat", "/tmp/healthy"]}}
    bad = {**SLEEP, "readinessProbe": missing}
    trace = simulate(pod_object({"containers": [bad]}), 5)
    assert not container(trace.statuses[-1][1])["ready"]
    assert trace.events[-1][2:] == (
        "Unhealthy",
        "Readiness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n",
    )


def test_image_id_is_the_repo_digest_shared_by_a_floating_tag_and_its_release():
    # the CRI repo digest, reported as imageID (kubelet_pods.go convertToAPIContainerStatuses)
    def image_id(image: str) -> str:
        trace = simulate(pod_object({"containers": [{"name": "w", "image": image}]}), 5)
        return container(trace.statuses[-1][1], "w")["imageID"]

    assert image_id("nginx:1.27") == image_id("nginx:1.27.5")
    assert image_id("nginx:1.27").startswith("docker.io/library/nginx@sha256:")
    digest = "sha256:" + "ab" * 32
    assert image_id(f"nginx@{digest}") == f"docker.io/library/nginx@{digest}"
