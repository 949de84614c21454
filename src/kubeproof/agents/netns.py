"""The sandbox's network: a network namespace of its own whose only way out is a forwarder the
harness owns, to the trial's apiserver (and the model endpoints a CLI agent's config declares).

The harness creates the namespace from a thread of its own (network namespaces are per
thread): the thread unshares CLONE_NEWNET, brings up loopback, and opens there a listening
socket on the apiserver's own address and port (`127.0.X.Y:6443` for an embedded cluster), so
the agent's kubeconfig, the apiserver's certificate and stock kubectl work unchanged. Each
connection accepted there is relayed by the harness, from the host's namespace, to the
apiserver and nowhere else. The namespace has no other interface and no route: etcd, the
controller-manager's and scheduler's ports, other trials' apiservers and everything off the
machine are unreachable. Agent commands join the namespace (`nsenter --net`) before
bubblewrap drops them to an unprivileged user, which holds no capability over it.

A server named by hostname is listened for on a loopback address of its own (127.0.0.2, .3 …)
and named in the sandbox's /etc/hosts; a non-loopback IP address is added to the namespace's
loopback interface. A declared endpoint is routed the same way, to that host and port only
(TLS passes through untouched: the program sees the endpoint's own certificate).

Creating a network namespace needs CAP_SYS_ADMIN. As another user, the harness starts a
holder instead (`python -m kubeproof.agents.netns`, in a user and network namespace of its
own): it listens inside as above and hands each connection to a unix socket of the harness,
which relays it to the apiserver; commands join the holder's namespaces.
"""

import contextlib
import ctypes
import fcntl
import ipaddress
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from kubeproof.errors import KubeproofError

CLONE_NEWNET = 0x40000000  # include/uapi/linux/sched.h
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1  # include/uapi/linux/sockios.h, if.h
MAX_CONNECTIONS = 64  # at once; more are refused (the agent cannot tie up harness threads)
DROP_SECONDS = 30.0  # a connection `admit` refuses is held unanswered this long, then closed
HOSTNAME_ADDRESSES = 250  # 127.0.0.2 … for servers named by hostname
HOST_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
_libc = ctypes.CDLL(None, use_errno=True)


class NetnsUnavailable(KubeproofError):
    pass


def _unshare_net() -> None:
    if _libc.unshare(CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise NetnsUnavailable(
            f"cannot create a network namespace for the sandbox: {os.strerror(err)}",
            hint="agent commands run in a network namespace of their own, which needs root "
            "(CAP_SYS_ADMIN); run kubeproof as root (as CI does) — `kubeproof doctor` checks",
        )


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifreq = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, ifreq))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def _serve(
    listener: socket.socket,
    target,
    slots: threading.BoundedSemaphore,
    admit: Callable[[], bool] | None = None,
    source: str | None = None,
) -> None:
    """Accept in the sandbox's namespace, connect from the host's (this thread's). `admit`,
    asked per connection, may drop it (a NetworkPolicy's verdict)."""
    while True:
        try:
            inside, _ = listener.accept()
        except OSError:
            return  # closed: the sandbox is gone
        if not slots.acquire(blocking=False):
            inside.close()
            continue
        args = (inside, target, slots, admit, source)
        threading.Thread(target=_relay, args=args, daemon=True).start()


def _connect(target: tuple | str, source: str | None = None) -> socket.socket:
    if isinstance(target, str):  # the harness's unix socket, from the holder
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(target)
        except OSError:
            s.close()
            raise
        return s
    return socket.create_connection(
        target, timeout=10, source_address=None if source is None else (source, 0)
    )


def _drop(inside: socket.socket) -> None:
    """A connection policy drops: nothing ever answers (the client's own timeout ends it, as
    for a SYN a CNI drops), held at most DROP_SECONDS."""
    inside.settimeout(DROP_SECONDS)
    with contextlib.suppress(OSError):
        while inside.recv(65536):
            pass


def _relay(
    inside: socket.socket,
    target,
    slots: threading.BoundedSemaphore,
    admit: Callable[[], bool] | None = None,
    source: str | None = None,
) -> None:
    try:
        if admit is not None and not admit():
            with inside:
                _drop(inside)
            return
        with inside, _connect(target, source) as outside:
            outside.settimeout(None)
            back = threading.Thread(target=_pump, args=(outside, inside), daemon=True)
            back.start()
            _pump(inside, outside)
            back.join()
    except OSError:
        pass
    finally:
        slots.release()


