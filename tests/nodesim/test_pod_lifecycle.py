"""Each pod state a kubelet shows, produced by the simulator and read with stock kubectl."""

import json
import subprocess

import pytest

from tests.conftest import wait_for
from tests.nodesim.conftest import (
    apply,
    container_state,
    events,
    get,
    wait_reason,
)

pytestmark = pytest.mark.cluster


def test_nodes_are_ready_with_capacity_and_leases(sim):
    nodes = json.loads(sim.kubectl("get", "nodes", "-o", "json").stdout)["items"]
    assert sorted(n["metadata"]["name"] for n in nodes) == ["control-plane", "node-1", "node-2"]
    for node in nodes:
        ready = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
        assert ready[0]["status"] == "True"
        assert node["status"]["allocatable"]["pods"] == "110"
        assert node["status"]["nodeInfo"]["kubeletVersion"] == sim.record.kubernetes_version
        assert not [t for t in node["spec"].get("taints", []) if "not-ready" in t["key"]]
    lease = get(sim, "lease", "node-1", "kube-node-lease")
    assert lease["spec"]["holderIdentity"] == "node-1"


def test_rollout_completes_and_only_ready_pods_get_endpoints(sim, ns):
    sim.kubectl("create", "deployment", "web", "--image=nginx:1.27", "--replicas=3", "-n", ns)
    sim.kubectl("rollout", "status", "deployment/web", "-n", ns, "--timeout=30s", timeout=40)
    pods = json.loads(sim.kubectl("get", "pods", "-n", ns, "-o", "json").stdout)["items"]
    assert {p["status"]["phase"] for p in pods} == {"Running"}
    assert {p["spec"]["nodeName"] for p in pods} <= {"node-1", "node-2"}
    assert all(p["status"]["podIP"].startswith("10.244.") for p in pods)
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: unready, labels: {app: web}}
spec:
  containers:
  - name: nginx
    image: nginx:1.27
    ports: [{containerPort: 80}]
    readinessProbe: {httpGet: {path: /not-served, port: 80}, periodSeconds: 1}
""",
        ns,
    )
    sim.kubectl("expose", "deployment", "web", "--port=80", "-n", ns)

    def endpoints():
        slices = json.loads(sim.kubectl("get", "endpointslices", "-n", ns, "-o", "json").stdout)
        ready = [
            e
            for s in slices["items"]
            for e in s.get("endpoints") or []
            if e["conditions"].get("ready")
        ]
        return ready if len(ready) == 3 else None

    ready = wait_for(endpoints, what="3 ready endpoints")
    unready_ip = wait_for(lambda: get(sim, "pod", "unready", ns)["status"].get("podIP"))
    assert unready_ip not in {a for e in ready for a in e["addresses"]}
    # once nginx listens, the probe reaches it and gets a 404 for the path it does not serve
    wanted = "Readiness probe failed: HTTP probe failed with statuscode: 404"
    wait_for(
        lambda: [e for e in events(sim, "unready", ns) if e["message"] == wanted],
        what="a 404 readiness failure",
    )


def test_bad_tag_is_stuck_in_image_pull_backoff_until_fixed(sim, ns):
    sim.kubectl("create", "deployment", "api", "--image=nginx:1.99", "-n", ns)
    pod = wait_for(lambda: sim.kubectl("get", "pods", "-n", ns, "-o", "name").stdout.strip())
    pod = pod.removeprefix("pod/")
    state = wait_reason(sim, pod, ns, "ImagePullBackOff")
    assert 'Back-off pulling image "nginx:1.99"' in state["state"]["waiting"]["message"]
    stuck = sim.kubectl(
        "rollout", "status", "deployment/api", "-n", ns, "--timeout=3s", check=False
    )
    assert stuck.returncode != 0
    assert 'Waiting for deployment "api" rollout to finish' in stuck.stdout
    reasons = {e["reason"]: e["message"] for e in events(sim, pod, ns)}
    assert reasons["Pulling"] == 'Pulling image "nginx:1.99"'
    pull = next(
        e["message"] for e in events(sim, pod, ns) if e["message"].startswith("Failed to pull")
    )
    assert "docker.io/library/nginx:1.99: not found" in pull
    assert reasons["BackOff"] == 'Back-off pulling image "nginx:1.99"'
    described = sim.kubectl("describe", "pod", pod, "-n", ns).stdout
    assert "Reason:       ImagePullBackOff" in described
    assert 'Back-off pulling image "nginx:1.99"' in described
    logs = sim.kubectl("logs", pod, "-n", ns, check=False)
    assert (
        f'container "nginx" in pod "{pod}" is waiting to start: trying and failing to pull'
        in logs.stderr
    )
    sim.kubectl("set", "image", "deployment/api", "nginx=nginx:1.27", "-n", ns)
    sim.kubectl("rollout", "status", "deployment/api", "-n", ns, "--timeout=30s", timeout=40)


def test_unknown_repository_reports_pull_access_denied(sim, ns):
    sim.kubectl("run", "typo", "--image=ngnix:1.27", "-n", ns)
    state = wait_reason(sim, "typo", ns, "ImagePullBackOff")
    assert "pull access denied, repository does not exist" in state["state"]["waiting"]["message"]


DATABASE = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: postgres
        image: postgres:16
        env: [{name: POSTGRES_PASSWORD, value: secret}]
        ports: [{containerPort: 5432, name: pg}]
---
apiVersion: v1
kind: Service
metadata: {name: db}
spec: {selector: {app: db}, ports: [{port: 5432, targetPort: TARGET}]}
"""


