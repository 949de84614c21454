"""The kubelet's /portForward SPDY session (nodesim/portforward.py, spdy.py) without a
cluster: a client speaking SPDY/3.1 as spdystream does opens the error and data streams of
one request (client-go tools/portforward/portforward.go handleConnection) and gets the
workload's HTTP answer, or the kubelet's `error forwarding port` on the error stream."""

import asyncio
import struct

import pytest
from aiohttp import web

from kubeproof.nodesim import portforward, spdy


async def _server(listening: set[int]):
    async def handler(request):
        async def answer(port: int, raw: bytes) -> bytes:
            return portforward.http_response(200, f"port {port} got {raw.split()[1].decode()}\n")

        return await portforward.serve(request, "ab" * 32, lambda p: p in listening, answer)

    app = web.Application()
    app.router.add_route("*", "/portForward/{ns}/{pod}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, port


async def _forward(port: int, remote: int, request: bytes) -> tuple[bytes, bytes]:
    """One forwarded connection: (what came on the data stream, on the error stream)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"POST /portForward/ns/web HTTP/1.1\r\nHost: kubelet\r\nConnection: Upgrade\r\n"
        b"Upgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n"
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101 ")
    assert b"X-Stream-Protocol-Version: portforward.k8s.io" in head
    # the client's header blocks, deflated with the dictionary as spdystream does
    client_out = spdy.zlib.compressobj(zdict=spdy.DICTIONARY)
    client_in = spdy.zlib.decompressobj(zdict=spdy.DICTIONARY)

    def syn(stream: int, kind: str) -> bytes:
        nv = {"streamtype": kind, "port": str(remote), "requestid": "0"}
        raw = struct.pack(">I", len(nv))
        for k, v in nv.items():
            raw += struct.pack(">I", len(k)) + k.encode() + struct.pack(">I", len(v)) + v.encode()
        block = client_out.compress(raw) + client_out.flush(spdy.zlib.Z_SYNC_FLUSH)
        return spdy.control(spdy.SYN_STREAM, 0, struct.pack(">IIH", stream, 0, 0) + block)

    writer.write(syn(1, "error") + spdy.data(1, b"", fin=True) + syn(3, "data"))
    writer.write(spdy.data(3, request))
    writer.write(spdy.control(spdy.PING, 0, struct.pack(">I", 7)))
    buffer, got, fins, replies, pinged = bytearray(), {1: b"", 3: b""}, set(), [], False
    while fins != {1, 3}:
        buffer += await asyncio.wait_for(reader.read(65536), 5)
        while (frame := spdy.split(buffer)) is not None:
            if frame.kind == spdy.SYN_REPLY:
                client_in.decompress(frame.payload[4:])
                replies.append(frame.stream)
            elif frame.kind == spdy.PING:
                pinged = frame.payload == struct.pack(">I", 7)
            elif frame.kind == 0:
                got[frame.stream] += frame.payload
                if frame.flags & spdy.FLAG_FIN:
                    fins.add(frame.stream)
    assert sorted(replies) == [1, 3] and pinged
    writer.close()
    return got[3], got[1]


async def _once(listening: set[int], remote: int, request: bytes) -> tuple[bytes, bytes]:
    runner, port = await _server(listening)
    try:
        return await _forward(port, remote, request)
    finally:
        await runner.cleanup()


def test_a_served_port_answers_through_the_data_stream():
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    data, error = asyncio.run(_once({80}, 80, request))
    assert error == b""
    assert data.startswith(b"HTTP/1.1 200 OK\r\n")
    assert data.endswith(b"\r\n\r\nport 80 got /healthz\n")


def test_a_port_nothing_listens_on_is_the_kubelets_error():
    data, error = asyncio.run(_once(set(), 81, b"GET / HTTP/1.1\r\n\r\n"))
    assert data == b""
    # httpstream.go portForward: "error forwarding port %d to pod %s, uid %v: %v"
    assert error.decode().startswith(f"error forwarding port 81 to pod {'ab' * 32}, uid : ")
    assert "dial tcp4 127.0.0.1:81: connect: connection refused" in error.decode()


def test_a_frame_larger_than_kept_ends_the_session():
    # hostile input: a data frame announcing 16 MiB is refused, not buffered
    buffer = bytearray(struct.pack(">II", 1, 0xFFFFFF) + b"x" * 10)
    with pytest.raises(spdy.ProtocolError):
        spdy.split(buffer)
