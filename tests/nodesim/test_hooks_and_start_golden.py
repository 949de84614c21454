"""Golden tests, on a fake clock and without a cluster, of what the kubelet shows when a
container cannot start, when a lifecycle hook fails, and what a terminated state's message
holds (k8s.io/kubernetes v1.36.3; containerd 2.x for the runtime's words)."""

from kubeproof.fidelity.golden import pod_object, simulate

NOT_FOUND = (
    "failed to create containerd task: failed to create shim task: OCI runtime create failed: "
    "runc create failed: unable to start container process: error during container init: "
    'exec: "no-such-binary": executable file not found in $PATH: unknown'
)
UID = "00000000-0000-4000-8000-000000000001"  # pod_object's
ON_NODE = {"docker.io/library/busybox:1.36", "docker.io/library/nginx:1.27"}


def app(status: dict) -> dict:
    return status["containerStatuses"][0]


def test_a_missing_program_fails_to_start_with_runcs_words_then_backs_off():
    # kuberuntime_container.go:289-296: Created, then Warning Failed "Error: <CRI message>";
    # containerd container_start.go: exited, StartError, 128, no start time; the reason cache
    # shows RunContainerError until the next start (kubelet_pods.go), then doBackOff
    spec = {"containers": [{"name": "app", "image": "busybox:1.36", "command": ["no-such-binary"]}]}
    trace = simulate(pod_object(spec), 40, images=ON_NODE)
    lines = trace.event_lines()
    assert lines[:3] == [
        '0 Normal Pulled: Container image "busybox:1.36" already present on machine and can be '
        "accessed by the pod",
        "0 Normal Created: Container created",
        f"0 Warning Failed: Error: {NOT_FOUND}",
    ]
    first = app(trace.status_at(0.5))
    assert first["state"] == {"waiting": {"reason": "RunContainerError", "message": NOT_FOUND}}
    assert first["lastState"]["terminated"] | {"finishedAt": "-", "containerID": "-"} == {
        "exitCode": 128,
        "reason": "StartError",
        "message": NOT_FOUND,
        "startedAt": "1970-01-01T00:00:00Z",
        "finishedAt": "-",
        "containerID": "-",
    }
    later = app(trace.status_at(30))
    assert later["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert later["restartCount"] >= 1
    assert not any(s["containerStatuses"][0]["ready"] for _, s in trace.statuses)


def test_a_missing_program_under_never_fails_the_pod_with_starterror():
    spec = {
        "restartPolicy": "Never",
        "containers": [{"name": "app", "image": "busybox:1.36", "args": ["/app/run"]}],
    }
    status = simulate(pod_object(spec), 10, images=ON_NODE).status_at(10)
    assert status["phase"] == "Failed"
    terminated = app(status)["state"]["terminated"]
    assert (terminated["reason"], terminated["exitCode"]) == ("StartError", 128)
    assert terminated["message"].endswith(
        'exec: "/app/run": stat /app/run: no such file or directory: unknown'
    )


def test_a_shell_command_that_is_not_there_exits_127_as_ash_does():
    spec = {
        "restartPolicy": "Never",
        "containers": [{
            "name": "app", "image": "busybox:1.36", "command": ["sh", "-c", "migrate"],
            "terminationMessagePolicy": "FallbackToLogsOnError",
        }],
    }  # fmt: skip
    trace = simulate(pod_object(spec), 10, images=ON_NODE)
    terminated = app(trace.status_at(10))["state"]["terminated"]
    assert (terminated["reason"], terminated["exitCode"]) == ("Error", 127)
    assert terminated["message"] == "sh: migrate: not found\n"  # the log's last lines


def test_the_termination_message_is_what_the_process_wrote_else_the_log_tail_on_error():
    # kuberuntime_container.go:549-604 getTerminationMessage; runtime.go:811-819 limits
    wrote = {
        "restartPolicy": "Never",
        "containers": [{
            "name": "app", "image": "busybox:1.36", "terminationMessagePath": "/tmp/why",
            "command": ["sh", "-c", "echo disk full > /tmp/why; echo done; exit 3"],
        }],
    }  # fmt: skip
    status = simulate(pod_object(wrote), 10, images=ON_NODE).status_at(10)
    assert app(status)["state"]["terminated"]["message"] == "disk full\n"

    fallback = {
        "restartPolicy": "Never",
        "containers": [{
            "name": "app", "image": "busybox:1.36",
            "terminationMessagePolicy": "FallbackToLogsOnError",
            "command": ["sh", "-c", "echo one; echo two; exit 2"],
        }],
    }  # fmt: skip
    status = simulate(pod_object(fallback), 10, images=ON_NODE).status_at(10)
    assert app(status)["state"]["terminated"]["message"] == "one\ntwo\n"

    succeeded = fallback | {
        "containers": [fallback["containers"][0] | {"command": ["sh", "-c", "echo ok"]}]
    }
    status = simulate(pod_object(succeeded), 10, images=ON_NODE).status_at(10)
    assert "message" not in app(status)["state"]["terminated"]  # only on a failure


def test_a_failing_poststart_hook_kills_the_container_and_shows_poststarthookerror():
    # KRC:318-337; handlers.go:85 (exec message); remote_runtime.go:650 (ExecSync's error)
    spec = {
        "terminationGracePeriodSeconds": 2,
        "containers": [{
            "name": "web", "image": "nginx:1.27",
            "lifecycle": {"postStart": {"exec": {"command": ["sh", "-c", "exit 3"]}}},
        }],
    }  # fmt: skip
    trace = simulate(pod_object(spec), 30, images=ON_NODE)
    lines = trace.event_lines()
    assert "0 Warning FailedPostStartHook: PostStartHook failed" in lines
    assert "0 Normal Killing: FailedPostStartHook" in lines
    # the status never shows it running: the hook held the sync until it was killed
    first = [s for _, s in trace.statuses if app(s)["restartCount"] == 0]
    assert all("running" not in app(s)["state"] for s in first)
    waiting = next(
        app(s)["state"]["waiting"]
        for _, s in trace.statuses
        if app(s)["state"].get("waiting", {}).get("reason") == "PostStartHookError"
    )
    assert waiting["message"] == (
        'Exec lifecycle hook ([sh -c exit 3]) for Container "web" in Pod '
        f'"p_default({UID})" failed - error: command '
        "'sh -c exit 3' exited with 3: , message: \"\""
    )
    assert app(trace.status_at(30))["restartCount"] >= 1


def test_a_poststart_hook_that_passes_delays_running_until_it_is_done():
    spec = {
        "containers": [{
            "name": "web", "image": "nginx:1.27",
            "lifecycle": {"postStart": {"sleep": {"seconds": 5}}},
        }],
    }  # fmt: skip
    trace = simulate(pod_object(spec), 10, images=ON_NODE)
    assert "waiting" in app(trace.status_at(4))["state"]
    assert "running" in app(trace.status_at(7))["state"]
    assert not [line for line in trace.event_lines() if "Hook" in line]


def test_a_failing_prestop_hook_is_only_an_event():
    # KRC:781-806: FailedPreStopHook "PreStopHook failed"; the stop goes on
    spec = {
        "terminationGracePeriodSeconds": 3,
        "containers": [{
            "name": "web", "image": "nginx:1.27",
            "lifecycle": {"preStop": {"exec": {"command": ["/bin/false"]}}},
        }],
    }  # fmt: skip
    trace = simulate(pod_object(spec), 20, images=ON_NODE, delete_at=5)
    lines = trace.event_lines()
    assert "5 Normal Killing: Stopping container web" in lines
    assert "5 Warning FailedPreStopHook: PreStopHook failed" in lines


def test_a_failed_mount_is_retried_with_the_operations_exponential_backoff():
    # exponential_backoff.go:31,37: 0.5 s doubling to 2 m 2 s; each failed SetUp is an event.
    # A wait that times out (2 m 3 s, volume_manager.go:75) records nothing: kubelet.go
    # 2201-2205 skips the event when wait.Interrupted(err)
    spec = {
        "containers": [{
            "name": "app", "image": "busybox:1.36", "command": ["sleep", "3600"],
            "volumeMounts": [{"name": "cfg", "mountPath": "/etc/cfg"}],
        }],
        "volumes": [{"name": "cfg", "configMap": {"name": "absent"}}],
    }  # fmt: skip
    trace = simulate(pod_object(spec), 400, images=ON_NODE)
    times = [t for t, _, reason, _ in trace.events if reason == "FailedMount"]
    assert times[:9] == [0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5, 63.5, 127.5]
    assert times[9:11] == [249.5, 371.5]  # capped at 122 s
    assert not any("Unable to attach or mount" in m for *_, m in trace.events)


def test_too_many_nameservers_warn_dnsconfigforming_when_the_sandbox_is_made():
    # dns.go:102-114 (3 nameservers at most) and :143 (the event), twice in the first SyncPod;
    # the API allows 3 in dnsConfig, and ClusterFirst puts the cluster DNS before them
    spec = {
        "dnsConfig": {"nameservers": ["1.1.1.1", "8.8.8.8", "9.9.9.9"]},
        "containers": [{"name": "app", "image": "busybox:1.36", "command": ["sleep", "3600"]}],
    }
    trace = simulate(pod_object(spec), 5, images=ON_NODE)
    warning = (
        "0 Warning DNSConfigForming: Nameserver limits were exceeded, some nameservers have "
        "been omitted, the applied nameserver line is: 10.96.0.10 1.1.1.1 8.8.8.8"
    )
    assert trace.event_lines()[:2] == [warning, warning]


def test_an_app_that_cannot_reach_its_dependency_fails_its_http_readiness_probe_with_503():
    # http.go:119-122 wording; the failing state is what the kubelet's dependency and API
    # checks set (kubelet.py), here set by hand
    from kubeproof.fidelity.golden import START, StaticWorld
    from kubeproof.nodesim import catalog as catalog_mod
    from kubeproof.nodesim.pod import PodRuntime

    probe = {"httpGet": {"path": "/", "port": 80}, "periodSeconds": 10}
    spec = {"containers": [{"name": "web", "image": "nginx:1.27", "readinessProbe": probe}]}
    rt = PodRuntime(pod_object(spec), "10.244.1.2", set(ON_NODE))
    world, catalog = StaticWorld(), catalog_mod.shipped()
    events, now = [], START

    def run_until(end):
        nonlocal now
        while now < end:
            events.extend(e for e in rt.advance(now, world, catalog))
            now = max(min(rt.next_at(), end), now + 1e-3)

    run_until(START + 15)
    assert rt.status(now, {})["containerStatuses"][0]["ready"]
    rt.app[0].failing = "dial tcp db:5432: connect: connection refused"
    run_until(START + 45)
    unhealthy = [e.message for e in events if e.reason == "Unhealthy"]
    assert unhealthy and set(unhealthy) == {
        "Readiness probe failed: HTTP probe failed with statuscode: 503"
    }
    assert not rt.status(now, {})["containerStatuses"][0]["ready"]
