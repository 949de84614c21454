"""Shell workloads that really run (nodesim/realshell.py) on an embedded cluster through stock
kubectl: a busybox script's loop, `${VAR}` expansion, log lines, exit code and exec probe are
its own; `kubectl exec` sees its files; a fork bomb and an unbounded allocation are
contained."""

import json
import time

import pytest

from tests.conftest import wait_for
from tests.nodesim.conftest import apply, container_state, events, get

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(
        not __import__("kubeproof.nodesim.runbox").nodesim.runbox.available(),
        reason="needs busybox-static and bubblewrap",
    ),
]

SCRIPT = """
apiVersion: v1
kind: Pod
metadata: {name: script}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox:1.36
    env: [{name: GREETING, value: hello}, {name: TARGET, value: "$(GREETING)-world"}]
    command: [sh, -c]
    args:
    - |
      for i in 1 2 3; do echo "${GREETING} round $i ${TARGET}"; done
      if [ -f /tmp/ready ]; then echo "ready too early"; fi
      sleep 4; touch /tmp/ready; echo made-ready
      sleep 6; exit 3
    readinessProbe:
      exec: {command: [test, -f, /tmp/ready]}
      periodSeconds: 1
"""
BOMB = """
apiVersion: v1
kind: Pod
metadata: {name: bomb}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, "bomb(){ bomb | bomb & }; bomb; sleep 2; echo still-here; exit 0"]
"""
HOG = """
apiVersion: v1
kind: Pod
metadata: {name: hog}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox:1.36
    resources: {limits: {memory: 32Mi}}
    command: [sh, -c, 'echo start; x=a; while true; do x="$x$x"; done']
"""


def _logs(sim, ns: str, pod: str) -> str:
    return sim.kubectl("logs", "-n", ns, pod, check=False).stdout  # none while it is created


def _terminated(sim, ns: str, pod: str, timeout: float = 60) -> dict:
    return wait_for(
        lambda: container_state(sim, pod, ns).get("state", {}).get("terminated"),
        timeout,
        what=f"{pod} terminated",
    )


def test_a_busybox_script_runs_as_written(sim, ns):
    apply(sim, SCRIPT, ns)
    wait_for(lambda: "made-ready" in _logs(sim, ns, "script"), 60, what="the script's lines")
    # the exec probe passes once the script has touched the file (prober.go:153)
    wait_for(lambda: container_state(sim, "script", ns).get("ready"), 20, what="ready")
    seen = sim.kubectl("exec", "-n", ns, "script", "--", "ls", "/tmp").stdout
    assert seen == "ready\n"  # kubectl exec sees the script's files
    # network tools are netsim's still (the sandbox has no network)
    found = sim.kubectl("exec", "-n", ns, "script", "--", "nslookup", "kubernetes.default")
    assert "Name:\tkubernetes.default" in found.stdout
    terminated = _terminated(sim, ns, "script")
    assert (terminated["exitCode"], terminated["reason"]) == (3, "Error")
    # $(GREETING) expanded by the kubelet in env; ${GREETING} by the shell
    assert _logs(sim, ns, "script") == (
        "hello round 1 hello-world\n"
        "hello round 2 hello-world\n"
        "hello round 3 hello-world\n"
        "made-ready\n"
    )
    unready = [
        e["message"]
        for e in events(sim, "script", ns)
        if e["reason"] == "Unhealthy" and e["message"].startswith("Readiness probe failed")
    ]
    assert unready, "the probe failed until the file existed"


def test_a_fork_bomb_and_an_allocation_are_contained(sim, ns):
    started = time.monotonic()
    apply(sim, BOMB, ns)
    apply(sim, HOG, ns)
    bomb = _terminated(sim, ns, "bomb")
    logs = _logs(sim, ns, "bomb")
    assert "can't fork" in logs  # the pids limit held it
    # PID 1 got past the bomb (0), or its own fork failed, which ends a non-interactive ash
    # with an error; the rest of its pid namespace went with it
    assert (bomb["exitCode"] == 0) == ("still-here" in logs)
    hog = _terminated(sim, ns, "hog")
    # the kernel's OOM kill: SIGKILL, containerd's oomExitReason
    assert (hog["exitCode"], hog["reason"]) == (137, "OOMKilled")
    assert time.monotonic() - started < 90
    # the machine answers: the API and the node simulator still serve
    assert sim.kubectl("get", "pods", "-n", ns).returncode == 0