def _database(sim, ns: str, target_port: str = "pg", wait: bool = True) -> None:
    """postgres behind a Service called db, for web-api's DATABASE_URL."""
    apply(sim, DATABASE.replace("TARGET", target_port), ns)
    if wait:
        sim.kubectl("rollout", "status", "deployment/db", "-n", ns, "--timeout=30s", timeout=40)


def test_missing_secret_and_key_are_create_container_config_errors(sim, ns):
    _database(sim, ns)
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: api}
spec:
  containers:
  - name: api
    image: kubeproof/web-api:1.1
    env:
    - name: DATABASE_URL
      valueFrom: {secretKeyRef: {name: db, key: url}}
""",
        ns,
    )
    state = wait_reason(sim, "api", ns, "CreateContainerConfigError")
    assert state["state"]["waiting"]["message"] == 'secret "db" not found'
    failed = wait_for(lambda: [e for e in events(sim, "api", ns) if e["reason"] == "Failed"])
    assert failed[0]["message"] == 'Error: secret "db" not found'

    sim.kubectl("create", "secret", "generic", "db", "--from-literal=uri=postgres://db", "-n", ns)
    wait_for(
        lambda: (
            container_state(sim, "api", ns)["state"]["waiting"].get("message")
            == f"couldn't find key url in Secret {ns}/db"
        ),
        what="missing-key message",
    )

    patch = json.dumps({"stringData": {"url": "postgres://db"}})
    sim.kubectl("patch", "secret", "db", "-n", ns, "-p", patch)
    wait_for(
        lambda: get(sim, "pod", "api", ns)["status"]["containerStatuses"][0]["ready"],
        what="api ready once the key exists",
    )
    assert "listening on :8080" in sim.kubectl("logs", "api", "-n", ns).stdout


def test_missing_configmap_volume_is_failed_mount(sim, ns):
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: web
    image: nginx:1.27
    volumeMounts: [{name: conf, mountPath: /etc/nginx/conf.d}]
  volumes: [{name: conf, configMap: {name: nginx-conf}}]
""",
        ns,
    )
    mount = wait_for(lambda: [e for e in events(sim, "web", ns) if e["reason"] == "FailedMount"])
    assert mount[0]["message"] == (
        'MountVolume.SetUp failed for volume "conf" : configmap "nginx-conf" not found'
    )
    assert container_state(sim, "web", ns)["state"]["waiting"]["reason"] == "ContainerCreating"
    sim.kubectl(
        "create", "configmap", "nginx-conf", "--from-literal=default.conf=server{}", "-n", ns
    )
    wait_for(lambda: get(sim, "pod", "web", ns)["status"]["phase"] == "Running")


def test_crash_loop_backs_off_with_restart_count_and_previous_logs(sim, ns):
    sim.kubectl("run", "api", "--image=kubeproof/web-api:1.1", "-n", ns)
    state = wait_reason(sim, "api", ns, "CrashLoopBackOff")
    assert state["restartCount"] >= 0
    assert state["lastState"]["terminated"]["reason"] == "Error"
    assert state["lastState"]["terminated"]["exitCode"] == 1
    assert "back-off" in state["state"]["waiting"]["message"]
    wait_for(lambda: container_state(sim, "api", ns)["restartCount"] >= 2, what="2 restarts")
    previous = sim.kubectl("logs", "api", "-n", ns, "--previous").stdout
    assert "fatal: DATABASE_URL is not set" in previous


