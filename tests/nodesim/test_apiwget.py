"""A real script's wget to the cluster's API (nodesim/apiwget.py), without a cluster: which
URLs are the API's as netsim sees them, the request busybox wget would send (captured by a
loopback HTTP server), what the script is told for a 200 and a 403, and a script pod that
starts only once its token is there."""

import http.client
import http.server
import threading
import time
from typing import ClassVar

import pytest

from kubeproof.fidelity.golden import StaticWorld, pod_object
from kubeproof.netsim.connect import Network
from kubeproof.nodesim import apiwget, catalog, runbox, tokens
from kubeproof.nodesim.pod import PodRuntime
from kubeproof.nodesim.realshell import Runner
from kubeproof.nodesim.timing import REAL

CATALOG = catalog.shipped()

POD = {
    "kind": "Pod",
    "metadata": {"name": "worker", "namespace": "shop", "labels": {"app": "worker"}},
    "spec": {"containers": [{"name": "w", "image": "busybox:1.36"}]},
    "status": {"podIP": "10.244.0.5", "phase": "Running"},
}
API = [
    {
        "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default"},
        "spec": {
            "clusterIP": "10.96.0.1",
            "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}],
        },
    },
    {
        "kind": "EndpointSlice",
        "metadata": {
            "name": "kubernetes",
            "namespace": "default",
            "labels": {"kubernetes.io/service-name": "kubernetes"},
        },
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["172.18.0.2"]}],
        "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}],
    },
]
DNS = [
    {
        "kind": "Service",
        "metadata": {"name": "kube-dns", "namespace": "kube-system"},
        "spec": {
            "clusterIP": "10.96.0.10",
            "selector": {"k8s-app": "kube-dns"},
            "ports": [{"name": "dns", "port": 53, "protocol": "UDP"}],
        },
    },
    {
        "kind": "Pod",
        "metadata": {
            "name": "coredns",
            "namespace": "kube-system",
            "labels": {"k8s-app": "kube-dns"},
        },
        "spec": {"containers": [{"name": "c", "image": "coredns"}]},
        "status": {
            "podIP": "10.244.0.2",
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    },
]
DENY_EGRESS = {
    "kind": "NetworkPolicy",
    "metadata": {"name": "dns-only", "namespace": "shop"},
    "spec": {
        "podSelector": {},
        "policyTypes": ["Egress"],
        "egress": [{"ports": [{"port": 53, "protocol": "UDP"}]}],
    },
}
TOKEN_ARGS = [
    "--no-check-certificate",
    "--header",
    "Authorization: Bearer tok-123",
    "-qO-",
    "https://kubernetes.default.svc/api/v1/namespaces/shop/configmaps/worker-runtime",
]


def _route(args: list[str], extra: tuple[dict, ...] = ()) -> apiwget.Route | None:
    net = Network.from_objects([POD, *API, *DNS, *extra])
    call, me = apiwget.parse(args), net.pod("shop/worker")
    assert call is not None and me is not None
    return apiwget.route(net, me, call)


@pytest.mark.parametrize(
    "url",
    [
        "https://kubernetes.default.svc/api",
        "https://kubernetes.default.svc.cluster.local/api",
        "https://kubernetes.default/api",
        "https://10.96.0.1:443/api",
        "https://10.96.0.1/api",
    ],
)
def test_the_api_by_its_names_and_cluster_ip(url):
    found = _route(["-qO-", url])
    assert found is not None and found.answer is None
    # the address the client connects to: the ClusterIP (DNAT to 172.18.0.2:6443 unseen)
    assert found.path == "/api" and found.address == "10.96.0.1:443"


@pytest.mark.parametrize(
    "url",
    [
        "https://kubernetes/api",  # from namespace shop: kubernetes.shop.svc… does not exist
        "http://kubernetes.default.svc/api",  # port 80 is not the Service's
        "https://kubernetes.default.svc:6443/api",
        "https://example.com/",
        "https://user:pw@kubernetes.default.svc/api",
        "kubernetes.default.svc/api",  # no scheme: http, port 80
    ],
)
def test_other_urls_are_netsim_s(url):
    assert _route(["-qO-", url]) is None


def test_no_dns_leaves_netsim_s_answer():
    no_dns = {
        **DENY_EGRESS,
        "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": []},
    }
    assert _route(["https://kubernetes.default.svc/api"], (no_dns,)) is None
    # by its ClusterIP no lookup is made: the policy drops the connection itself
    found = _route(["-q", "https://10.96.0.1/api"], (no_dns,))
    assert found is not None and found.answer == ("", "wget: download timed out\n", 1)


def test_egress_policy_drops_the_request():
    args = ["--header", "Authorization: Bearer x", "https://kubernetes.default.svc/api"]
    found = _route(args, (DENY_EGRESS,))
    assert found is not None
    assert found.answer == (
        "",
        "Connecting to kubernetes.default.svc (10.96.0.1:443)\nwget: download timed out\n",
        1,
    )


def test_options_as_busybox_reads_them():
    call = apiwget.parse(["-q", "-O", "/tmp/x.json", "-T3", "--header=A: b", "-U", "me", "u"])
    assert call == apiwget.Call(
        urls=["u"], headers=["A: b"], quiet=True, user_agent="me", timeout=3
    )
    call = apiwget.parse(["-nv", "--no-verbose", "-qSO-", "--post-data", "a=1", "--", "-u"])
    assert call == apiwget.Call(urls=["-u"], quiet=True, post_data="a=1")
    assert apiwget.parse(["--bogus", "u"]) is None  # busybox prints its usage
    assert apiwget.parse(["-x", "u"]) is None
    assert apiwget.parse(["-q"]) is None  # "-1": at least one URL
    assert apiwget.parse(["--header"]) is None


