"""The `a2a:URL` agent without a cluster: replies read as hostile input (units), and whole
turns against small A2A agents served on loopback with the a2a-sdk's server side, their
commands run in a real sandbox: the task and each command's output go to the agent as
messages (stateless, or in one context), one command per reply where the session asks for
it, and an agent that answers too much, garbage, too late, from elsewhere or with a failed
task is the agent's fault — never a retried error."""

import gzip
import json
import time
from dataclasses import dataclass

import pytest
from a2a.types import Message, Part, Role, SendMessageResponse, Task, TaskState
from google.protobuf.struct_pb2 import Struct
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from kubeproof.agents.a2a.agent import A2AAgent
from kubeproof.agents.a2a.config import A2AConfig
from kubeproof.agents.a2a.reply import AgentFailure, commands, one_command, read, usage
from kubeproof.agents.llm.tools import Malformed
from kubeproof.agents.sandbox import Sandbox
from kubeproof.agents.session import BudgetExhausted, Session, install_tools
from kubeproof.agents.spec import parse
from kubeproof.cluster.base import kubectl_binary
from kubeproof.errors import KubeproofError
from tests.agents.a2a_agents import Failing, Scripted, agent_app, card, serve

TASK = "Greet the cluster."

# --- the reply, read without a server ---


def test_netarena_reading_takes_the_first_fenced_block_without_its_shell_tag():
    text = "I will look first.\n```bash\nkubectl get netpol -A\n```\nthen\n```\nkubectl x\n```"
    assert one_command(text).args == {"command": "kubectl get netpol -A"}
    assert one_command("```kubectl get pods```").args == {"command": "kubectl get pods"}
    assert one_command("All good.\nSUBMIT: fixed the port").args == {"summary": "fixed the port"}
    with pytest.raises(Malformed, match="triple backticks"):
        one_command("kubectl get pods")


def test_every_fenced_block_runs_in_order_up_to_submit():
    text = "```sh\necho a\n```\nthen\n```\necho b\n```\nSUBMIT: done\n```\necho never\n```"
    assert [(a.name, a.args) for a in commands(text, 16)] == [
        ("run", {"command": "echo a"}),
        ("run", {"command": "echo b"}),
        ("submit", {"summary": "done"}),
    ]
    # a SUBMIT inside a fence is a command's text, not the end of the turn
    assert [a.name for a in commands("```\necho 'SUBMIT: no'\n```", 16)] == ["run"]
    with pytest.raises(Malformed, match="3 commands in one reply; at most 2"):
        commands("```\na\n```\n```\nb\n```\n```\nc\n```", 2)
    with pytest.raises(Malformed, match="no command found"):
        commands("I am thinking about it.", 16)
    with pytest.raises(Malformed, match="DECLINE needs a reason"):
        commands("DECLINE:", 16)


def _struct(data: dict) -> Struct:
    s = Struct()
    s.update(data)
    return s


def test_a_task_is_read_from_its_last_artifact_and_its_state_decides():
    task = Task(id="t1", context_id="c1")
    task.status.state = TaskState.TASK_STATE_COMPLETED
    task.artifacts.add(parts=[Part(text="old")])
    data = Part()
    data.data.struct_value.update({"command": "kubectl get pods"})
    task.artifacts.add(parts=[Part(text="```\nls\n```"), data, Part(raw=b"\0" * 10)])
    reply = read(SendMessageResponse(task=task))
    assert reply.text.startswith("```\nls\n```\n{\n") and '"command"' in reply.text
    assert reply.notes == ["a raw part skipped"] and not reply.task_id

    task.status.state = TaskState.TASK_STATE_INPUT_REQUIRED  # waits: the next message continues
    assert read(SendMessageResponse(task=task)).task_id == "t1"
    task.status.state = TaskState.TASK_STATE_REJECTED
    assert read(SendMessageResponse(task=task)).declined
    for state in (TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_WORKING):
        task.status.state = state
        with pytest.raises(AgentFailure, match=TaskState.Name(state)):
            read(SendMessageResponse(task=task))
    with pytest.raises(AgentFailure, match="neither a message nor a task"):
        read(SendMessageResponse())


def test_usage_is_what_the_agent_says_and_nothing_it_cannot_mean():
    message = Message(role=Role.ROLE_AGENT, parts=[Part(text="hi")])
    assert usage(message) is None
    message.metadata.CopyFrom(
        _struct({"usage": {"input_tokens": 120, "completion_tokens": 30, "cost_usd": 0.002}})
    )
    said = usage(message)
    assert said is not None and (said.tokens_in, said.tokens_out, said.cost_usd) == (
        120,
        30,
        0.002,
    )
    message.metadata.CopyFrom(
        _struct({"usage": {"tokens_in": -1, "tokens_out": 1.5, "cost_usd": "free"}})
    )
    assert usage(message) is None
    message.metadata.CopyFrom(_struct({"usage": "lots"}))
    assert usage(message) is None


