"""The part of SPDY/3.1 that `kubectl port-forward` speaks to a kubelet: frames, the zlib
header blocks and their dictionary.

kubectl 1.36 tunnels SPDY over a WebSocket (`SPDY/3.1+portforward.k8s.io`, client-go
tools/portforward/tunneling_dialer.go); the apiserver unwraps the tunnel and opens an SPDY
connection to the kubelet (pkg/registry/core/pod/rest/subresources.go:293-305), which the
kubelet serves through moby/spdystream. Frame layouts are those of the SPDY/3.1 draft
(section 2.2 control and data frames, 2.6 SYN_STREAM/SYN_REPLY/RST_STREAM/PING/GOAWAY,
2.6.10 the name/value header block, compressed by one zlib stream per direction with the
draft's dictionary)."""

import base64
import struct
import zlib
from dataclasses import dataclass

VERSION = 3
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = (
    1,
    2,
    3,
    4,
    6,
    7,
    8,
    9,
)
FLAG_FIN = 0x01
MAX_FRAME = 1 << 24  # a 24-bit length
MAX_HEADER_BLOCK = 64 << 10  # what one header block may inflate to (hostile input)
# the largest frame read (kubectl's io.Copy writes 32 KiB): a bigger one ends the session
# rather than being buffered
MAX_FRAME_TAKEN = 1 << 20

# the SPDY/3 header dictionary (draft section 2.6.10.1), 1423 bytes, adler32 0xe3c6a7c2,
# stored deflated
DICTIONARY = zlib.decompress(
    base64.b64decode(
        "eNplVNty2zYQ1dSylEmTtEl+AM8tGYMk6Did8YN7cet03GQad/oMgSsKMQggIKhLvr67oOQq7YwkHhzs5eyFmkwmc+ejdrafTCbTFciGnt71EZ8nfqDHrAEDERCdxiAVgZlUCjxdPhtRrlYy9EDMN3sGrHKNtu0RZaRtB9lShKd7KiAFlPxk5E+lMW6TDIa4ckF/liSPCCXVCnLlbAzOIPEYoQW1v35CF2BjvpA9Bfr2cD7S8cAdCXn2wIFt4+oLK6cOyb8+cF1TJy37Y5J/nD3uPJ2njUwdm0KUlHkGW49SEc0R6ZBKni6D61Lfx34/0su8k1GRiOeEUfdSQ5P32qa2P0XSOgsPVuRxkPAS8WD/72NkHx9Ckc9RWU86uc2XLmxkaEjRzAfZdhLRCx/cdpfTELAsrcZyXv7LHo/m9KBhHmAJAQJ1LEAMaLqM6TjrIawT+ipFmuMqaZOI5whtj37Ho5oPvg2yIdPHA/rmOC1LTZquZdjRvqw16ZyjdLuf7maz+a/gWQcolco+adN2zvoo45BqLTln736nGCisHyt59Nvd3fuz4lVBHkMwqSfDwmhFQnDBcf/cvU6y7gF8Lo1ep0TYj1bbgvOCFyV9ypLXJT+vOK94WfGq4qLidUXMa8FLwWvBzwXhC8HfiIKLohBFKYpKFEIUtSjORfG65mXNRU2hKvaHs/nV2HusAhOzG4vT69IcSi7QgP00LmLFC3br1tCw94AGFimzE1jxj7Jhf8KnAfoo0OYvexgmNAJTXLuw0E0DVqRwEYnBNjU63mDcYKVhH9Ik2S8huFBjCLK66byBDpMA2lbJRCug6Gscs1wYeCstu4YFu5WBXfmAzx17O1j8GnY1tOjiI3unIoZbs59BMc5/SB8sw2bsboCM/Q0NotWQseugM/ZBRvwZ8PbX2zu1Guw93kfYxrNV7EymO9yZM2/bPfroD6jVy0x6b/T4Ipxt0fqLM/l/T2yK5o3UdoQfsZ5eBe1jNq6FD3qNq0bvEUa+bD9rnzWwNMhlfaNW+//FyyEu84vDQfcuv7io3+RFRnz2XQb20yV/9Q/jxqfC"
    )
)
assert zlib.adler32(DICTIONARY) == 0xE3C6A7C2


class ProtocolError(Exception):
    """Bytes that are not SPDY/3.1 as spdystream writes it."""


@dataclass
class Frame:
    """One frame: a control frame (`kind` its type) or a data frame (`kind` 0)."""

    kind: int
    flags: int
    stream: int
    payload: bytes  # a control frame's body after the stream id, or the data


def split(buffer: bytearray) -> Frame | None:
    """The first whole frame in `buffer` (removed from it), or None until one is there."""
    if len(buffer) < 8:
        return None
    first, second = struct.unpack(">II", buffer[:8])
    length = second & 0xFFFFFF
    if length > MAX_FRAME_TAKEN:
        raise ProtocolError(f"a {length}-byte frame")
    if len(buffer) < 8 + length:
        return None
    body = bytes(buffer[8 : 8 + length])
    del buffer[: 8 + length]
    flags = second >> 24
    if first & 0x80000000:
        version, kind = (first >> 16) & 0x7FFF, first & 0xFFFF
        if version != VERSION:
            raise ProtocolError(f"SPDY version {version}")
        stream = struct.unpack(">I", body[:4])[0] & 0x7FFFFFFF if len(body) >= 4 else 0
        return Frame(kind, flags, stream, body)
    return Frame(0, flags, first & 0x7FFFFFFF, body)


def control(kind: int, flags: int, body: bytes) -> bytes:
    return struct.pack(">II", 0x80000000 | VERSION << 16 | kind, flags << 24 | len(body)) + body


def data(stream: int, payload: bytes, fin: bool = False) -> bytes:
    return struct.pack(">II", stream, (FLAG_FIN if fin else 0) << 24 | len(payload)) + payload


class Headers:
    """The session's two zlib streams: the client's blocks inflated, ours deflated."""

    def __init__(self) -> None:
        self._in = zlib.decompressobj(zdict=DICTIONARY)
        self._out = zlib.compressobj(zdict=DICTIONARY)

    def read(self, block: bytes) -> dict[str, str]:
        raw = self._in.decompress(block, MAX_HEADER_BLOCK)
        if self._in.unconsumed_tail:
            raise ProtocolError("header block too large")
        (count,), at, out = struct.unpack(">I", raw[:4]), 4, {}
        for _ in range(min(count, 256)):
            (n,) = struct.unpack(">I", raw[at : at + 4])
            name = raw[at + 4 : at + 4 + n].decode(errors="replace")
            at += 4 + n
            (n,) = struct.unpack(">I", raw[at : at + 4])
            out[name] = raw[at + 4 : at + 4 + n].decode(errors="replace").split("\x00")[0]
            at += 4 + n
        return out

    def write(self, headers: dict[str, str]) -> bytes:
        raw = struct.pack(">I", len(headers))
        for name, value in headers.items():
            for word in (name.encode(), value.encode()):
                raw += struct.pack(">I", len(word)) + word
        return self._out.compress(raw) + self._out.flush(zlib.Z_SYNC_FLUSH)