def test_working_set_over_the_memory_limit_is_oom_killed(sim, ns):
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers:
  - name: db
    image: postgres:16
    env: [{name: POSTGRES_PASSWORD, value: secret}]
    resources: {limits: {memory: 64Mi}}
""",
        ns,
    )
    state = wait_for(lambda: container_state(sim, "db", ns).get("lastState", {}).get("terminated"))
    assert state["reason"] == "OOMKilled" and state["exitCode"] == 137


def test_jobs_succeed_and_fail_through_the_real_job_controller(sim, ns):
    apply(
        sim,
        """
apiVersion: batch/v1
kind: Job
metadata: {name: ok}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox:1.36, command: [sh, -c, "echo migrated; sleep 1"]}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: broken}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox:1.36, command: [sh, -c, "echo boom; exit 3"]}]
""",
        ns,
    )
    sim.kubectl("wait", "--for=condition=Complete", "job/ok", "-n", ns, "--timeout=30s", timeout=40)
    sim.kubectl(
        "wait", "--for=condition=Failed", "job/broken", "-n", ns, "--timeout=30s", timeout=40
    )
    assert sim.kubectl("logs", "job/ok", "-n", ns).stdout.strip() == "migrated"
    pods = json.loads(
        sim.kubectl("get", "pods", "-n", ns, "-l", "job-name=broken", "-o", "json").stdout
    )["items"]
    terminated = pods[0]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (pods[0]["status"]["phase"], terminated["exitCode"]) == ("Failed", 3)


def test_liveness_failure_restarts_the_container(sim, ns):
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: web
    image: nginx:1.27
    livenessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1, failureThreshold: 2}
""",
        ns,
    )
    wait_for(lambda: container_state(sim, "web", ns).get("restartCount", 0) >= 1)
    messages = [e["message"] for e in events(sim, "web", ns)]
    assert any(
        "Liveness probe failed: dial tcp" in m and ":8080: connect: connection refused" in m
        for m in messages
    )
    assert "Container web failed liveness probe, will be restarted" in messages


def test_init_containers_run_first_and_sidecars_keep_running(sim, ns):
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  initContainers:
  - {name: migrate, image: busybox:1.36, command: [sh, -c, "echo migrating; sleep 2"]}
  - {name: proxy, image: nginx:1.27, restartPolicy: Always}
  containers: [{name: web, image: nginx:1.27}]
""",
        ns,
    )
    wait_for(
        lambda: "Init:" in sim.kubectl("get", "pod", "app", "-n", ns).stdout,
        what="Init: status while the init container runs",
    )
    wait_for(lambda: get(sim, "pod", "app", ns)["status"]["phase"] == "Running")
    status = get(sim, "pod", "app", ns)["status"]
    init = {s["name"]: s for s in status["initContainerStatuses"]}
    assert init["migrate"]["state"]["terminated"]["reason"] == "Completed"
    assert "running" in init["proxy"]["state"]
    assert sim.kubectl("logs", "app", "-c", "migrate", "-n", ns).stdout.strip() == "migrating"


def test_delete_is_graceful_and_quick(sim, ns):
    sim.kubectl("run", "web", "--image=nginx:1.27", "-n", ns)
    wait_for(lambda: get(sim, "pod", "web", ns)["status"]["phase"] == "Running")
    sim.kubectl("delete", "pod", "web", "-n", ns, "--timeout=20s", timeout=30)
    gone = sim.kubectl("get", "pod", "web", "-n", ns, check=False)
    assert "NotFound" in gone.stderr


def test_logs_tail_follow_and_all_containers(sim, ns):
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: two}
spec:
  containers:
  - {name: a, image: nginx:1.27}
  - {name: b, image: redis:7.4}
""",
        ns,
    )

    def both_ready():
        statuses = get(sim, "pod", "two", ns)["status"].get("containerStatuses") or []
        return len(statuses) == 2 and all(c["ready"] for c in statuses)

    wait_for(both_ready, what="both containers ready")
    tail = sim.kubectl("logs", "two", "-c", "a", "--tail=1", "-n", ns).stdout
    assert tail.strip() == "/docker-entrypoint.sh: Configuration complete; ready for start up"
    both = sim.kubectl("logs", "two", "--all-containers", "-n", ns).stdout
    assert "Configuration complete" in both and "Ready to accept connections tcp" in both
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: short}
spec:
  restartPolicy: Never
  containers: [{name: c, image: busybox:1.36, command: [sh, -c, "echo working; sleep 3"]}]
