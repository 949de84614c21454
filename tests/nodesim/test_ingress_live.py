"""On an embedded cluster through stock kubectl: ingress-nginx installed as an addon
(`kubeproof cluster addons install ingress-nginx`), an Ingress to a Deployment's Service,
and busybox wget through the controller from a pod — the backend's answer, the default
backend's 404 for a path without a rule, 503 once the backend has no endpoints — and the
controller's status syncer filling status.loadBalancer.ingress with its node's IP."""

import json

import pytest

from tests.conftest import run_cli, wait_for

NS = "shop"
BACKEND = f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: {NS}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: web, image: "nginx:1.27", ports: [{{containerPort: 80, name: http}}]}}]
---
apiVersion: v1
kind: Service
metadata: {{name: web, namespace: {NS}}}
spec:
  selector: {{app: web}}
  ports: [{{name: http, port: 8080, targetPort: http}}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: web, namespace: {NS}}}
spec:
  ingressClassName: nginx
  rules:
    - host: shop.example
      http:
        paths:
          - path: /app
            pathType: Prefix
            backend: {{service: {{name: web, port: {{name: http}}}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: client, namespace: {NS}}}
spec:
  containers: [{{name: c, image: "busybox:1.36", command: [sleep, "3600"]}}]
"""
URL = "http://ingress-nginx-controller.ingress-nginx"


@pytest.fixture(scope="module")
def cluster(binaries_built):
    from kubeproof.cluster import EmbeddedCluster

    with EmbeddedCluster(nodes=1) as c:
        yield c


def _ready(c, ns: str, selector: str) -> bool:
    out = c.kubectl("get", "pods", "-n", ns, "-l", selector, "-o", "json").stdout
    items = json.loads(out)["items"]
    return bool(items) and all(
        any(
            x["type"] == "Ready" and x["status"] == "True"
            for x in p["status"].get("conditions", [])
        )
        for p in items
    )


def _wget(c, path: str, host: str = "shop.example"):
    return c.kubectl(
        "exec",
        "client",
        "-n",
        NS,
        "--",
        "wget",
        "-qO-",
        "--header",
        f"Host: {host}",
        URL + path,
        check=False,
    )


def test_requests_through_ingress_nginx(cluster):
    installed = run_cli("cluster", "addons", "install", "ingress-nginx", "-c", cluster.name)
    assert installed.returncode == 0, installed.stderr
    assert "IngressClass/nginx created" in installed.stdout
    cluster.kubectl("create", "namespace", NS)
    cluster.kubectl("apply", "-f", "-", input=BACKEND)
    selector = "app.kubernetes.io/component=controller"
    wait_for(lambda: _ready(cluster, "ingress-nginx", selector), 90, what="controller Ready")
    wait_for(lambda: _ready(cluster, NS, "app=web"), 60, what="backend Ready")
    cluster.kubectl("wait", "pod/client", "-n", NS, "--for=condition=Ready", "--timeout=60s")

    direct = cluster.kubectl("exec", "client", "-n", NS, "--", "wget", "-qO-", "http://web:8080/")
    through = _wget(cluster, "/app/index.html")
    assert through.returncode == 0, through.stderr
    assert through.stdout == direct.stdout  # the backend's own answer

    missing = _wget(cluster, "/other")
    assert missing.returncode == 1
    # (kubectl adds `command terminated with exit code 1`)
    assert missing.stderr.startswith("wget: server returned error: HTTP/1.1 404 Not Found\n")
    other_host = _wget(cluster, "/app", host="elsewhere.example")
    assert "404 Not Found" in other_host.stderr

    # the status syncer: at its first tick after the controller is Ready (<= 60 s)
    node_ip = json.loads(cluster.kubectl("get", "nodes", "-o", "json").stdout)["items"][0]
    internal = next(
        a["address"] for a in node_ip["status"]["addresses"] if a["type"] == "InternalIP"
    )
    status = wait_for(
        lambda: (
            json.loads(cluster.kubectl("get", "ingress", "web", "-n", NS, "-o", "json").stdout)[
                "status"
            ]
            .get("loadBalancer", {})
            .get("ingress")
        ),
        90,
        what="status.loadBalancer.ingress",
    )
    assert status == [{"ip": internal}]

    # the harness's view: `kubeproof net http` and the verifier's http_route
    routed = run_cli(
        "net",
        "http",
        "--from",
        f"{NS}/client",
        "--url",
        URL + "/app",
        "--host",
        "shop.example",
        "-c",
        cluster.name,
    )
    assert routed.returncode == 0 and "HTTP 200 OK" in routed.stdout, routed.stdout
    from kubeproof.verify.verifier import Verifier

    with cluster.client() as client:
        v = Verifier(client)
        assert v.http_route(f"{NS}/client", URL + "/app", host="shop.example").passed
        assert v.http_route(f"{NS}/client", URL + "/other", status=404).passed
        assert not v.http_route(f"{NS}/client", URL + "/other").passed

    cluster.kubectl("scale", "deployment", "web", "-n", NS, "--replicas=0")
    wait_for(lambda: "503" in _wget(cluster, "/app").stderr, 60, what="503 with no endpoints")
    gone = run_cli(
        "net",
        "http",
        "--from",
        f"{NS}/client",
        "--url",
        URL + "/app",
        "--host",
        "shop.example",
        "-c",
        cluster.name,
    )
    assert gone.returncode == 3 and "HTTP 503" in gone.stdout, gone.stdout
    assert _wget(cluster, "/app").stderr.startswith(
        "wget: server returned error: HTTP/1.1 503 Service Temporarily Unavailable\n"
    )
