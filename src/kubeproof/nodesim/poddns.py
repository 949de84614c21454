"""The cluster DNS as a pod's own network namespace sees it (podnet.py): a UDP server on the
cluster DNS Service's address (the `nameserver` of the pod's /etc/resolv.conf) inside the
namespace, answering each query with what netsim's resolver says for that pod — Services,
headless pods, CoreDNS's loaded Corefile, the pod's egress policy towards DNS — so that
kubectl's `--server=https://kubernetes.default.svc` resolves as it would on a node.

Go's resolver (kubectl is built without cgo) applies the search list and ndots itself and
asks absolute names, A and AAAA apart (net/dnsclient_unix.go); each is answered as CoreDNS's
kubernetes plugin answers: authoritative, TTL 5, A records for the addresses, no AAAA
(the cluster is IPv4), NXDOMAIN for a name that does not exist. A query netsim says times
out (DNS unreachable under policy) gets no answer. Queries are parsed strictly: one
question, no compression in it, at most 255 bytes of name; anything else is dropped."""

import contextlib
import ctypes
import ipaddress
import os
import socket
import struct
import subprocess
import threading
from collections.abc import Callable

CLONE_NEWNET = 0x40000000
HOST_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
TTL = 5  # CoreDNS kubernetes plugin's default ttl
MAX_QUERY = 512
# (absolute name) -> ("ok", addresses) | ("nxdomain", []) | ("timeout", []): netsim's lookup
Lookup = Callable[[str], tuple[str, list[str]]]
_libc = ctypes.CDLL(None, use_errno=True)


def answer(query: bytes, lookup: Lookup) -> bytes | None:
    """The reply to one DNS query, None to drop it."""
    if len(query) < 12 or len(query) > MAX_QUERY:
        return None
    qid, flags, questions = struct.unpack(">HHH", query[:6])
    if flags & 0x8000 or (flags >> 11) & 0xF or questions != 1:
        return None  # a response, an opcode other than QUERY, or not one question
    labels, at = [], 12
    while True:
        if at >= len(query):
            return None
        size = query[at]
        if size == 0:
            at += 1
            break
        if size & 0xC0 or at + 1 + size > len(query) or at - 12 > 255:
            return None
        labels.append(query[at + 1 : at + 1 + size])
        at += 1 + size
    if at + 4 > len(query):
        return None
    qtype, qclass = struct.unpack(">HH", query[at : at + 4])
    try:
        name = b".".join(labels).decode("ascii").lower() + "."
    except UnicodeDecodeError:
        return None
    status, addresses = lookup(name)
    if status == "timeout":
        return None
    rcode = 3 if status == "nxdomain" else 0
    records = []
    if qtype == 1 and qclass == 1 and rcode == 0:
        for address in addresses:
            with contextlib.suppress(ValueError):
                if ipaddress.ip_address(address).version == 4:
                    fixed = struct.pack(">HHIH", 1, 1, TTL, 4)
                    records.append(b"\xc0\x0c" + fixed + socket.inet_aton(address))
    # QR, AA, RD copied, RA; the rcode
    reply_flags = 0x8000 | 0x0400 | (flags & 0x0100) | 0x0080 | rcode
    header = struct.pack(">HHHHHH", qid, reply_flags, 1, len(records), 0, 0)
    return header + query[12 : at + 4] + b"".join(records)


class Server:
    """The DNS server in the network namespace `netns_fd` (an fd of ours) at `address:53`."""

    def __init__(self, netns_fd: int, address: str, lookup: Lookup) -> None:
        made: dict = {}
        thread = threading.Thread(target=self._open, args=(netns_fd, address, made))
        thread.start()
        thread.join()
        if "error" in made:
            raise made["error"]
        self.sock: socket.socket = made["sock"]
        threading.Thread(target=self._serve, args=(lookup,), daemon=True).start()

    @staticmethod
    def _open(netns_fd: int, address: str, made: dict) -> None:
        """In a thread of its own, which the namespace change ends with."""
        try:
            if _libc.setns(netns_fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            subprocess.run(  # forked from this thread: inside the namespace
                ["ip", "addr", "add", f"{address}/32", "dev", "lo"],
                check=True,
                capture_output=True,
                env={"PATH": HOST_PATH},
            )
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.bind((address, 53))
            made["sock"] = sock
        except (OSError, subprocess.CalledProcessError) as exc:
            made["error"] = exc

    def _serve(self, lookup: Lookup) -> None:
        while True:
            try:
                query, peer = self.sock.recvfrom(MAX_QUERY + 1)
            except OSError:
                return  # closed: the pod is gone
            try:
                reply = answer(query, lookup)
            except Exception:  # the lookup failed (the node's loop busy): no answer
                reply = None
            if reply is not None:
                with contextlib.suppress(OSError):
                    self.sock.sendto(reply, peer)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
