"""Choosing a loopback address per cluster: each cluster binds 127.0.X.Y with the default
ports, so no port allocator is needed and URLs look like a real cluster's."""

import errno
import socket
import time

import psutil

from kubeproof.cluster.components import PORTS
from kubeproof.cluster.record import all_records
from kubeproof.errors import KubeproofError


def port_free(address: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # the Go servers set SO_REUSEADDR too, so a socket in TIME_WAIT does not block them
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, port))
            return True
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise


def busy_ports(address: str) -> dict[str, int]:
    return {name: port for name, port in PORTS.items() if not port_free(address, port)}


def who_listens(address: str, port: int) -> str:
    try:
        for conn in psutil.net_connections("tcp"):
            listening = conn.status == psutil.CONN_LISTEN and conn.laddr and conn.pid
            if listening and conn.laddr.port == port and conn.laddr.ip in (address, "0.0.0.0"):
                return f"{psutil.Process(conn.pid).name()} (pid {conn.pid})"
    except psutil.Error:
        pass
    return "another process"


def check_address(address: str) -> None:
    busy = busy_ports(address)
    if busy:
        name, port = next(iter(busy.items()))
        raise KubeproofError(
            f"{address}:{port} ({name} port) is in use by {who_listens(address, port)}",
            hint="choose another --address, or leave it out to pick a free one",
        )


def candidates():
    for x in range(1, 255):
        for y in range(1, 255):
            yield f"127.0.{x}.{y}"


def allocate() -> str:
    taken = {r.address for r in all_records()}
    for address in candidates():
        if address not in taken and not busy_ports(address):
            return address
    raise KubeproofError("no free loopback address 127.0.X.Y with the default ports is left")


def wait_ports_released(address: str, timeout: float = 5.0) -> dict[str, int]:
    """After the processes exit the kernel may hold a listener for a moment longer.
    Returns what is still bound when `timeout` runs out (normally nothing)."""
    deadline = time.monotonic() + timeout
    while (busy := busy_ports(address)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return busy
