"""On an embedded cluster through stock kubectl: ingress-nginx installed as an addon
(`kubeproof cluster addons install ingress-nginx`), an Ingress to a Deployment's Service,
and busybox wget through the controller from a pod — the backend's answer, the default
backend's 404 for a path without a rule, 503 once the backend has no endpoints — and the
controller's status syncer filling status.loadBalancer.ingress with its node's IP. Then k3s's
Traefik (`kubeproof cluster addons install traefik`) in the same cluster: a busybox script's
httpd page and nginx's index through traefik.kube-system, Traefik's 404 for another host."""

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
      containers:
        - name: web
          image: "nginx:1.27"
          ports: [{{containerPort: 80, name: http}}]
          # nginx serves its web root: the Ingress's /app is a directory there
          volumeMounts: [{{name: app, mountPath: /usr/share/nginx/html/app}}]
      volumes: [{{name: app, configMap: {{name: app-page}}}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: app-page, namespace: {NS}}}
data: {{index.html: "shop front\\n"}}
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

    direct = cluster.kubectl(
        "exec", "client", "-n", NS, "--", "wget", "-qO-", "http://web:8080/app/index.html"
    )
    through = _wget(cluster, "/app/index.html")
    assert through.returncode == 0, through.stderr
    assert through.stdout == direct.stdout == "shop front\n"  # the backend's own answer

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
        URL + "/app/",
        "--host",
        "shop.example",
        "-c",
        cluster.name,
    )
    assert routed.returncode == 0 and "HTTP 200 OK" in routed.stdout, routed.stdout
    from kubeproof.verify.verifier import Verifier

    with cluster.client() as client:
        v = Verifier(client)
        assert v.http_route(f"{NS}/client", URL + "/app/", host="shop.example").passed
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


EDGE = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: portal, namespace: edge}
spec:
  replicas: 1
  selector: {matchLabels: {app: portal}}
  template:
    metadata: {labels: {app: portal}}
    spec:
      containers:
        - name: portal
          image: busybox:1.36
          command:
            - sh
            - -c
            - |
              mkdir -p /www
              echo "portal route restored" > /www/index.html
              exec httpd -f -p 8080 -h /www
          ports: [{containerPort: 8080, name: http}]
---
apiVersion: v1
kind: Service
metadata: {name: portal, namespace: edge}
spec:
  selector: {app: portal}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: portal, namespace: edge}
spec:
  ingressClassName: traefik
  rules:
    - host: portal.example.test
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: portal, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: shop, namespace: edge}
spec:
  rules:
    - host: shop.example.test
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: shop, port: {number: 80}}}}
---
apiVersion: v1
kind: Service
metadata: {name: shop, namespace: edge}
spec:
  selector: {app: shop}
  ports: [{port: 80, targetPort: 80}]
---
apiVersion: v1
kind: Pod
metadata: {name: shop, namespace: edge, labels: {app: shop}}
spec:
  containers: [{name: web, image: "nginx:1.27", ports: [{containerPort: 80}]}]
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: edge}
spec:
  containers: [{name: c, image: "busybox:1.36", command: [sleep, "3600"]}]
"""
TRAEFIK = "http://traefik.kube-system.svc.cluster.local/"


def test_requests_through_k3s_traefik(cluster):
    from kubeproof.nodesim.realshell import available

    installed = run_cli("cluster", "addons", "install", "traefik", "-c", cluster.name)
    assert installed.returncode == 0, installed.stderr
    assert "Deployment/traefik created" in installed.stdout
    assert "IngressClass/traefik created" in installed.stdout
    cluster.kubectl("create", "namespace", "edge")
    cluster.kubectl("apply", "-f", "-", input=EDGE)
    cluster.kubectl("rollout", "status", "deployment/traefik", "-n", "kube-system", "--timeout=90s")
    cluster.kubectl("rollout", "status", "deployment/portal", "-n", "edge", "--timeout=60s")
    for pod in ("client", "shop"):
        cluster.kubectl("wait", f"pod/{pod}", "-n", "edge", "--for=condition=Ready")
    # the class-less Ingress got the default class from the DefaultIngressClass plugin
    shop = json.loads(cluster.kubectl("get", "ingress", "shop", "-n", "edge", "-o", "json").stdout)
    assert shop["spec"]["ingressClassName"] == "traefik"

    def get(host: str):
        return cluster.kubectl(
            "exec", "client", "-n", "edge", "--",
            "wget", "-qO-", "-T", "3", "--header", f"Host: {host}", TRAEFIK,
            check=False,
        )  # fmt: skip

    nginx = get("shop.example.test")
    assert nginx.returncode == 0 and "<title>Welcome to nginx!</title>" in nginx.stdout
    if available():  # the script runs for real: its httpd serves the file it wrote
        portal = get("portal.example.test")
        assert (portal.returncode, portal.stdout) == (0, "portal route restored\n"), portal
    wrong = get("nowhere.example.test")
    assert wrong.returncode == 1
    assert wrong.stderr.startswith("wget: server returned error: HTTP/1.1 404 Not Found\n")
    curl = cluster.kubectl(
        "exec", "client", "-n", "edge", "--", "wget", "-qO-", "http://traefik.kube-system:443/",
        check=False,
    )  # fmt: skip
    assert "400 Bad Request" in curl.stderr
    logs = cluster.kubectl("logs", "deployment/traefik", "-n", "kube-system").stdout
    assert " INF Traefik version 3.7.4 built on " in logs
