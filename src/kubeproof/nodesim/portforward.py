"""The kubelet's /portForward endpoint (pkg/kubelet/server/server.go:619-634,1087-1127,
v1.36.3): an SPDY/3.1 connection (spdy.py) on which kubectl opens, per local connection, an
`error` and a `data` stream sharing a `requestID` and naming the pod's `port`
(k8s.io/client-go/tools/portforward/portforward.go handleConnection). The kubelet's
httpstream handler (pkg/kubelet/cri/streaming/portforward/httpstream.go `portForward`)
joins each pair to the container runtime's connection to localhost:PORT in the pod's
network namespace, and on failure writes `error forwarding port P to pod SANDBOX, uid :
ERR` on the error stream, which kubectl prints as `an error occurred forwarding L -> P`.

A simulated pod has no sockets: a port its model serves answers what the workload's HTTP
model answers an in-cluster client (one request per connection, then the connection
closes); a port nothing serves fails as containerd's dial does (wording from the stored
containerd 2.x sources, internal/cri/server/sandbox_portforward_linux.go, not pinned)."""

import asyncio
import contextlib
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web

from kubeproof.nodesim import spdy

PROTOCOL = "portforward.k8s.io"
MAX_STREAMS = 1024  # streams one session may hold (each local connection opens two)
MAX_REQUEST = 64 << 10  # an HTTP request head and body one forwarded connection may send
# (port) -> whether anything listens; (port, request bytes) -> response bytes
Listening = Callable[[int], bool]
Answer = Callable[[int, bytes], Awaitable[bytes]]


@dataclass
class Stream:
    id: int
    kind: str  # "data" or "error"
    port: int
    request: str
    inbound: bytearray = field(default_factory=bytearray)
    closed: asyncio.Event = field(default_factory=asyncio.Event)  # the client's FIN
    arrived: asyncio.Event = field(default_factory=asyncio.Event)


class _Feeder:
    """aiohttp's payload parser slot after the upgrade: the raw bytes, into a buffer."""

    def __init__(self, session: "Session") -> None:
        self.session = session

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        self.session.received(data)
        return False, b""

    def feed_eof(self) -> None:
        self.session.received(b"", eof=True)


def refused(port: int, sandbox: str) -> str:
    """The kubelet's error for a port nothing listens on, wrapping containerd's."""
    netns = f"/var/run/netns/cni-{sandbox[:8]}-{sandbox[8:12]}-{sandbox[12:16]}"
    inner = (
        f'failed to execute portforward in network namespace "{netns}": failed to connect '
        f'to localhost:{port} inside namespace "{sandbox}", IPv4: dial tcp4 127.0.0.1:{port}: '
        f"connect: connection refused IPv6 dial tcp6 [::1]:{port}: connect: connection refused "
    )
    return f"error forwarding port {port} to pod {sandbox}, uid : {inner}"


