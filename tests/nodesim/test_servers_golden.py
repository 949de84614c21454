"""Servers recognised from a container's command (nodesim/servers.py, the `servers:` rules
of images.yaml): the container listens on its command's port whatever its image's model
says. Golden runs on a fake clock, no cluster."""

from kubeproof.fidelity.golden import StaticWorld, pod_object, simulate
from kubeproof.nodesim import catalog
from kubeproof.nodesim.servers import ServerRule, in_script, recognise

RULES = catalog.shipped().servers


def test_commands_name_their_server_and_port():
    assert recognise(RULES, ["httpd", "-f", "-p", "8080"]).model_dump() == {
        "port": 8080,
        "http": True,
        "foreground": True,
    }
    assert recognise(RULES, ["/bin/httpd", "-fp", "0.0.0.0:81"]).port == 81
    assert recognise(RULES, ["httpd", "-f"]).port == 80  # busybox httpd's default
    # without -f busybox httpd daemonizes: the command itself exits at once
    assert recognise(RULES, ["httpd", "-p", "8080"]).foreground is False
    assert recognise(RULES, ["python3", "-m", "http.server", "9000"]).port == 9000
    assert recognise(RULES, ["python", "-m", "http.server", "-b", "0.0.0.0"]).port == 8000
    assert recognise(RULES, ["python", "-m", "json.tool"]) is None
    nc = recognise(RULES, ["nc", "-lk", "-p", "9000"])
    assert (nc.port, nc.http) == (9000, False)
    assert recognise(RULES, ["nc", "db", "5432"]) is None  # a client, not a server
    assert recognise(RULES, ["sleep", "3600"]) is None


def test_a_script_that_starts_a_server_listens_on_its_port():
    script = "mkdir -p /www && echo hi > /www/index.html\nexec httpd -p 8080 -h /www"
    found = in_script(RULES, script)
    assert (found.port, found.http, found.foreground) == (8080, True, True)
    assert in_script(RULES, "while true; do echo hi; sleep 1; done") is None


def test_a_task_rule_comes_before_the_shipped_ones():
    task = catalog.Catalog(
        images={},
        servers=[ServerRule(names=["httpd"], port_option="-p", default_port=8081, http=False)],
    )
    merged = catalog.shipped().merged(task)
    assert recognise(merged.servers, ["httpd", "-f"]).port == 8081


def _probed(command: list[str], port: int, path: str = "/", **pod) -> dict:
    spec = {
        "name": "app",
        "image": "busybox:1.36",
        "command": command,
        "readinessProbe": {"httpGet": {"path": path, "port": port}, "periodSeconds": 1},
    }
    return pod_object({"containers": [spec], **pod})


def test_busybox_httpd_in_the_foreground_serves_its_port_and_turns_ready():
    # the busybox model alone serves no port; its command makes it a web server
    pod = _probed(["httpd", "-f", "-p", "8080"], 8080)
    probe = pod["spec"]["containers"][0]
    probe["readinessProbe"] = {"tcpSocket": {"port": 8080}, "periodSeconds": 1}
    trace = simulate(pod, 8)
    status = trace.status_at(7)["containerStatuses"][0]
    assert "running" in status["state"] and status["ready"] is True
    assert not [e for e in trace.events if e[2] == "Unhealthy"]


def _site() -> tuple[dict, StaticWorld]:
    """busybox httpd serving /www, a ConfigMap's files"""
    site = {
        "kind": "ConfigMap",
        "metadata": {"name": "site", "namespace": "default"},
        "data": {"healthz": "ok\n"},
    }
    volumes = [{"name": "www", "configMap": {"name": "site"}}]
    return {"volumes": volumes}, StaticWorld([site])


def _served(path: str):
    pod_fields, world = _site()
    pod = _probed(["httpd", "-f", "-p", "8080", "-h", "/www"], 8080, path, **pod_fields)
    pod["spec"]["containers"][0]["volumeMounts"] = [{"name": "www", "mountPath": "/www"}]
    return simulate(pod, 8, world=world)


def test_an_http_probe_of_a_file_server_gets_the_file():
    # the probe's GET is answered as the server answers it (pages.py): a file under -h
    trace = _served("/healthz")
    assert trace.status_at(7)["containerStatuses"][0]["ready"] is True
    assert not [e for e in trace.events if e[2] == "Unhealthy"]


def test_an_http_probe_of_a_path_the_file_server_lacks_is_its_404():
    # busybox networking/httpd.c answers 404 for a file not under its home (and for / with
    # no index.html); pkg/probe/http/http.go DoHTTPProbe words the failure
    for path in ("/ready", "/"):
        trace = _served(path)
        assert trace.status_at(7)["containerStatuses"][0]["ready"] is False
        unhealthy = {e[3] for e in trace.events if e[2] == "Unhealthy"}
        assert unhealthy == {"Readiness probe failed: HTTP probe failed with statuscode: 404"}


def test_a_probe_on_another_port_is_refused():
    # pkg/probe/http/http.go: the dial's error, as probes.check words it
    trace = simulate(_probed(["httpd", "-f", "-p", "8080"], 9090), 8)
    assert trace.status_at(7)["containerStatuses"][0]["ready"] is False
    assert any("connect: connection refused" in e[3] for e in trace.events if e[2] == "Unhealthy")


def test_busybox_httpd_without_f_exits_0_at_once():
    # networking/httpd.c: bb_daemonize_or_rexec without -f; PID 1 leaving ends the container
    trace = simulate(_probed(["httpd", "-p", "8080"], 8080), 4)
    status = trace.status_at(3)["containerStatuses"][0]
    assert status["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert status["restartCount"] == 1
    assert status["lastState"]["terminated"]["exitCode"] == 0
    assert status["lastState"]["terminated"]["reason"] == "Completed"


def _nginx(path: str):
    """nginx probed at `path`, with /usr/share/nginx/html/readyz a ConfigMap file (subPath)"""
    content = {
        "kind": "ConfigMap",
        "metadata": {"name": "content", "namespace": "default"},
        "data": {"readyz": "ready\n"},
    }
    spec = {
        "name": "web",
        "image": "nginx:1.27",
        "readinessProbe": {"httpGet": {"path": path, "port": 80}, "periodSeconds": 1},
        "volumeMounts": [
            {"name": "content", "mountPath": "/usr/share/nginx/html/readyz", "subPath": "readyz"}
        ],
    }
    pod = pod_object(
        {"containers": [spec], "volumes": [{"name": "content", "configMap": {"name": "content"}}]}
    )
    return simulate(pod, 8, world=StaticWorld([content]))


def test_nginx_serves_a_file_mounted_under_its_web_root():
    # infra-bench repair-readiness-probe-path: the probe's fixed path is a ConfigMap file
    # nginx's default.conf root (/usr/share/nginx/html) serves
    trace = _nginx("/readyz")
    assert trace.status_at(7)["containerStatuses"][0]["ready"] is True
    assert not [e for e in trace.events if e[2] == "Unhealthy"]


def test_nginx_answers_a_path_it_lacks_with_404():
    trace = _nginx("/healthz")
    assert trace.status_at(7)["containerStatuses"][0]["ready"] is False
    unhealthy = {e[3] for e in trace.events if e[2] == "Unhealthy"}
    assert unhealthy == {"Readiness probe failed: HTTP probe failed with statuscode: 404"}