""",
        ns,
    )
    wait_for(lambda: get(sim, "pod", "short", ns)["status"]["phase"] == "Running")
    from kubeproof.cluster.base import kubectl_binary

    follow = subprocess.run(
        [kubectl_binary(), f"--kubeconfig={sim.admin_kubeconfig}", "logs", "-f", "short", "-n", ns],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    # -f returns by itself once the container exits
    assert (follow.returncode, follow.stdout.strip()) == (0, "working")
    assert get(sim, "pod", "short", ns)["status"]["phase"] in ("Running", "Succeeded")


def test_exec_answers_from_the_model_with_exit_codes(sim, ns):
    sim.kubectl("create", "configmap", "app", "--from-literal=mode=live", "-n", ns)
    sim.kubectl("create", "secret", "generic", "db", "--from-literal=password=s3cret", "-n", ns)
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: web
    image: nginx:1.27
    env:
    - {name: GREETING, value: hello}
    - name: DB_PASSWORD
      valueFrom: {secretKeyRef: {name: db, key: password}}
    volumeMounts: [{name: conf, mountPath: /etc/app}]
  volumes: [{name: conf, configMap: {name: app}}]
""",
        ns,
    )
    sim.kubectl("wait", "--for=condition=Ready", "pod/web", "-n", ns, "--timeout=30s", timeout=40)

    def exec_(*argv):
        return sim.kubectl("exec", "web", "-n", ns, "--", *argv, check=False)

    env = exec_("env")
    assert env.returncode == 0
    assert "GREETING=hello" in env.stdout and "DB_PASSWORD=s3cret" in env.stdout
    assert "HOSTNAME=web" in env.stdout
    # a --from-literal value has no newline, and cat adds none
    assert exec_("cat", "/etc/app/mode").stdout == "live"
    assert exec_("ls", "/etc/app").stdout == "mode\n"
    missing = exec_("cat", "/etc/app/other")
    assert missing.returncode == 1
    assert "cat: can't open '/etc/app/other': No such file or directory" in missing.stderr
    assert "command terminated with exit code 1" in missing.stderr
    script = exec_("sh", "-c", "echo first && false && echo never")
    assert (script.returncode, script.stdout) == (1, "first\n")
    unknown = exec_("frobnicate")
    assert unknown.returncode == 126
    assert 'exec: "frobnicate": executable file not found in $PATH' in unknown.stderr


def test_workload_api_calls_are_forbidden_until_rbac_allows_them(sim, ns):
    sim.kubectl("create", "serviceaccount", "reporter", "-n", ns)
    # created with its ServiceAccount from the start: a Deployment patched afterwards keeps its
    # first pod (default SA) while the new one is unready, and `kubectl logs deployment/...`
    # prefers the older pod, so the log would name the default ServiceAccount
    apply(
        sim,
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: reporter}
spec:
  selector: {matchLabels: {app: reporter}}
  template:
    metadata: {labels: {app: reporter}}
    spec:
      serviceAccountName: reporter
      containers: [{name: reporter, image: "kubeproof/reporter:1.0"}]
