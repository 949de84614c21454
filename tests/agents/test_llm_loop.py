"""The model agent's loop against a real local HTTP server speaking the OpenAI and Anthropic
APIs, in a real sandbox (no cluster): actions, malformed output, retries, budgets, context."""

import json
from pathlib import Path

import pytest

from kubeproof.agents.llm.chat import ModelUnavailable, Reply, Retryable, with_retries
from kubeproof.agents.llm.config import LLMConfig
from kubeproof.agents.llm.context import fit
from kubeproof.agents.llm.loop import LLMAgent
from kubeproof.agents.llm.pricing import cost, price_for
from kubeproof.agents.llm.tools import Malformed, parse_text
from kubeproof.agents.sandbox import Sandbox
from kubeproof.agents.session import BudgetExhausted, Session, install_tools
from kubeproof.cluster.base import kubectl_binary
from tests.agents.fake_llm import FakeLLM, run, submit


@pytest.fixture
def session_for(tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
    tools = install_tools(tmp_path / "tools")

    def make(max_steps: int = 10) -> Session:
        box = Sandbox(kubeconfig, tmp_path / "home", kubectl_binary(), timeout=10, tools=tools)
        return Session("Say hello, then submit.", box, max_steps=max_steps)

    return make


def agent(url: str, **options) -> LLMAgent:
    return LLMAgent(LLMConfig(model="fake", base_url=f"{url}/v1", retry_base_sec=0.01, **options))


def test_tool_calls_run_in_the_sandbox_and_submit_ends_the_turn(session_for):
    with FakeLLM([run("echo hello"), submit("said hello")]) as fake:
        s = session_for()
        agent(fake.url).act(s)
    assert [st.command for st in s.steps] == ["echo hello", "submit 'said hello'"]
    assert s.steps[0].stdout == "hello\n" and s.decision.outcome == "submitted"
    # the command's result went back to the model as the tool's answer
    second = fake.requests[1]["body"]["messages"]
    assert second[-1]["role"] == "tool" and "hello" in second[-1]["content"]
    assert [t["function"]["name"] for t in fake.requests[0]["body"]["tools"]] == [
        "run",
        "submit",
        "decline",
    ]
    assert (s.usage.calls, s.usage.tokens_in, s.usage.tokens_out) == (2, 220, 30)
    assert s.usage.cost_usd == 0.0  # a loopback endpoint costs nothing
    assert [t["tokens_in"] for t in s.turns] == [100, 120]


def test_malformed_output_is_answered_with_an_error_and_counted_as_wasted(session_for):
    script = [
        {"tool_calls": [("run", "{not json")]},
        {"tool_calls": [("kubectl", '{"command": "ls"}')]},
        {"content": ""},
        {"content": "I think the pods are fine."},
        {"tool_calls": [("run", "{}")]},
        submit(),
    ]
    with FakeLLM(script) as fake:
        s = session_for()
        agent(fake.url).act(s)
    wasted = [t["wasted"] for t in s.turns]
    assert s.usage.wasted_turns == 5 and wasted[-1] is None
    assert "not valid JSON" in wasted[0] and "unknown tool 'kubectl'" in wasted[1]
    assert wasted[2].startswith("empty reply") and wasted[3].startswith("no tool call")
    assert "non-empty string argument 'command'" in wasted[4]
    # every tool call was answered (the API requires it) and no command ran
    sent = fake.requests[2]["body"]["messages"]
    assert sent[-1]["role"] == "tool" and sent[-1]["content"].startswith("error: unknown tool")
    assert [st.command for st in s.steps] == ["submit fixed"]


def test_a_429_is_retried_with_back_off_and_recorded(session_for):
    with FakeLLM([{"status": 429}, {"status": 503}, run("true"), submit()]) as fake:
        s = session_for()
        agent(fake.url).act(s)
    assert s.turns[0]["retries"] == 2 and "HTTP 429" in s.turns[0]["retry_errors"][0]
    assert s.usage.retries == 2 and s.usage.calls == 2
    assert s.decision.outcome == "submitted"


def test_an_endpoint_that_keeps_failing_is_a_harness_error_not_a_turn(session_for):
    with FakeLLM([{"status": 500}] * 3) as fake:
        s = session_for()
        with pytest.raises(ModelUnavailable, match="failed 3 times"):
            agent(fake.url, max_retries=2).act(s)
    assert s.turns == []


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"max_total_tokens": 250}, "token budget of 250 spent (360 used)"),
        ({"max_turns": 2}, "turn budget of 2 model calls spent"),
        ({"max_cost_usd": 0.001, "price_in": 5.0, "price_out": 5.0}, "cost budget of $0.001"),
    ],
)
def test_budgets_end_the_turn_with_a_stated_reason(session_for, options, reason):
    with FakeLLM([run("true")] * 5) as fake:
        s = session_for()
        with pytest.raises(BudgetExhausted) as exc:
            agent(fake.url, **options).act(s)
    assert reason in str(exc.value)


def test_step_budget_is_the_sessions(session_for):
    with FakeLLM([run("true")] * 5) as fake:
        s = session_for(max_steps=2)
        with pytest.raises(BudgetExhausted, match="step budget of 2"):
            agent(fake.url).act(s)


def test_text_protocol_for_models_without_tool_calling(session_for):
    script = [
        {"content": "Let me look.\n```sh\necho hi there\n```"},
        {"content": "Two actions:\n```sh\nls\n```\nSUBMIT: done"},
        {"content": "All good.\nSUBMIT: greeted"},
    ]
    with FakeLLM(script) as fake:
        s = session_for()
        agent(fake.url, protocol="text").act(s)
    assert "tools" not in fake.requests[0]["body"]
    assert "```sh" in fake.requests[0]["body"]["messages"][0]["content"]  # the protocol is taught
    assert [st.command for st in s.steps] == ["echo hi there", "submit greeted"]
    assert s.turns[1]["wasted"].startswith("2 actions in one reply")
    assert fake.requests[1]["body"]["messages"][-1]["content"].startswith("exit code: 0")


