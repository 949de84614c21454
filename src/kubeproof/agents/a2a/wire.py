"""The connection to an A2A agent, through the SDK's client (a2a-sdk >= 1.3; agents on the
0.3 protocol, as AgentBeats' are, through its compatibility transports).

One httpx client carries everything, with a transport that sends requests only to the
configured URL's scheme, host and port and cuts every response at `max_reply_bytes`; no
redirect is followed, no proxy taken from the environment, no compressed body accepted (a
small one can inflate without bound), and each exchange has a deadline. An interface the
card names elsewhere is reached at the same path on the configured origin. Whatever goes
wrong on the agent's side is an AgentFailure."""

import asyncio
import codecs
from collections.abc import AsyncIterator
from types import TracebackType
from urllib.parse import urlsplit, urlunsplit
from uuid import uuid4

import httpx
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.types import AgentCard, Message, Part, Role, SendMessageRequest
from a2a.utils.constants import TransportProtocol

from kubeproof.agents.a2a.config import A2AConfig
from kubeproof.agents.a2a.reply import AgentFailure, Reply, read

BINDINGS = [TransportProtocol.JSONRPC.value, TransportProtocol.HTTP_JSON.value]
CARD_TEXT = 200  # characters of the card's own strings kept in the trial's record


class _Capped(httpx.AsyncByteStream):
    def __init__(self, stream: httpx.AsyncByteStream, limit: int):
        self.stream, self.limit = stream, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen, utf8 = 0, codecs.getincrementaldecoder("utf-8")("strict")
        try:
            async for chunk in self.stream:
                seen += len(chunk)
                if seen > self.limit:
                    raise AgentFailure(f"a response longer than {self.limit} bytes")
                utf8.decode(chunk)  # JSON, and SSE, are UTF-8: no other decoding is guessed
                yield chunk
            utf8.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            raise AgentFailure(f"a response that is not UTF-8 ({exc.reason})") from None

    async def aclose(self) -> None:
        await self.stream.aclose()


class Guarded(httpx.AsyncBaseTransport):
    """Requests to one origin only; responses capped, uncompressed."""

    def __init__(self, origin: tuple[str, str, int], limit: int):
        self.origin, self.limit = origin, limit
        self.inner = httpx.AsyncHTTPTransport(trust_env=False, retries=0)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        port = url.port or (443 if url.scheme == "https" else 80)
        if (url.scheme, url.host.lower(), port) != self.origin:
            scheme, host, own = self.origin
            raise AgentFailure(
                f"a request to {url.scheme}://{url.host}:{port} refused: only "
                f"{scheme}://{host}:{own} is contacted"
            )
        response = await self.inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        length = response.headers.get("content-length", "")
        problem = None
        if encoding not in ("", "identity"):
            problem = f"a compressed response (Content-Encoding: {encoding[:40]}) not asked for"
        elif length.isdigit() and int(length) > self.limit:
            problem = f"a response of {length} bytes, more than {self.limit}"
        if problem is not None:
            await response.aclose()
            raise AgentFailure(problem)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Capped(response.stream, self.limit),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def failure(exc: BaseException) -> AgentFailure:
    """The AgentFailure an SDK or httpx error stands for (the one raised in the transport,
    when it is in the chain)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, AgentFailure):
            return seen
        seen = seen.__cause__ or seen.__context__
    return AgentFailure(f"{type(exc).__name__}: {str(exc)[:500]}")


class Connection:
    """`async with Connection(config) as agent:` then `await agent.open(t)` reads the card
    and `await agent.send(text, ...)` exchanges one message."""

    def __init__(self, config: A2AConfig):
        self.config = config
        self.card: dict = {}  # what the trial records of the card
        self.client: Client | None = None
        self.http = httpx.AsyncClient(
            transport=Guarded(config.origin(), config.max_reply_bytes),
            follow_redirects=False,
            trust_env=False,
            timeout=httpx.Timeout(config.timeout_sec),
            headers={"Accept-Encoding": "identity"},
        )

    async def __aenter__(self) -> "Connection":
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.client is not None:
            await self.client.close()
        await self.http.aclose()

    def _here(self, url: str) -> str:
        """`url` on the configured origin (its path and query kept)."""
        given, named = urlsplit(self.config.url), urlsplit(url)
        return urlunsplit((given.scheme, given.netloc, named.path or "/", named.query, ""))

    async def open(self, timeout: float) -> None:
        resolver = A2ACardResolver(self.http, self.config.url)
        try:
            card: AgentCard = await asyncio.wait_for(resolver.get_agent_card(), timeout)
        except TimeoutError:
            raise AgentFailure(f"no agent card within {timeout:g} s") from None
        except Exception as exc:
            raise AgentFailure(f"its agent card could not be read: {failure(exc)}") from exc
        named = [i.url for i in card.supported_interfaces]
        for interface in card.supported_interfaces:
            interface.url = self._here(interface.url)
        try:
            self.client = ClientFactory(
                ClientConfig(
                    streaming=False, httpx_client=self.http, supported_protocol_bindings=BINDINGS
                )
            ).create(card)
        except Exception as exc:
            raise AgentFailure(f"its card offers no JSONRPC or HTTP+JSON interface: {exc}") from exc
        self.card = {
            "name": card.name[:CARD_TEXT],
            "version": card.version[:CARD_TEXT],
            "interfaces": [
                {
                    "binding": i.protocol_binding[:CARD_TEXT],
                    "protocol": i.protocol_version[:CARD_TEXT],
                    "named": n[:CARD_TEXT],
                    "used": i.url[:CARD_TEXT],
                }
                for i, n in zip(card.supported_interfaces, named, strict=True)
            ][:8],
        }

    async def send(self, text: str, context_id: str, task_id: str, timeout: float) -> Reply:
        """One message and the agent's reply (a message, or its task answered)."""
        assert self.client is not None, "open() first"
        message = Message(role=Role.ROLE_USER, message_id=uuid4().hex, parts=[Part(text=text)])
        if context_id:
            message.context_id = context_id
        if task_id:
            message.task_id = task_id
        request = SendMessageRequest(message=message)
        client = self.client

        async def exchange() -> list:
            return [event async for event in client.send_message(request)]

        try:
            events = await asyncio.wait_for(exchange(), timeout)
        except TimeoutError:
            raise AgentFailure(f"no reply within {timeout:g} s") from None
        except Exception as exc:
            raise failure(exc) from exc
        if len(events) != 1:  # not streaming: exactly one task or message
            raise AgentFailure(f"{len(events)} responses to one message")
        return read(events[0])