""",
        ns,
    )
    forbidden = (
        f'User "system:serviceaccount:{ns}:reporter" cannot list resource "pods" '
        f'in API group "" in the namespace "{ns}"'
    )
    wait_for(
        lambda: (
            forbidden in sim.kubectl("logs", "deployment/reporter", "-n", ns, check=False).stdout
        ),
        what="forbidden in logs",
    )
    stuck = sim.kubectl(
        "rollout", "status", "deployment/reporter", "-n", ns, "--timeout=3s", check=False
    )
    assert stuck.returncode != 0
    sim.kubectl("create", "role", "pod-reader", "--verb=list,watch", "--resource=pods", "-n", ns)
    sim.kubectl(
        "create",
        "rolebinding",
        "reporter",
        "--role=pod-reader",
        f"--serviceaccount={ns}:reporter",
        "-n",
        ns,
    )
    sim.kubectl("rollout", "status", "deployment/reporter", "-n", ns, "--timeout=30s", timeout=40)


def test_unreachable_dependency_shows_as_the_app_would_and_recovers(sim, ns):
    apply(
        sim,
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - name: api
        image: kubeproof/web-api:1.1
        env: [{name: DATABASE_URL, value: "postgres://db:5432/shop"}]
""",
        ns,
    )

    def logs():
        return sim.kubectl("logs", "deployment/api", "-n", ns, check=False).stdout

    wait_for(
        lambda: "dial tcp: lookup db on 10.96.0.10:53: no such host" in logs(),
        what="no such host while the Service is missing",
    )
    # a Service whose targetPort names a port the pods do not have: no endpoints
    _database(sim, ns, target_port="postgres", wait=False)
    wait_for(
        lambda: "dial tcp db:5432: connect: connection refused" in logs(),
        timeout=40,
        what="connection refused while the Service has no endpoints",
    )
    stuck = sim.kubectl(
        "rollout", "status", "deployment/api", "-n", ns, "--timeout=2s", check=False
    )
    assert stuck.returncode != 0
    sim.kubectl(
        "patch",
        "service",
        "db",
        "-n",
        ns,
        "--type=json",
        "-p",
        '[{"op":"replace","path":"/spec/ports/0/targetPort","value":"pg"}]',
    )
    sim.kubectl("rollout", "status", "deployment/api", "-n", ns, "--timeout=30s", timeout=40)
    # now a NetworkPolicy that isolates the database
    apply(
        sim,
        """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: db-lockdown}
spec: {podSelector: {matchLabels: {app: db}}, policyTypes: [Ingress]}
""",
        ns,
    )
    wait_for(
        lambda: "dial tcp db:5432: i/o timeout" in logs(),
        timeout=30,
        what="i/o timeout once the policy isolates the database",
    )
    wait_for(
        lambda: not get(sim, "deployment", "api", ns)["status"].get("readyReplicas"),
        what="api unready",
    )


def test_exec_network_tools_answer_through_netsim(sim, ns):
    sim.kubectl("run", "client", "--image=busybox:1.36", "-n", ns, "--", "sleep", "infinity")
    sim.kubectl("create", "deployment", "web", "--image=nginx:1.27", "-n", ns)
    sim.kubectl("expose", "deployment", "web", "--port=80", "-n", ns)
    sim.kubectl("rollout", "status", "deployment/web", "-n", ns, "--timeout=30s", timeout=40)
    sim.kubectl(
        "wait", "--for=condition=Ready", "pod/client", "-n", ns, "--timeout=30s", timeout=40
    )

    def exec_(*argv):
        return sim.kubectl("exec", "client", "-n", ns, "--", *argv, check=False)

    def web_has_endpoints():
        return exec_("wget", "-qO-", "http://web").returncode == 0

    wait_for(web_has_endpoints, what="web reachable from the client")
    # stock nginx's index page (images.yaml pages), as the real image serves it at /
    assert "<title>Welcome to nginx!</title>" in exec_("wget", "-qO-", "http://web").stdout
    missing = exec_("wget", "-qO-", "http://nope:8080/")
    assert missing.returncode == 1 and "wget: bad address 'nope:8080'" in missing.stderr
    refused = exec_("curl", "-s", "http://web:8080/")
    assert refused.returncode == 28  # the Service has no port 8080: the packet goes nowhere
    lookup = exec_("nslookup", "kubernetes.default")
    assert lookup.returncode == 0 and "Address: 10.96.0.1" in lookup.stdout
    nxdomain = exec_("nslookup", "nope")
    assert nxdomain.returncode == 1 and "NXDOMAIN" in nxdomain.stdout
    sim.kubectl(
        "apply",
        "-n",
        ns,
        "-f",
        "-",
        input="""
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-lockdown}
spec: {podSelector: {matchLabels: {app: web}}, policyTypes: [Ingress]}
""",
    )
    wait_for(
        lambda: exec_("nc", "-z", "web", "80").returncode == 1,
        what="nc failing once web is isolated",
    )


def test_failing_startup_probe_restarts_and_describe_shows_the_events(sim, ns):
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: slow}
spec:
  containers:
  - name: web
    image: nginx:1.27
    startupProbe: {httpGet: {path: /warmup, port: 80}, periodSeconds: 1, failureThreshold: 2}
