"""A real script's wget and nslookup answered by netsim (nodesim/netbridge.py): the shim in
the sandbox, the host's bridge thread — no cluster (the answer is a stand-in for the node
simulator's) — and the request directory treated as hostile."""

import os
import time
from pathlib import Path

import pytest

from kubeproof.nodesim import netbridge, realshell, runbox
from kubeproof.nodesim.liveproc import Live
from kubeproof.nodesim.ncargs import parse_nc
from kubeproof.nodesim.runbox import Box, Run

ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}
needs_sandbox = pytest.mark.skipif(
    not runbox.available(), reason="needs busybox-static and bubblewrap"
)


def _answer(argv: list[str]) -> tuple[str, str, int]:
    if argv[0] == "wget" and "Host: portal.example.test" in argv:
        return "portal route restored\n", "", 0
    if argv[0] == "wget":
        return "", "wget: server returned error: HTTP/1.1 404 Not Found\n", 1
    return "Server:\t\t10.96.0.10\n", "", 0


def _sandbox(tmp_path: Path) -> tuple[Box, Path]:
    """A container's sandbox and its request directory, owned by the container's user."""
    home = tmp_path / "c"
    box = Box(home, runbox.pod_uid(), runbox.container_limits({}))
    net = home / "net"
    net.mkdir()
    if os.geteuid() == 0:
        os.lchown(net, box.uid, box.uid)
    return box, net


def _script(tmp_path: Path, script: str, answer) -> tuple[list[str], list[list[str]], Path]:
    """Run `script` with the tools' prelude, its requests answered by `answer`: (its log
    lines, the command lines asked, the request directory)."""
    box, net = _sandbox(tmp_path)
    run = Run(argv=netbridge.with_tools(["sh", "-c", script]), env=ENV, net_dir=net)
    logs: list[tuple[float, str]] = []
    seen: list[list[str]] = []

    def asked(argv):
        seen.append(argv)
        return answer(argv)

    live = Live(box, run, logs)
    netbridge.Bridge(net, asked, lambda: live.alive)
    assert live.wait(30)
    return [line for _, line in logs], seen, net


@needs_sandbox
def test_a_script_s_wget_is_answered_by_the_bridge(tmp_path):
    script = (
        "for h in portal.example.test other.example.test; do\n"
        '  if wget -qO- -T 3 --header "Host: $h" http://traefik.kube-system.svc.cluster.local/ '
        '| grep -q "portal route restored"; then echo "$h ok"; else echo "$h failed" >&2; fi\n'
        "done\n"
        "wget -qO- http://x/ ; echo code=$?\n"
        "nslookup api >/dev/null && echo resolved"
    )
    lines, seen, net = _script(tmp_path, script, _answer)
    assert lines[:3] == [
        "portal.example.test ok",
        "wget: server returned error: HTTP/1.1 404 Not Found",
        "other.example.test failed",
    ], lines
    assert "code=1" in lines and lines[-1] == "resolved"
    assert seen[0] == [
        "wget", "-qO-", "-T", "3", "--header", "Host: portal.example.test",
        "http://traefik.kube-system.svc.cluster.local/",
    ]  # fmt: skip
    assert list(net.iterdir()) == []  # every request cleaned up by the shim


@needs_sandbox
def test_wget_dash_o_writes_the_body_into_the_containers_file(tmp_path):
    # infra-bench reconnect-frontend-api: `wget -q -O /tmp/api-response URL && grep -q ...`
    # (busybox networking/wget.c: -O FILE receives the body); the shim writes it inside the
    # sandbox as the container's user, and a failed download leaves no file
    box, net = _sandbox(tmp_path)
    script = (
        'wget -q -O /tmp/got --header "Host: portal.example.test" http://x/ && cat /tmp/got\n'
        "wget -q -O /tmp/none http://x/ || test -e /tmp/none || echo no-file\n"
        "wget -qO- --header 'Host: portal.example.test' http://x/"
    )
    run = Run(argv=netbridge.with_tools(["sh", "-c", script]), env=ENV, net_dir=net)
    logs: list[tuple[float, str]] = []
    live = Live(box, run, logs)
    netbridge.Bridge(net, _answer, lambda: live.alive)
    assert live.wait(30)
    assert [line for _, line in logs] == [
        "portal route restored",
        "wget: server returned error: HTTP/1.1 404 Not Found",
        "no-file",
        "portal route restored",
    ]
    assert list(net.iterdir()) == []


