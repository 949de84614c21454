"""Choosing a loopback address per cluster: each cluster binds 127.0.X.Y with the default
ports, so no port allocator is needed and URLs look like a real cluster's.

Addresses are reserved machine-wide (a file per address under the temp directory), not per
state directory: two harnesses with different KUBEPROOF_STATE_DIRs must not pick the same
address between choosing it and binding it.
"""

import errno
import fcntl
import json
import os
import socket
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import psutil

from kubeproof.cluster.components import PORTS
from kubeproof.cluster.process import ProcessRef
from kubeproof.errors import KubeproofError


def reservations_dir() -> Path:
    path = Path(tempfile.gettempdir()) / f"kubeproof-{os.getuid()}" / "addresses"
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def _lock():
    with open(reservations_dir() / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def _reservation_live(path: Path) -> bool:
    """Live while the reserving process runs or any process of its cluster does."""
    try:
        entry = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    if psutil.pid_exists(entry.get("pid", -1)):
        return True
    try:
        record = json.loads(Path(entry["state_dir"], "cluster.json").read_text())
    except (OSError, ValueError, KeyError):
        return False
    components = record.get("components", {}).values()
    return any(ProcessRef(c["pid"], c["started"]).alive() for c in components)


def _reserve(address: str, state_dir: Path) -> None:
    entry = {"state_dir": str(state_dir), "pid": os.getpid()}
    (reservations_dir() / address).write_text(json.dumps(entry))


def release(address: str, state_dir: Path) -> None:
    """Drop the reservation of `address` if the cluster in `state_dir` still holds it."""
    path = reservations_dir() / address
    with _lock():
        if _owner(path) in (None, state_dir.resolve()):
            path.unlink(missing_ok=True)


def _owner(path: Path) -> Path | None:
    try:
        return Path(str(json.loads(path.read_text())["state_dir"])).resolve()
    except (OSError, ValueError, KeyError, TypeError):
        return None


def taken_over(address: str, state_dir: Path) -> bool:
    """True when a live cluster other than the one in `state_dir` holds `address`: once a
    cluster's processes are gone its address is free for another harness to reserve, and
    stopping the dead cluster must then neither wait for those ports nor release them."""
    path = reservations_dir() / address
    with _lock():
        owner = _owner(path)
        return owner not in (None, state_dir.resolve()) and _reservation_live(path)


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


def reserve(state_dir: Path, address: str | None = None) -> str:
    """Reserve `address` (checked free) or the first free one, for the cluster in state_dir."""
    with _lock():
        if address:
            path = reservations_dir() / address
            if path.exists() and _reservation_live(path):
                owner = json.loads(path.read_text())["state_dir"]
                raise KubeproofError(
                    f"{address} is reserved by the cluster in {owner}",
                    hint="choose another --address",
                )
            check_address(address)
            _reserve(address, state_dir)
            return address
        for candidate in candidates():
            path = reservations_dir() / candidate
            if path.exists() and _reservation_live(path):
                continue
            if not busy_ports(candidate):
                _reserve(candidate, state_dir)
                return candidate
    raise KubeproofError("no free loopback address 127.0.X.Y with the default ports is left")


def wait_ports_released(address: str, timeout: float = 5.0) -> dict[str, int]:
    """After the processes exit the kernel may hold a listener for a moment longer.
    Returns what is still bound when `timeout` runs out (normally nothing)."""
    deadline = time.monotonic() + timeout
    while (busy := busy_ports(address)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return busy