SLOW_CGI = """
apiVersion: v1
kind: Pod
metadata: {name: worker, labels: {app: worker}}
spec:
  containers:
  - name: web
    image: busybox:1.36
    command: [sh, -c]
    args:
    - |
      mkdir -p /www/cgi-bin
      printf '#!/bin/sh\\necho "Content-Type: text/plain"\\necho\\nsleep 3\\necho processed\\n' \\
        > /www/cgi-bin/work
      chmod +x /www/cgi-bin/work
      exec httpd -f -p 8080 -h /www
    ports: [{containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: worker}
spec:
  selector: {app: worker}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: loadgen}
spec:
  containers:
  - name: gen
    image: busybox:1.36
    command: [sh, -c]
    args:
    - |
      while true; do
        for _ in 1 2 3 4; do wget -qO- http://worker/cgi-bin/work 2>&1 & done
        wait
      done
"""


def test_a_slow_cgi_a_script_calls_does_not_hold_the_node(sim, ns):
    """infra-bench repair-worker-hpa-scaling-inputs: a load generator calls a CGI script four
    at a time, without pause. Each run takes seconds; the scripts' requests run them in
    their own threads, so the node's loop (heartbeats, probes, exec, other pods) goes on:
    an exec meanwhile answers at once, and the load generator reads the script's output."""
    apply(sim, SLOW_CGI, ns)
    wait_for(lambda: "processed" in _logs(sim, ns, "loadgen"), timeout=60, what="a CGI answer")
    took = []
    for _ in range(3):
        began = time.monotonic()
        sim.kubectl("exec", "-n", ns, "worker", "--", "true")
        took.append(time.monotonic() - began)
    # an exec waiting on a loop blocked by 3 s CGI runs, four at a time, would take 3 s or
    # more; this one waits for nothing but the API round trips
    assert min(took) < 2.5, took


FILE_SERVER = """
apiVersion: v1
kind: ConfigMap
metadata: {name: store-scripts}
data:
  store.sh: |
    #!/bin/sh
    mkdir -p /www
    httpd -f -p 8080 -h /www &
    sleep 3
    echo stored > /www/state.txt
    printf 'ready\\n' > /www/ready
    echo serving >&2
    sleep 3600
---
apiVersion: v1
kind: Pod
metadata: {name: store}
spec:
  containers:
  - name: store
    image: busybox:1.36.1
    command: [/bin/sh, /opt/store/store.sh]
    ports: [{name: http, containerPort: 8080}]
    readinessProbe:
      httpGet: {path: /ready, port: http}
      periodSeconds: 1
    volumeMounts: [{name: scripts, mountPath: /opt/store}]
  volumes: [{name: scripts, configMap: {name: store-scripts, defaultMode: 493}}]
"""


def test_a_server_a_script_file_starts_serves_what_the_script_wrote(sim, ns):
    # the script is a ConfigMap's file, not the command's text: its backgrounded httpd and
    # document root are read from the file, and /ready is there once the script wrote it
    apply(sim, FILE_SERVER, ns)
    sim.kubectl("wait", "--for=condition=Ready", "pod/store", "-n", ns, "--timeout=40s", timeout=50)
    assert "serving" in _logs(sim, ns, "store")
    sim.kubectl("run", "client", "--image=busybox:1.36", "-n", ns, "--", "sleep", "3600")
    sim.kubectl(
        "wait", "--for=condition=Ready", "pod/client", "-n", ns, "--timeout=40s", timeout=50
    )
    ip = json.loads(sim.kubectl("get", "pod", "store", "-n", ns, "-o", "json").stdout)["status"][
        "podIP"
    ]
    got = sim.kubectl(
        "exec", "client", "-n", ns, "--", "wget", "-qO-", f"http://{ip}:8080/state.txt"
    )
    assert got.stdout == "stored\n"


STUBBORN = """
apiVersion: v1
kind: Pod
metadata: {name: stubborn}
spec:
  terminationGracePeriodSeconds: 8
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, "while true; do echo tick; sleep 1; done"]
"""


def test_a_terminating_pods_running_container_still_takes_exec(sim, ns):
    # sh as PID 1 ignores SIGTERM: the container runs until the grace period ends, and the
    # runtime execs into it meanwhile (containerd refuses only a container that is not
    # running); infra-bench verifiers exec into the old pod of a rollout still terminating
    apply(sim, STUBBORN, ns)
    wait_for(lambda: container_state(sim, "stubborn", ns).get("ready"), 60, what="ready")
    sim.kubectl("delete", "pod", "stubborn", "-n", ns, "--wait=false")
    wait_for(
        lambda: "deletionTimestamp" in get(sim, "pod", "stubborn", ns)["metadata"],
        20,
        what="terminating",
    )
    ran = sim.kubectl("exec", "-n", ns, "stubborn", "--", "echo", "still-here", check=False)
    assert (ran.returncode, ran.stdout) == (0, "still-here\n"), ran.stderr