def test_the_output_file_is_read_as_busybox_wget_reads_its_options():
    of = netbridge.output_file
    assert of(["wget", "-q", "-O", "/tmp/a", "http://x/"]) == "/tmp/a"
    assert of(["wget", "-qO", "/tmp/b", "http://x/"]) == "/tmp/b"
    assert of(["wget", "-O/tmp/c", "http://x/"]) == "/tmp/c"
    assert of(["wget", "--output-document=/tmp/d", "http://x/"]) == "/tmp/d"
    assert of(["wget", "-qO-", "http://x/"]) is None  # stdout
    assert of(["wget", "-q", "--header", "X-O: 1", "http://x/"]) is None
    assert of(["nslookup", "x"]) is None


def test_hostile_request_directories_are_not_followed(tmp_path):
    net = tmp_path / "net"
    net.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (net / "r.1.1").symlink_to(outside)  # a link in place of a request directory
    req = net / "r.2.2"
    req.mkdir()
    (req / "argv").write_bytes(b"wget\0http://x/\0")
    (req / "out").symlink_to(tmp_path / "victim")  # an answer file planted as a link
    odd = net / "r.3.3"
    odd.mkdir()
    (odd / "argv").write_bytes(b"rm\0-rf\0/\0")  # not a network tool
    calls: list[list[str]] = []
    bridge = netbridge.Bridge.__new__(netbridge.Bridge)
    bridge.directory, bridge.answer = net, lambda a: (calls.append(a), ("", "", 0))[1]
    assert bridge.poll() == 0 and calls == []
    assert not (tmp_path / "victim").exists() and list(outside.iterdir()) == []
    fine = net / "r.4.4"
    fine.mkdir()
    (fine / "argv").write_bytes(b"wget\0http://x/\0")
    assert bridge.poll() == 1 and bridge.poll() == 0  # answered once
    assert (fine / "done").exists() and (fine / "code").read_text() == "0\n"
    assert calls == [["wget", "http://x/"]]
    big = net / "r.5.5"
    big.mkdir()
    (big / "argv").write_bytes(b"wget\0" + b"a" * netbridge.MAX_ARGV + b"\0")
    assert bridge.poll() == 0


@needs_sandbox
def test_a_script_s_nc_is_netsims_but_its_own_loopback_is_real(tmp_path):
    # infra-bench harden-payments-stack: `nc -z -w 3 payments-api... 8080` in a client loop;
    # busybox nc's options (networking/nc_bloaty.c) read as nc_main reads them; a listener
    # and a connection to the container's own loopback run the real applet
    script = (
        "nc -z -w 3 payments-api.payments-core.svc.cluster.local 8080 && echo confirmed\n"
        "nc -zw3 ledger 5432 || echo ledger-down\n"
        "nc -l -p 9000 > /tmp/got &\n"
        "sleep 0.5\n"
        "echo hello | nc -w 2 127.0.0.1 9000; wait\n"
        "cat /tmp/got"
    )

    def answer(argv):
        if argv[0] == "nc" and realshell.nc_stays_real(argv[1:], pod_network=False):
            return "", "", netbridge.REAL
        return "", "", 0 if "8080" in argv else 1

    lines, seen, net = _script(tmp_path, script, answer)
    assert lines == ["confirmed", "ledger-down", "hello"]
    assert [a[-2:] for a in seen] == [
        ["payments-api.payments-core.svc.cluster.local", "8080"],
        ["ledger", "5432"],
        ["127.0.0.1", "9000"],
    ]  # the listener never asked: it is the applet
    assert list(net.iterdir()) == []


def test_nc_command_lines_read_as_busybox_reads_them():
    assert parse_nc(["-z", "-w", "3", "db", "5432"]) == (["db", "5432"], 0, None)
    assert parse_nc(["-vvzw3", "db", "5432"]) == (["db", "5432"], 2, None)
    assert parse_nc(["db", "5432", "-e", "/bin/sh", "-i"]) == (["db", "5432"], 0, None)
    assert parse_nc(["-x", "db", "1"])[2] == "invalid option -- 'x'"
    assert parse_nc(["-w"])[2] == "option requires an argument -- 'w'"
    assert parse_nc(["db"])[2] == ""  # one operand: the usage
    assert realshell.nc_stays_real(["-z", "localhost", "80"], pod_network=False)
    assert not realshell.nc_stays_real(["-z", "10.96.0.1", "443"], pod_network=False)
    assert realshell.nc_stays_real(["-w", "5", "10.96.0.1", "443"], pod_network=True)
    assert realshell.nc_stays_real(["kubernetes.default.svc", "443"], pod_network=True)
    assert not realshell.nc_stays_real(["web", "80"], pod_network=True)


def test_the_shim_replaces_only_the_tools_it_serves():
    assert set(netbridge.TOOLS) <= runbox.NETWORK_APPLETS
    assert netbridge.NET_DIR in netbridge.SHIM and time.time() > 0
    assert Path(netbridge.NET_DIR).is_absolute()