def test_anthropic_native_tool_use_has_the_same_behaviour_and_accounting(session_for):
    with FakeLLM([run("echo hi", (50, 7)), submit("ok", (60, 3))]) as fake:
        s = session_for()
        LLMAgent(
            LLMConfig(
                provider="anthropic",
                model="claude-sonnet-4-5",
                base_url=fake.url,
                price_in=3.0,
                price_out=15.0,
            )
        ).act(s)
    first, second = (r["body"] for r in fake.requests)
    assert fake.requests[0]["path"] == "/v1/messages"
    assert "system" in first and first["messages"][0]["role"] == "user"
    assert [t["name"] for t in first["tools"]] == ["run", "submit", "decline"]
    result = second["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "hi" in result["content"]
    assert (s.usage.tokens_in, s.usage.tokens_out) == (110, 10)
    assert s.usage.cost_usd == pytest.approx((110 * 3 + 10 * 15) / 1e6)


def test_a_long_conversation_is_cut_to_fit_the_context(session_for):
    big = "yes | head -c 40000"
    script = [run(big, "auto")] * 5 + [run("true", "auto"), submit(usage="auto")]
    with FakeLLM(script) as fake:
        s = session_for()
        agent(fake.url, context_tokens=8000, max_tokens=500).act(s)
    sent = ["".join(str(m.get("content")) for m in r["body"]["messages"]) for r in fake.requests]
    assert "[output elided" in sent[-1]  # old outputs elided first ...
    assert any("dropped to fit the context" in text for text in sent)  # ... exchanges if need be
    assert all(t["tokens_in"] <= 7500 for t in s.turns)  # what was sent fitted every time
    assert s.turns[-1]["context_cut"]["elided"] >= 1
    # the trial keeps the whole conversation
    assert not any("[output elided" in (m.get("content") or "") for m in s.transcript)


def test_parse_text_protocol():
    assert parse_text("```bash\nkubectl get pods\n```").args == {"command": "kubectl get pods"}
    assert parse_text("done\nSUBMIT: fixed the selector").args == {"summary": "fixed the selector"}
    assert parse_text("DECLINE: privileged hostPath").name == "decline"
    for bad in ("just words", "```sh\nls\n```\n```sh\npwd\n```", "DECLINE:"):
        with pytest.raises(Malformed):
            parse_text(bad)


def test_fit_keeps_head_and_recent_outputs():
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"}]
    for i in range(8):
        messages.append({"role": "assistant", "content": f"step {i}"})
        messages.append(
            {"role": "user", "content": f"exit code: 0\n{'x' * 4000}", "observation": True}
        )
    sent, cut = fit(messages, 5000)
    assert sent[:2] == messages[:2] and cut["elided"] >= 1 and cut["dropped"] == 0
    assert sent[-1] == messages[-1]
    tiny, cut = fit(messages, 1000)
    assert cut["dropped"] >= 1 and "dropped to fit" in tiny[1]["content"]
    assert tiny[0] == messages[0] and tiny[-1]["content"].startswith("exit code")


def test_retries_back_off_and_honour_retry_after():
    slept, attempts = [], iter([Retryable("429", retry_after=3.0), Retryable("503")])

    def call() -> Reply:
        failure = next(attempts, None)
        if failure:
            raise failure
        return Reply("ok", [], 1, 1, "stop")

    reply = with_retries(call, max_retries=5, base=0.1, sleep=slept.append)
    assert reply.retries == 2 and slept[0] >= 3.0 and 0.05 <= slept[1] <= 0.2


def test_prices():
    assert price_for("gpt-4o-mini-2024-07-18", None) == (0.15, 0.60)  # longest prefix
    assert price_for("gpt-4o", None) == (2.5, 10.0)
    assert price_for("mystery", "https://api.example.com/v1") is None
    assert price_for("mystery", "http://127.0.0.1:8000/v1") == (0.0, 0.0)
    assert price_for("mystery", None, table={"mystery": (1.0, 2.0)}) == (1.0, 2.0)
    assert cost(1_000_000, 500_000, (1.0, 2.0)) == 2.0 and cost(1, 1, None) is None


def test_prompt_versions_are_checked(session_for):
    with pytest.raises(Exception, match="no system prompt version 'v9'"):
        agent("http://127.0.0.1:9", prompt="v9").act(session_for())


def test_transcript_has_no_harness_only_fields(session_for):
    with FakeLLM([run("true"), submit()]) as fake:
        s = session_for()
        agent(fake.url).act(s)
    for request in fake.requests:
        for m in request["body"]["messages"]:
            assert "observation" not in m
    assert json.dumps(s.transcript)  # serialisable for transcript.json
    assert Path(s.sandbox.scratch / ".kubeproof" / "decision").is_file()


def test_sampling_options_and_extra_headers_reach_the_endpoint(session_for, monkeypatch):
    monkeypatch.setenv("MY_GATEWAY_KEY", "gw-123")
    with FakeLLM([submit()]) as fake:
        LLMAgent(
            LLMConfig(
                model="fake",
                base_url=f"{fake.url}/v1",
                temperature=0.7,
                seed=42,
                max_tokens=77,
                headers={"X-Team": "sre"},
                api_key_env="MY_GATEWAY_KEY",
            )
        ).act(session_for())
    request = fake.requests[0]
    body = request["body"]
    assert (body["temperature"], body["seed"], body["max_tokens"]) == (0.7, 42, 77)
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert headers["x-team"] == "sre" and headers["authorization"] == "Bearer gw-123"
