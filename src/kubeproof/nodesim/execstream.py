"""What a `kubectl exec -i` (or `kubectl cp` into a pod) sends on the exec WebSocket.

kubectl >= 1.30 talks `v5.channel.k8s.io` (client-go tools/remotecommand/websocket.go): each
binary message starts with its stream's byte — 0 stdin, 4 a terminal resize — and the end
of stdin is the CLOSE signal `[255, 0]` (websocket.go:413-425 `stream.Close`,
apimachinery pkg/util/remotecommand/constants.go:58-64). The kubeproof kubelet runs a
command once its stdin is complete (see docs/behaviour-models.md, "The kubelet API's
streaming endpoints"): stdin is read up to that signal, or the socket's end, and no further
than MAX_STDIN bytes (an agent's pipe must not fill the node simulator's memory)."""

from aiohttp import WSMsgType, web

STDIN, RESIZE, CLOSE = 0, 4, 255
MAX_STDIN = 64 << 20


class StdinTooLarge(Exception):
    """More stdin than the simulated kubelet keeps for one command."""


async def read_stdin(ws: web.WebSocketResponse, limit: int = MAX_STDIN) -> bytes:
    """The bytes sent on stdin until the client closes it (or the socket)."""
    data = bytearray()
    async for message in ws:
        if message.type != WSMsgType.BINARY or not message.data:
            continue  # text frames and pings carry no stream data in v5
        channel, payload = message.data[0], message.data[1:]
        if channel == CLOSE and payload[:1] == bytes([STDIN]):
            break
        if channel != STDIN:
            continue  # a resize (4) changes nothing in a command that is not yet running
        data += payload
        if len(data) > limit:
            raise StdinTooLarge(f"stdin larger than {limit} bytes")
    return bytes(data)


async def drain(ws: web.WebSocketResponse) -> None:
    """Read and drop what the client sends (an attach's stdin) until it closes."""
    async for _ in ws:
        pass