""",
        ns,
    )
    wait_for(
        lambda: container_state(sim, "slow", ns).get("restartCount", 0) >= 1,
        what="a restart after the startup probe gives up",
    )
    status = container_state(sim, "slow", ns)
    assert status["started"] is False
    described = sim.kubectl("describe", "pod", "slow", "-n", ns).stdout
    assert "Startup probe failed: HTTP probe failed with statuscode: 404" in described
    assert "Container web failed startup probe, will be restarted" in described
    assert "Restart Count:" in described


def test_readiness_and_liveness_take_over_once_the_startup_probe_passes(sim, ns):
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: warm}
spec:
  containers:
  - name: web
    image: nginx:1.27
    startupProbe: {httpGet: {path: /, port: 80}, periodSeconds: 1}
    readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 1}
    livenessProbe: {httpGet: {path: /index.html, port: 80}, periodSeconds: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: warm-no-readiness}
spec:
  containers:
  - name: web
    image: nginx:1.27
    startupProbe: {httpGet: {path: /, port: 80}, periodSeconds: 1}
""",
        ns,
    )
    for pod in ("warm", "warm-no-readiness"):
        wait_for(
            lambda pod=pod: container_state(sim, pod, ns).get("ready") is True,
            what=f"{pod} ready after its startup probe",
        )
        assert container_state(sim, pod, ns)["started"] is True


def test_a_missing_program_is_a_start_error_and_a_failing_poststart_hook_is_killed(sim, ns):
    # kuberuntime_container.go:289-296 (StartError, RunContainerError), :318-337 (postStart);
    # events named <pod>.<hex UnixNano> and counted (client-go tools/record)
    sim.kubectl("run", "nobin", "--image=busybox:1.36", "-n", ns, "--command", "--", "nope")
    state = wait_for(
        lambda: (
            (s := container_state(sim, "nobin", ns)).get("lastState", {}).get("terminated") and s
        ),
        what="a StartError",
    )
    terminated = state["lastState"]["terminated"]
    assert (terminated["reason"], terminated["exitCode"]) == ("StartError", 128)
    assert 'exec: "nope": executable file not found in $PATH' in terminated["message"]
    assert state["state"]["waiting"]["reason"] in ("RunContainerError", "CrashLoopBackOff")
    failed = wait_for(
        lambda: [e for e in events(sim, "nobin", ns) if e["reason"] == "Failed"
                 and e.get("count", 1) >= 2],
        what="the Failed event counted twice",
        timeout=40,
    )  # fmt: skip
    name, _, suffix = failed[0]["metadata"]["name"].rpartition(".")
    assert name == "nobin" and int(suffix, 16) > 1_600_000_000 * 10**9
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: hooked}
spec:
  terminationGracePeriodSeconds: 2
  containers:
    - name: web
      image: nginx:1.27
      lifecycle: {postStart: {exec: {command: [sh, -c, "exit 3"]}}}
""",
        ns,
    )
    reasons = wait_for(
        lambda: (
            {e["reason"]: e["message"] for e in events(sim, "hooked", ns)}.items()
            >= {("FailedPostStartHook", "PostStartHook failed"), ("Killing", "FailedPostStartHook")}
            and True
        ),
        what="the postStart failure's events",
    )
    assert reasons


def test_a_host_network_pod_has_the_nodes_ip_and_hosts_file(sim, ns):
    # kubelet_pods.go:2024-2031 (podIPs = hostIPs), :476-512 (the host-network hosts file)
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: hostnet}
spec:
  hostNetwork: true
  containers: [{name: app, image: "busybox:1.36", command: [sleep, "3600"]}]
""",
        ns,
    )
    status = wait_for(
        lambda: (s := get(sim, "pod", "hostnet", ns)["status"]).get("podIP") and s,
        what="the pod's IP",
    )
    assert status["podIP"] == status["hostIP"]
    assert status["podIPs"] == [{"ip": status["hostIP"]}]
    wait_for(lambda: "running" in container_state(sim, "hostnet", ns)["state"], what="running")
    hosts = sim.kubectl("exec", "hostnet", "-n", ns, "--", "cat", "/etc/hosts").stdout
    assert hosts.startswith("# Kubernetes-managed hosts file (host network).\n")
