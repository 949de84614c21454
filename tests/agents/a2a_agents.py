"""Small A2A agents served on loopback for the tests, built with the a2a-sdk's server side.

`Scripted` answers each message with the next of its replies (a message, or a task that
completes with an artifact), and records what it was sent; `serve(app)` runs a Starlette app
on a free loopback port in a thread. Misbehaving agents are plain routes beside the card."""

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn
from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
)
from google.protobuf.struct_pb2 import Struct
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

Answer = str | Callable[[str], str]


def card(url: str) -> AgentCard:
    return AgentCard(
        name="test agent",
        description="answers from a script",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(protocol_binding="JSONRPC", url=url, protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text"],
        default_output_modes=["text"],
        skills=[AgentSkill(id="ops", name="ops", description="runs commands", tags=["k8s"])],
    )


def legacy_card(url: str) -> dict:
    """A card as a2a-sdk 0.3 (AgentBeats' agents, NetArena's reference one) serves it."""
    return {
        "name": "legacy agent",
        "description": "protocol 0.3",
        "url": url,
        "version": "1.0.0",
        "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
        "capabilities": {"streaming": False},
        "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"],
        "skills": [],
    }


@dataclass
class Received:
    text: str
    context_id: str
    task_id: str


class Scripted(AgentExecutor):
    def __init__(self, answers: list[Answer], as_task: bool = False, usage: dict | None = None):
        self.answers = list(answers)
        self.as_task = as_task
        self.usage = usage
        self.received: list[Received] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        message = context.message
        assert message is not None
        self.received.append(Received(text, message.context_id, message.task_id))
        answer = self.answers.pop(0) if self.answers else "SUBMIT: out of script"
        reply = answer(text) if callable(answer) else answer
        if not self.as_task:
            out = new_text_message(reply, context_id=context.context_id)
            if self.usage is not None:
                out.metadata.CopyFrom(_struct({"usage": self.usage}))
            await event_queue.enqueue_event(out)
            return
        task = context.current_task or new_task_from_user_message(message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.add_artifact([Part(text=reply)], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


class Failing(AgentExecutor):
    """Ends every task in `state` (failed, rejected) with a message."""

    def __init__(self, state: str, text: str):
        self.state, self.text = state, text

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        task = context.current_task or new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        note = new_text_message(self.text, context_id=task.context_id, task_id=task.id)
        await (updater.failed if self.state == "failed" else updater.reject)(note)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def _struct(data: dict) -> Struct:
    s = Struct()
    s.update(data)
    return s


def agent_app(executor: AgentExecutor, url: str, legacy: bool = False, extra=()) -> Starlette:
    """The agent's card and JSON-RPC endpoint at `/` (the 0.3 protocol served too)."""
    served = card(url)
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=served
    )
    routes = create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True)
    if legacy:
        body = legacy_card(url)
        routes.append(Route("/.well-known/agent-card.json", lambda request: JSONResponse(body)))
    else:
        routes.extend(create_agent_card_routes(served))
    return Starlette(routes=[*extra, *routes])


def free_socket(host: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((host, 0))
    return sock


@contextmanager
def serve(make_app: Callable[[str], Starlette], host: str = "127.0.0.1") -> Iterator[str]:
    """Serve `make_app(url)` on a free port of `host`; yields its URL."""
    sock = free_socket(host)
    url = f"http://{host}:{sock.getsockname()[1]}/"
    server = uvicorn.Server(uvicorn.Config(make_app(url), log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the test agent did not start"
        time.sleep(0.02)
    try:
        yield url
    finally:
        server.should_exit = server.force_exit = True  # a late reply is not waited for
        thread.join(10)
        sock.close()
