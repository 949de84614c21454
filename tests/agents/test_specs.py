"""Agent specs and the agents file: every form resolves, bad input says what is wrong."""

import json

import pytest

from kubeproof.agents.spec import AgentsFile, label, parse
from kubeproof.errors import KubeproofError
from kubeproof.runner.run import plan
from kubeproof.tasks import load
from tests.conftest import run_cli
from tests.tasks.test_lint import make_task


def test_every_spec_form_resolves(tmp_path):
    commands = tmp_path / "cmds.txt"
    commands.write_text("kubectl get pods\n")
    assert parse("oracle").kind == "oracle" and parse("noop").label == "noop"
    assert parse(f"replay:{commands}").label == "replay-cmds"
    openai = parse("llm:openai/gpt-4o-mini?temperature=0.3&max_turns=12")
    assert openai.label == "llm-gpt-4o-mini" and openai.llm.base_url is None
    assert (openai.llm.temperature, openai.llm.max_turns) == (0.3, 12)
    local = parse("llm:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B?protocol=text")
    assert local.llm.base_url == "http://127.0.0.1:8000/v1" and local.llm.model == "Qwen/Qwen2.5-7B"
    assert local.label == "llm-Qwen-Qwen2.5-7B" and local.llm.protocol == "text"
    claude = parse("anthropic:claude-sonnet-4-5?base_url=http://127.0.0.1:9/x")
    assert claude.llm.provider == "anthropic" and claude.llm.base_url == "http://127.0.0.1:9/x"
    assert claude.llm.key_env() == "ANTHROPIC_API_KEY"
    cli = parse("cli:my-agent --prompt {instruction}")
    assert cli.kind == "cli" and cli.cli.command == "my-agent --prompt {instruction}"
    assert cli.label == "cli-my-agent"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt", "unknown agent 'gpt'"),
        ("replay:/no/such/file", "no such file"),
        ("llm:http://127.0.0.1:8000/v1", "name the model after '#'"),
        ("llm:gpt-4o", "expected llm:openai/MODEL or llm:URL#MODEL"),
        ("llm:openai/gpt-4o?temperature=hot", "temperature: Input should be a valid number"),
        ("llm:openai/gpt-4o?protocol=xml", "protocol: Input should be 'tools' or 'text'"),
        ("llm:openai/gpt-4o?api_key=sk-123", "api_key: Extra inputs are not permitted"),
        ("cli:", "unknown agent"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(KubeproofError, match=message.replace("(", r"\(").replace("?", r"\?")):
        parse(spec)


def test_the_agents_file_names_agents_and_prices(tmp_path):
    path = tmp_path / "agents.toml"
    path.write_text(
        """
[prices]
"my-finetune" = [0.5, 1.5]

[agents.tuned]
kind = "llm"
base_url = "https://models.example.com/v1"
model = "my-finetune"
max_cost_usd = 2.0

[agents.claude]
kind = "anthropic"
model = "claude-sonnet-4-5"

[agents.shell-agent]
kind = "cli"
command = "bash agent.sh"
env = ["AGENT_KEY"]
"""
    )
    named = AgentsFile.load(path)
    tuned = parse("tuned", named)
    assert tuned.spec == "tuned" and tuned.label == "tuned" and tuned.llm.max_cost_usd == 2.0
    assert tuned.prices == {"my-finetune": (0.5, 1.5)}
    assert parse("claude", named).llm.provider == "anthropic"
    assert parse("shell-agent", named).cli.env == ["AGENT_KEY"]
    assert parse("oracle", named).kind == "oracle"  # built-ins still resolve


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[agents.x]\nkind = 'llm'\nmodel = \n", "agents.toml: .*line 3"),
        ("[agents.x]\nkind = 'robot'\n", "unknown kind 'robot'"),
        ("[agents.x]\nkind = 'llm'\n", r"\[agents.x\].*model: Field required"),
        ("[agent.x]\nkind = 'llm'\n", "unknown tables \\['agent'\\]"),
        ("[prices]\nm = 3\n", "prices.m must be"),
    ],
)
def test_a_bad_agents_file_says_where(tmp_path, text, message):
    path = tmp_path / "agents.toml"
    path.write_text(text)
    with pytest.raises(KubeproofError, match=message):
        parse("x", AgentsFile.load(path))


def test_two_agents_with_one_label_get_their_own_directories(tmp_path):
    task = load(make_task(tmp_path / "t"))
    plans = plan(
        [task],
        ["llm:openai/gpt-4o?temperature=0", "llm:openai/gpt-4o?temperature=1", "noop"],
        1,
        tmp_path / "run",
    )
    dirs = [p.dir.relative_to(tmp_path / "run").parts[2] for p in plans]
    assert dirs == ["llm-gpt-4o", "llm-gpt-4o-2", "noop"]
    assert plans[1].agent == "llm:openai/gpt-4o?temperature=1"  # recorded as written
    assert label(plans[2].resolved) == "noop"


def test_specs_never_read_keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    config = parse("llm:openai/gpt-4o").llm
    assert "sk-secret" not in str(config.public()) and "sk-secret" not in config.model_dump_json()


def test_agents_show_resolves_a_spec_without_keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    shown = run_cli("agents", "show", "llm:openai/gpt-4o?max_turns=9", "-o", "json", check=True)
    data = json.loads(shown.stdout)
    assert data["label"] == "llm-gpt-4o" and data["llm"]["max_turns"] == 9
    assert data["api_key"] == "$OPENAI_API_KEY is set" and "sk-secret" not in shown.stdout
    bad = run_cli("agents", "show", "llm:gpt-4o")
    assert bad.returncode == 1 and "expected llm:openai/MODEL" in bad.stderr