@dataclass(frozen=True)
class Route:
    """One service reachable from inside: listened for at `listen`, relayed to `target`."""

    url: str
    listen: tuple[str, int]
    target: tuple  # a socket address, resolved once, from the host's namespace
    hosts: str  # the sandbox's /etc/hosts line when the URL names a hostname, else ""
    source: str | None = None  # the host address relayed connections leave from

    @property
    def address(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        return ipaddress.ip_address(self.listen[0])


def routes(urls: list[str]) -> list[Route]:
    """A route per distinct host and port of `urls`, each hostname on a loopback address of
    its own (so two names on one port do not collide)."""
    named: dict[str, str] = {}
    made: dict[tuple[str, int], Route] = {}
    for url_text in urls:
        url = urlsplit(url_text)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise KubeproofError(f"not an http(s) URL with a host: {url_text!r}")
        port = url.port or (443 if url.scheme == "https" else 80)
        hosts = ""
        try:
            listen = (str(ipaddress.ip_address(url.hostname)), port)
        except ValueError:
            if url.hostname not in named:
                if len(named) >= HOSTNAME_ADDRESSES:
                    raise KubeproofError("too many endpoints named by hostname") from None
                named[url.hostname] = f"127.0.0.{2 + len(named)}"
            listen = (named[url.hostname], port)
            hosts = f"{named[url.hostname]}\t{url.hostname}\n"
        if listen in made:
            continue
        try:
            target = socket.getaddrinfo(url.hostname, port, type=socket.SOCK_STREAM)[0][4]
        except OSError as exc:
            raise KubeproofError(f"cannot resolve {url.hostname!r} ({url_text}): {exc}") from exc
        made[listen] = Route(url_text, listen, target, hosts)
    return list(made.values())


def relay(listen: tuple[str, int], target: tuple[str, int], source: str | None = None) -> Route:
    """A route listened for at one address and relayed to another: a Service's ClusterIP
    and port standing for the server behind it (kube-proxy's DNAT), e.g. 10.96.0.1:443 for
    the apiserver at 127.0.X.Y:6443. `source`: the loopback address the relayed
    connections leave from, so the server sees whose they are (a pod's: audit.py)."""
    return Route(f"tcp://{listen[0]}:{listen[1]}", listen, target, "", source)


class ApiForwarder:
    """A network namespace whose only reachable services are `server` (the URL in the agent's
    kubeconfig) and the `endpoints` an agent's config declares. `enter()` gives the nsenter
    options that put a command in it; `hosts` holds the /etc/hosts lines the sandbox needs
    for services named by hostname."""

    def __init__(
        self,
        server: str | None,
        endpoints: list[str] | tuple[str, ...] = (),
        relays: Sequence[Route] = (),
        admit: Callable[[], bool] | None = None,
    ):
        """`server` None: a namespace with nothing to reach but the endpoints. `relays`:
        routes made by relay(). `admit`: asked for each connection (from a harness thread);
        False drops it."""
        if server is not None and not urlsplit(server).hostname:
            raise KubeproofError(f"the agent's kubeconfig names no server host: {server!r}")
        self.routes = [*routes([*([server] if server else []), *endpoints]), *relays]
        self.admit = admit
        self.hosts = "".join(dict.fromkeys(r.hosts for r in self.routes))
        if os.geteuid() != 0:
            self._hold()
            return
        made: dict = {}
        thread = threading.Thread(target=self._make, args=(made,), daemon=True)
        thread.start()
        thread.join()
        if "error" in made:
            raise made["error"]
        self.fd, listeners = made["fd"], made["listeners"]
        slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        for listener, route in zip(listeners, self.routes, strict=True):
            threading.Thread(
                target=_serve,
                args=(listener, route.target, slots, admit, route.source),
                daemon=True,
            ).start()
        self._finalizer = weakref.finalize(self, ApiForwarder._close, self.fd, listeners)

    def _make(self, made: dict) -> None:
        """In a thread of its own, which the namespace change ends with."""
        try:
            _unshare_net()
            _loopback_up()
            made["fd"] = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
            made["listeners"] = [_listen(route.address, route.listen[1]) for route in self.routes]
        except NetnsUnavailable as exc:
            made["error"] = exc
        except (OSError, subprocess.CalledProcessError) as exc:
            made["error"] = NetnsUnavailable(f"cannot set up the sandbox's network: {exc}")

    def _hold(self) -> None:
        """As another user than root: a holder process owns the namespaces; each route's
        connections come to a unix socket of ours."""
        self.fd = None
        directory = tempfile.mkdtemp(prefix="kubeproof-net-")
        slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        listeners, arguments = [], []
        for n, route in enumerate(self.routes):
            path = os.path.join(directory, f"route-{n}.sock")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(path)
            listener.listen(64)
            listeners.append(listener)
            threading.Thread(
                target=_serve,
                args=(listener, route.target, slots, self.admit, route.source),
                daemon=True,
            ).start()
            arguments += [path, route.listen[0], str(route.listen[1])]
        unshare = shutil.which("unshare", path=HOST_PATH) or "unshare"
        namespaces = [unshare, "--user", "--map-root-user", "--net", "--"]
        holder = subprocess.Popen(
            [*namespaces, sys.executable, "-m", "kubeproof.agents.netns", *arguments],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # the package this module is in, wherever it is installed
            env={"PATH": HOST_PATH, "PYTHONPATH": str(Path(__file__).parents[2])},
            cwd="/",
        )
        self._finalizer = weakref.finalize(
            self, ApiForwarder._release, holder, listeners, directory
        )
        if holder.stdout.readline() != b"ready\n":
            holder.kill()
            why = holder.stderr.read().decode(errors="replace").strip()[-500:]
            self._finalizer()
            raise NetnsUnavailable(
                f"cannot make the sandbox's network namespace as an unprivileged user: {why}",
                hint="user namespaces must be open to unprivileged users; `kubeproof doctor`",
            )
        self.holder = holder

    def enter(self) -> list[str]:
        """`nsenter` options that put a command in the namespace: by path as root (no
        descriptor of it is ever passed down to the sandbox), else the holder's."""
        if self.fd is not None:
            return [f"--net=/proc/{os.getpid()}/fd/{self.fd}"]
        return ["--preserve-credentials", "--user", "--net", f"--target={self.holder.pid}"]

    @staticmethod
    def _release(holder: subprocess.Popen, listeners: list, directory: str) -> None:
        holder.kill()
        holder.wait()
        for pipe in (holder.stdin, holder.stdout, holder.stderr):
            pipe.close()
        for listener in listeners:
            listener.close()
        shutil.rmtree(directory, ignore_errors=True)

    @staticmethod
    def _close(fd: int, listeners: list[socket.socket]) -> None:
        for listener in listeners:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        os.close(fd)

    def close(self) -> None:
        self._finalizer()


def _listen(address, port: int) -> socket.socket:
    """A listening socket on `address:port` in this thread's namespace (a non-loopback
    address is added to its loopback interface first)."""
    if not address.is_loopback:
        bits = 32 if address.version == 4 else 128
        subprocess.run(  # forked from this thread: inside the namespace
            ["ip", "addr", "add", f"{address}/{bits}", "dev", "lo"],
            check=True,
            capture_output=True,
            env={"PATH": HOST_PATH},
        )
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((str(address), port))
        listener.listen(64)
    except OSError:
        listener.close()
        raise
    return listener


def _holder(*arguments: str) -> None:
    """The holder (as root in a user namespace of its own, with its network namespace): for
    each route (unix socket path, address, port) listen on the address inside and relay to
    the harness's unix socket, until the harness closes our stdin."""
    _loopback_up()
    slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
    for n in range(0, len(arguments), 3):
        path, host, port = arguments[n : n + 3]
        listener = _listen(ipaddress.ip_address(host), int(port))
        threading.Thread(target=_serve, args=(listener, path, slots), daemon=True).start()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.buffer.read()  # EOF: the harness closed it, or is gone


if __name__ == "__main__":
    _holder(*sys.argv[1:])