class Session:
    def __init__(
        self, transport: asyncio.Transport, sandbox: str, listening: Listening, answer: Answer
    ) -> None:
        self.transport = transport
        self.sandbox, self.listening, self.answer = sandbox, listening, answer
        self.buffer = bytearray()
        self.headers = spdy.Headers()
        self.streams: dict[int, Stream] = {}
        self.pairs: dict[str, dict[str, Stream]] = {}
        self.tasks: set[asyncio.Task] = set()
        self.done = asyncio.Event()

    def received(self, data: bytes, eof: bool = False) -> None:
        self.buffer += data
        try:
            while (frame := spdy.split(self.buffer)) is not None:
                self._frame(frame)
        except (spdy.ProtocolError, struct.error, ValueError):
            self.done.set()
        if eof:
            self.done.set()

    def _send(self, raw: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(raw)

    def _frame(self, frame: spdy.Frame) -> None:
        if frame.kind == 0:
            stream = self.streams.get(frame.stream)
            if stream is not None and len(stream.inbound) < MAX_REQUEST:
                stream.inbound += frame.payload[: MAX_REQUEST - len(stream.inbound)]
                stream.arrived.set()
            if stream is not None and frame.flags & spdy.FLAG_FIN:
                stream.closed.set()
                stream.arrived.set()
        elif frame.kind == spdy.SYN_STREAM:
            self._open(frame.stream, self.headers.read(frame.payload[10:]))
        elif frame.kind == spdy.PING:  # answered with the same id (draft 2.6.5)
            self._send(spdy.control(spdy.PING, 0, frame.payload[:4]))
        elif frame.kind == spdy.RST_STREAM and frame.stream in self.streams:
            self.streams[frame.stream].closed.set()
            self.streams[frame.stream].arrived.set()
        elif frame.kind == spdy.GOAWAY:
            self.done.set()
        # SETTINGS, HEADERS, WINDOW_UPDATE: nothing to do (spdystream has no flow control)

    def _open(self, stream_id: int, headers: dict[str, str]) -> None:
        kind, request = headers.get("streamtype", ""), headers.get("requestid", "")
        port = int(headers["port"]) if headers.get("port", "").isdigit() else 0
        if (
            kind not in ("data", "error")
            or not 0 < port < 65536
            or len(self.streams) >= MAX_STREAMS
        ):
            self._send(spdy.control(spdy.RST_STREAM, 0, struct.pack(">II", stream_id, 1)))
            return
        reply = struct.pack(">I", stream_id) + self.headers.write({})
        self._send(spdy.control(spdy.SYN_REPLY, 0, reply))
        stream = self.streams[stream_id] = Stream(stream_id, kind, port, request)
        pair = self.pairs.setdefault(request, {})
        pair[kind] = stream
        if len(pair) == 2:  # httpstream.go: both streams of the request are there
            task = asyncio.create_task(self._forward(pair["data"], pair["error"]))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _forward(self, data: Stream, error: Stream) -> None:
        try:
            if not self.listening(data.port):
                self._send(spdy.data(error.id, refused(data.port, self.sandbox).encode()))
                return
            request = await self._request(data)
            if request:
                self._send(spdy.data(data.id, await self.answer(data.port, request)))
        finally:  # portForward's deferred Close of both streams
            self._send(spdy.data(data.id, b"", fin=True))
            self._send(spdy.data(error.id, b"", fin=True))
            self.pairs.pop(data.request, None)
            self.streams.pop(data.id, None)
            self.streams.pop(error.id, None)

    @staticmethod
    async def _request(stream: Stream) -> bytes:
        """An HTTP request's head and its Content-Length body, or what came before the
        client closed its side."""
        while True:
            raw = bytes(stream.inbound)
            head, sep, body = raw.partition(b"\r\n\r\n")
            if sep:
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length" and value.strip().isdigit():
                        length = int(value.strip())
                if len(body) >= length or len(raw) >= MAX_REQUEST:
                    return raw
            if stream.closed.is_set() or len(raw) >= MAX_REQUEST:
                return raw
            stream.arrived.clear()
            await stream.arrived.wait()


REASONS = {200: "OK", 404: "Not Found", 502: "Bad Gateway", 503: "Service Unavailable"}


def http_response(status: int, body: str) -> bytes:
    """One HTTP/1.1 response that closes the connection after it."""
    payload = body.encode()
    head = (
        f"HTTP/1.1 {status} {REASONS.get(status, '')}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + payload


async def serve(
    request: web.Request, sandbox: str, listening: Listening, answer: Answer
) -> web.StreamResponse:
    """Upgrade to SPDY/3.1 (httpstream/spdy upgrade: 101 with the negotiated protocol in
    X-Stream-Protocol-Version) and serve the session until the client goes."""
    offered = [p.strip() for p in request.headers.getall("X-Stream-Protocol-Version", [])]
    if request.headers.get("Upgrade", "").lower() != "spdy/3.1" or PROTOCOL not in offered:
        raise web.HTTPBadRequest(text="unable to upgrade: missing upgrade headers in request")
    response = web.StreamResponse(
        status=101,
        headers={
            "Connection": "Upgrade",
            "Upgrade": "SPDY/3.1",
            "X-Stream-Protocol-Version": PROTOCOL,
        },
    )
    await response.prepare(request)
    transport = request.transport
    if transport is None or request.protocol is None:
        return response
    session = Session(transport, sandbox, listening, answer)  # type: ignore[arg-type]
    request.protocol.set_parser(_Feeder(session))  # type: ignore[arg-type]
    try:
        await session.done.wait()
    finally:
        for task in list(session.tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            transport.close()
    return response