def test_the_spec_takes_an_explicit_url_and_known_options():
    agent = parse("a2a:http://127.0.0.1:9009/?memory=context&timeout_sec=5")
    assert agent.kind == "a2a" and agent.label == "a2a-127.0.0.1-9009"
    assert agent.a2a is not None and agent.a2a.memory == "context" and agent.a2a.timeout_sec == 5
    for bad, why in [
        ("a2a:ftp://127.0.0.1/", "not an http"),
        ("a2a:http://me:pw@127.0.0.1/", "user or password"),
        ("a2a:http://127.0.0.1:9/?memry=context", "memry"),
        ("a2a:http://127.0.0.1:9/?timeout_sec=0", "greater than 0"),
    ]:
        with pytest.raises(KubeproofError, match=why):
            parse(bad)


# --- whole turns against agents on loopback ---


@dataclass
class OneCommandSession(Session):
    """A session that asks for one command per reply, as the netpol track's NetArena mode."""

    one_command: bool = True


@pytest.fixture
def session(tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
    tools = install_tools(tmp_path / "tools")
    box = Sandbox(kubeconfig, tmp_path / "home", kubectl_binary(), timeout=10, tools=tools)

    def make(kind=Session, max_steps: int = 10) -> Session:
        return kind(TASK, box, max_steps=max_steps)

    return make


def a2a(url: str, **options) -> A2AAgent:
    return A2AAgent(A2AConfig(url=url, **options))


def test_commands_run_in_the_sandbox_and_each_message_holds_the_task_and_the_log(session):
    agent = Scripted(
        ["Hello:\n```sh\necho hello\n```\n```\necho again\n```", "SUBMIT: greeted"],
        usage={"input_tokens": 100, "output_tokens": 10},
    )
    s = session()
    with serve(lambda url: agent_app(agent, url)) as url:
        a2a(url).act(s)
    assert [st.command for st in s.steps] == ["echo hello", "echo again", "submit greeted"]
    assert s.steps[0].stdout == "hello\n" and s.decision.outcome == "submitted"
    first, second = (r.text for r in agent.received)
    assert first.startswith(TASK) and "this is your first reply" in first
    assert second.startswith(TASK)  # stateless: the whole task again, and the log
    assert "Command:\n```\necho hello\n```\nexit code: 0\nstdout:\nhello" in second
    assert agent.received[0].context_id != agent.received[1].context_id
    assert s.info["kind"] == "a2a" and s.info["card"]["name"] == "test agent"
    assert [m["role"] for m in s.transcript] == ["user", "assistant", "user", "assistant"]
    assert (s.usage.reported, s.usage.calls, s.usage.tokens_in, s.usage.tokens_out) == (
        True,
        2,
        200,
        20,
    )
    assert s.usage.cost_usd is None  # the agent never said what it cost
    assert [t["tokens_in"] for t in s.turns] == [100, 100] and s.turns[0]["state"] is None


def test_context_memory_sends_only_what_happened_in_one_context(session):
    agent = Scripted(["```\necho one\n```", "SUBMIT: ok"], as_task=True)
    s = session()
    with serve(lambda url: agent_app(agent, url)) as url:
        a2a(url, memory="context").act(s)
    first, second = agent.received
    assert first.text.startswith(TASK) and not second.text.startswith(TASK)
    assert second.text.startswith("Command:\n```\necho one\n```\nexit code: 0")
    assert first.context_id and first.context_id == second.context_id
    assert not s.usage.reported and s.decision.outcome == "submitted"
    assert s.turns[0]["state"] == "TASK_STATE_COMPLETED"


def test_one_command_per_reply_and_a_reply_without_one_is_wasted(session):
    agent = Scripted(["```\necho first\n```\n```\necho second\n```", "Let me think.", "SUBMIT:"])
    s = session(OneCommandSession)
    with serve(lambda url: agent_app(agent, url)) as url:
        a2a(url).act(s)
    assert [st.command for st in s.steps] == ["echo first", "submit done"]
    assert "exactly one shell command" in agent.received[0].text
    assert "error: no command found" in agent.received[2].text
    assert s.usage.wasted_turns == 1 and s.turns[1]["wasted"]


def test_the_turn_budget_is_the_step_budget_in_one_command_mode(session):
    agent = Scripted(["nothing to run"] * 5)
    s = session(OneCommandSession, max_steps=3)
    with serve(lambda url: agent_app(agent, url)) as url, pytest.raises(BudgetExhausted):
        a2a(url).act(s)
    assert len(agent.received) == 3 and not s.steps


def test_an_agent_card_on_protocol_0_3_is_served_unchanged(session):
    agent = Scripted(["```\necho legacy\n```\nSUBMIT: done"])
    s = session()
    with serve(lambda url: agent_app(agent, url, legacy=True)) as url:
        a2a(url).act(s)
    assert s.steps[0].stdout == "legacy\n" and s.decision.outcome == "submitted"
    assert s.info["card"]["interfaces"][0]["protocol"] == "0.3.0"


def test_a_card_naming_another_host_is_reached_on_the_given_one(session):
    agent = Scripted(["SUBMIT: here"])

    def app(url):
        elsewhere = card("http://purple.invalid:9009/rpc")
        routes = [Route("/.well-known/agent-card.json", lambda r: _card_json(elsewhere))]
        built = agent_app(agent, url, extra=routes)
        built.router.routes[1:1] = [
            Route("/rpc", built.router.routes[1].endpoint, methods=["POST"])
        ]
        return built

    s = session()
    with serve(app) as url:
        a2a(url).act(s)
    used = s.info["card"]["interfaces"][0]
    assert used["named"] == "http://purple.invalid:9009/rpc" and used["used"] == f"{url}rpc"
    assert s.decision.outcome == "submitted" and len(agent.received) == 1


def _card_json(served) -> Response:
    from google.protobuf.json_format import MessageToJson

    return Response(MessageToJson(served), media_type="application/json")


def _reply(text: str) -> bytes:
    body = {
        "jsonrpc": "2.0",
        "id": "1",
        "result": {"message": {"role": "ROLE_AGENT", "parts": [{"text": text}]}},
    }
    return json.dumps(body).encode()


async def _oversize(request: Request) -> Response:
    return Response(_reply("a" * (2 << 20)), media_type="application/json")


async def _oversize_chunked(request: Request) -> StreamingResponse:
    async def chunks():
        for _ in range(64):
            yield b" " * 65536

    return StreamingResponse(chunks(), media_type="application/json")


async def _garbage(request: Request) -> Response:
    return Response(b"{not json", media_type="application/json")


async def _not_utf8(request: Request) -> Response:
    return Response(b"\xff\xfe{\x00}\x00", media_type="application/json")


async def _late(request: Request) -> Response:
    import asyncio

    await asyncio.sleep(30)
    return Response(_reply("SUBMIT: late"), media_type="application/json")


async def _compressed(request: Request) -> Response:
    body = gzip.compress(_reply("SUBMIT: " + "z" * (4 << 20)))
    return Response(body, media_type="application/json", headers={"content-encoding": "gzip"})


@pytest.mark.parametrize(
    ("endpoint", "why"),
    [
        (_oversize, "more than 1048576"),
        (_oversize_chunked, "longer than 1048576 bytes"),
        (_garbage, "JSON"),
        (_not_utf8, "not UTF-8"),
        (_late, "no reply within 1 s"),
        (_compressed, "compressed response"),
    ],
)
def test_a_misbehaving_agent_is_the_agents_fault(session, endpoint, why):
    agent = Scripted([])
    s = session()
    routes = [Route("/", endpoint, methods=["POST"])]
    with serve(lambda url: agent_app(agent, url, extra=routes)) as url:
        began = time.monotonic()
        a2a(url, timeout_sec=1 if endpoint is _late else 10).act(s)
        took = time.monotonic() - began
    assert took < 10  # _late would answer after 30 s
    assert len(s.faults) == 1 and why in s.faults[0], s.faults
    assert s.faults[0].startswith(f"the A2A agent at {url}, message 1: ")
    assert not s.steps and s.decision.outcome == "none" and s.turns[0]["error"]


def test_a_failed_task_is_a_fault_and_a_rejected_one_a_decline(session):
    s = session()
    with serve(lambda url: agent_app(Failing("failed", "out of tokens"), url)) as url:
        a2a(url).act(s)
    assert "TASK_STATE_FAILED: 'out of tokens'" in s.faults[0]
    s = session()
    with serve(lambda url: agent_app(Failing("rejected", "not my job"), url)) as url:
        a2a(url).act(s)
    assert not s.faults and s.decision.outcome == "declined"
    assert s.decision.reason == "not my job"


def test_a_redirect_elsewhere_is_not_followed(session):
    hits = []

    def other(url):
        async def record(request: Request) -> Response:
            hits.append(request.url.path)
            return Response("{}", media_type="application/json")

        return agent_app(Scripted([]), url, extra=[Route("/{path:path}", record)])

    s = session()
    with serve(other, host="127.0.0.2") as elsewhere:
        moved = Route(
            "/.well-known/agent-card.json",
            lambda r: RedirectResponse(f"{elsewhere}.well-known/agent-card.json"),
        )
        with serve(lambda url: agent_app(Scripted([]), url, extra=[moved])) as url:
            a2a(url).act(s)
    assert not hits and "agent card could not be read" in s.faults[0] and "307" in s.faults[0]


def test_an_agent_that_is_not_there_is_its_own_fault(session):
    from tests.agents.a2a_agents import free_socket

    sock = free_socket()  # bound, not listening: connections are refused
    s = session()
    a2a(f"http://127.0.0.1:{sock.getsockname()[1]}/").act(s)
    sock.close()
    assert "agent card could not be read" in s.faults[0] and not s.turns
