"""A pod's network namespace for images that ship kubectl (nodesim/podnet.py): the Service
address 10.96.0.1:443 inside answers from the server behind it and nothing else does; a
connection netsim's policy refuses is dropped; stock kubectl is bound where the image has
its own. Run directly in the sandbox (runbox.py) against a loopback HTTP server — no
cluster (the live test is test_podnet_live.py)."""

import http.server
import os
import struct
import threading
from pathlib import Path

import pytest

from kubeproof.cluster.versions import versions
from kubeproof.nodesim import poddns, runbox
from kubeproof.nodesim.liveproc import Live
from kubeproof.nodesim.podnet import SERVICE, PodNetworks, stock_kubectl
from kubeproof.nodesim.runbox import Box, Run

pytestmark = [
    pytest.mark.skipif(not runbox.available(), reason="needs busybox-static and bubblewrap"),
    pytest.mark.skipif(os.geteuid() != 0, reason="a network namespace per pod needs root"),
]
GET = "(printf 'GET /api/v1 HTTP/1.0\\r\\n\\r\\n'; sleep 2)"  # stdin open: the relay ends on EOF
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}


class _Pod:
    def __init__(self, uid: str) -> None:
        self.uid = uid


@pytest.fixture
def server():
    """A loopback HTTP server standing for the apiserver: answers every GET with its path."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = f"served {self.path}\n".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address
    httpd.shutdown()
    httpd.server_close()


def _run(tmp_path: Path, networks: PodNetworks, script: str, **fields) -> tuple[str, int]:
    box = Box(
        tmp_path / "c",
        runbox.pod_uid(),
        runbox.container_limits({"limits": {"memory": "128Mi"}}),
        networks.of(_Pod("pod-1")),
    )
    logs: list[tuple[float, str]] = []
    live = Live(box, Run(argv=["sh", "-c", script], env=ENV, **fields), logs)
    assert live.wait(40), "the script did not exit"
    return "\n".join(line for _, line in logs), live.exit_code


def test_the_service_address_reaches_the_server_behind_it_and_nothing_else(tmp_path, server):
    networks = PodNetworks(SERVICE, server)
    try:
        out, code = _run(
            tmp_path,
            networks,
            # busybox's nc (Debian's static wget crashes resolving even an address)
            f"{GET} | nc -w 5 10.96.0.1 443 | tail -n 1; echo rc=$?;"
            f" {GET} | nc -w 2 127.0.0.1 {server[1]} 2>&1; echo rc=$?;"
            f" {GET} | nc -w 2 10.96.0.10 53 2>&1; echo rc=$?",
        )
    finally:
        networks.close()
    lines = out.splitlines()
    assert lines[:2] == ["served /api/v1", "rc=0"]
    assert not any("served" in line for line in lines[2:])  # nothing else is reachable
    assert code == 0


def test_a_connection_policy_refuses_is_dropped_not_relayed(tmp_path, server):
    asked: list[str] = []

    def admit(pod) -> bool:
        asked.append(pod.uid)
        return False

    networks = PodNetworks(SERVICE, server, admit)
    try:
        script = f"{GET.replace('sleep 2', 'sleep 6')} | timeout 3 nc 10.96.0.1 443; echo rc=$?"
        out, _ = _run(tmp_path, networks, script)
    finally:
        networks.close()
    # held unanswered: the client's own timeout ends it
    assert "served" not in out and out.splitlines()[-1] != "rc=0"
    assert asked == ["pod-1"]


@pytest.mark.skipif(stock_kubectl(versions().kubernetes) is None, reason="kubectl not built")
def test_stock_kubectl_is_bound_where_the_image_has_it(tmp_path, server):
    kubectl = stock_kubectl(versions().kubernetes)
    assert kubectl is not None
    networks = PodNetworks(SERVICE, server)
    try:
        out, code = _run(
            tmp_path,
            networks,
            "kubectl --server=http://10.96.0.1:443 get --raw /healthz; echo rc=$?;"
            " echo x > /usr/bin/kubectl || echo read-only",
            binaries={"/usr/bin/kubectl": kubectl},
        )
    finally:
        networks.close()
    assert out.splitlines()[:2] == ["served /healthz", "rc=0"]
    assert "read-only" in out and code == 0


def test_forget_closes_the_pods_namespace(server):
    networks = PodNetworks(SERVICE, server)
    net = networks.of(_Pod("pod-2"))
    assert networks.of(_Pod("pod-2")) is net  # one per pod, shared by its containers
    networks.forget("pod-2")
    assert networks.of(_Pod("pod-2")) is not net
    networks.close()


def _query(name: str, qtype: int = 1, qid: int = 0x1234) -> bytes:
    labels = b"".join(bytes([len(p)]) + p.encode() for p in name.rstrip(".").split("."))
    header = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 1)  # RD; an EDNS OPT as Go sends
    opt = b"\x00" + struct.pack(">HHIH", 41, 1232, 0, 0)
    return header + labels + b"\x00" + struct.pack(">HH", qtype, 1) + opt


def test_dns_answers_as_corednss_kubernetes_plugin():
    names = {
        "api.shop.svc.cluster.local.": ("ok", ["10.96.3.4"]),
        "blocked.": ("timeout", []),
    }

    def lookup(name: str) -> tuple[str, list[str]]:
        return names.get(name, ("nxdomain", []))

    reply = poddns.answer(_query("API.shop.svc.cluster.local"), lookup)
    assert reply is not None
    qid, flags, qd, an = struct.unpack(">HHHH", reply[:8])
    assert (qid, flags & 0x8000, flags & 0x0400, flags & 0xF, qd, an) == (
        0x1234,
        0x8000,
        0x0400,
        0,
        1,
        1,
    )
    assert reply.endswith(struct.pack(">HHIH", 1, 1, 5, 4) + bytes([10, 96, 3, 4]))
    aaaa = poddns.answer(_query("api.shop.svc.cluster.local", qtype=28), lookup)
    assert aaaa is not None and struct.unpack(">HH", aaaa[6:10]) == (0, 0)  # NODATA
    assert aaaa[3] & 0xF == 0
    missing = poddns.answer(_query("nope.cluster.local"), lookup)
    assert missing is not None and missing[3] & 0xF == 3  # NXDOMAIN
    assert poddns.answer(_query("blocked"), lookup) is None  # policy: the client times out
    for bad in (b"", b"\x00" * 11, _query("x")[:14], b"\xff" * 40):
        assert poddns.answer(bad, lookup) is None


@pytest.mark.skipif(stock_kubectl(versions().kubernetes) is None, reason="kubectl not built")
def test_kubectl_resolves_the_apiservers_name_in_the_pods_namespace(tmp_path, server):
    kubectl = stock_kubectl(versions().kubernetes)
    assert kubectl is not None
    asked: list[str] = []

    def lookup(pod, name: str) -> tuple[str, list[str]]:
        asked.append(name)
        if name == "kubernetes.default.svc.cluster.local.":
            return "ok", ["10.96.0.1"]
        return "nxdomain", []

    networks = PodNetworks(SERVICE, server, lookup=lookup)
    resolv = "search shop.svc.cluster.local svc.cluster.local cluster.local\n"
    resolv += "nameserver 10.96.0.10\noptions ndots:5\n"
    try:
        out, _ = _run(
            tmp_path,
            networks,
            "kubectl --server=http://kubernetes.default.svc:443 get --raw /version; echo rc=$?",
            binaries={"/usr/bin/kubectl": kubectl},
            files={"/etc/resolv.conf": resolv},
        )
    finally:
        networks.close()
    assert out.splitlines()[:2] == ["served /version", "rc=0"], out
    # Go's resolver: the search list first, absolute names
    assert "kubernetes.default.svc.shop.svc.cluster.local." in asked
    assert "kubernetes.default.svc.cluster.local." in asked