def test_the_path_is_cut_where_busybox_cuts_it():
    # parse_url: the host ends at the first '/', '?' or '#'; what follows goes after "GET /"
    assert apiwget.split_url("https://h:6443/api/v1?watch=1") == (
        "https",
        "h:6443",
        "api/v1?watch=1",
    )
    assert apiwget.split_url("https://h?x=1") == ("https", "h", "x=1")
    assert apiwget.split_url("https://h") == ("https", "h", "")
    assert apiwget.split_url("h/api") is None


def test_host_and_user_agent_given_replace_wget_s_own():
    args = ["--header", "Host: api.local", "--header", "User-Agent: probe/1", "https://10.96.0.1/"]
    call = apiwget.parse(args)
    assert apiwget.request_headers(call, _route(args)) == [
        ("Connection", "close"),
        ("Host", "api.local"),
        ("User-Agent", "probe/1"),
    ]


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list] = []
    bodies: ClassVar[list] = []
    status = 200

    def do_POST(self):
        self.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.do_GET()

    def do_GET(self):
        type(self).seen.append((self.requestline, list(self.headers.items())))
        body = b'{"data":{"mode":"process"}}' if self.status == 200 else b'{"kind":"Status"}'
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    _Recorder.seen, _Recorder.bodies, _Recorder.status = [], [], 200
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_the_request_is_busybox_wget_s_with_the_script_s_token(server):
    call = apiwget.parse(TOKEN_ARGS)
    out, err, code = apiwget.perform(call, _route(TOKEN_ARGS), server, http.client.HTTPConnection)
    assert (out, err, code) == ('{"data":{"mode":"process"}}', "", 0)
    [(line, headers)] = _Recorder.seen
    assert line == "GET /api/v1/namespaces/shop/configmaps/worker-runtime HTTP/1.1"
    assert headers == [
        ("Host", "kubernetes.default.svc"),
        ("User-Agent", "Wget"),
        ("Connection", "close"),
        ("Authorization", "Bearer tok-123"),
    ]


def test_a_403_is_busybox_wget_s_error_line(server):
    _Recorder.status = 403
    args = ["--header", "Authorization: Bearer t", "https://kubernetes.default.svc/api"]
    call = apiwget.parse(args)
    out, err, code = apiwget.perform(call, _route(args), server, http.client.HTTPConnection)
    assert (out, code) == ("", 1)
    assert err == (
        "Connecting to kubernetes.default.svc (10.96.0.1:443)\n"
        "wget: note: TLS certificate validation not implemented\n"
        "wget: server returned error: HTTP/1.0 403 Forbidden\n"
    )


def test_a_post_sends_its_data_and_a_refused_connection_is_wget_s_line(server):
    args = ["-q", "--post-data", "x=1", "https://kubernetes.default.svc/apis"]
    call = apiwget.parse(args)
    out, err, code = apiwget.perform(call, _route(args), server, http.client.HTTPConnection)
    [(line, headers)] = _Recorder.seen
    assert line == "POST /apis HTTP/1.1" and code == 0
    assert headers[-2:] == [
        ("Content-Type", "application/x-www-form-urlencoded"),
        ("Content-Length", "3"),
    ]
    assert _Recorder.bodies == [b"x=1"]
    closed = "127.0.0.1:1"  # nothing listens there
    out, err, code = apiwget.perform(call, _route(args), closed, http.client.HTTPConnection)
    assert (out, code) == ("", 1)
    assert err.endswith("wget: can't connect to remote host: Connection refused\n")


@pytest.mark.skipif(not runbox.available(), reason="needs busybox-static and bubblewrap")
def test_the_script_starts_only_once_its_token_is_written(tmp_path):
    # projected.go collectData / token_manager.go GetServiceAccountToken: no token, no
    # mount ("failed to fetch token: …", retried with back-off), no container started
    world = StaticWorld()
    world.runner = Runner(tmp_path / "containers")
    sa = "/var/run/secrets/kubernetes.io/serviceaccount"
    volume = {
        "name": "kube-api-access-x",
        "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]},
    }
    spec = {
        "restartPolicy": "Never",
        "volumes": [volume],
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sh", "-c", f"cat {sa}/token"],
                "volumeMounts": [{"name": volume["name"], "mountPath": sa, "readOnly": True}],
            }
        ],
    }
    runtime = PodRuntime(pod_object(spec), "10.244.1.2", set(), REAL)
    runtime.tokens = tokens.PodTokens(runtime.obj)
    refused = 'serviceaccounts "default" is forbidden: no relationship found'
    message = f'MountVolume.SetUp failed for volume "{volume["name"]}" : failed to fetch token: '
    runtime.tokens.error = volume["name"], message + refused
    now = time.time()
    events = runtime.advance(now, world, CATALOG)
    assert [(e.reason, e.message) for e in events] == [("FailedMount", message + refused)]
    assert runtime.app[0].stage == "pull" and runtime.next_at() == now + 0.5
    runtime.tokens.error = None  # the next request was granted
    runtime.tokens.set_token(volume["name"], "token", "eyJhbGciOi.token")
    try:
        end = time.time() + 60
        while runtime.app[0].stage != "exited" and time.time() < end:
            runtime.advance(time.time(), world, CATALOG)
            time.sleep(0.2)
        assert [line for _, line in runtime.app[0].logs] == ["eyJhbGciOi.token"]
    finally:
        runtime.kill(time.time(), CATALOG)
