"""Agent specs, as written on the command line or named in an agents file.

| spec | agent |
| --- | --- |
| `oracle`, `noop`, `human` | the reference agents |
| `replay:FILE` | commands one per line, or an earlier trial's trajectory.jsonl |
| `script:FILE` | a shell script run as one command (how `tasks validate` plays shortcuts) |
| `llm:openai/MODEL` | OpenAI's API (`OPENAI_API_KEY`; `OPENAI_BASE_URL` is honoured) |
| `llm:URL#MODEL` | any OpenAI-compatible endpoint: vLLM, Ollama, llama.cpp, LiteLLM … |
| `anthropic:MODEL` | Anthropic's Messages API (`ANTHROPIC_API_KEY`) |
| `local:MODEL` | an offline model llama.cpp serves for the run (`local:gemma3-270m`) |
| `cli:COMMAND` | any program run in the sandbox (agents/cli_agent.py) |
| `a2a:URL` | an agent served over A2A, as AgentBeats runs them (agents/a2a/) |
| `NAME` | an agent defined in the agents file |

`llm:`, `anthropic:` and `local:` take options after `?`, e.g.
`llm:http://127.0.0.1:8000/v1#qwen?protocol=text&temperature=0.2&max_turns=30`; every field of
`LLMConfig` can be set this way or in the agents file. Keys come only from the environment.
`a2a:` takes `A2AConfig`'s fields the same way: `a2a:http://127.0.0.1:9009/?memory=context`.
"""

import importlib.util
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl

from pydantic import ValidationError

from kubeproof.agents.a2a.config import A2AConfig
from kubeproof.agents.builtin import (
    Agent,
    HumanAgent,
    NoopAgent,
    OracleAgent,
    ReplayAgent,
    ScriptAgent,
)
from kubeproof.agents.cli_agent import CLIAgent, CLIConfig
from kubeproof.agents.llm import local
from kubeproof.agents.llm.config import LLMConfig
from kubeproof.errors import KubeproofError
from kubeproof.tasks import Task

KINDS = (
    "oracle",
    "noop",
    "human",
    "replay:FILE",
    "script:FILE",
    "llm:openai/MODEL",
    "llm:URL#MODEL",
    "anthropic:MODEL",
    "local:MODEL",
    "cli:COMMAND",
    "a2a:URL",
    "NAME (agents file)",
)
AGENTS_FILE = Path("kubeproof-agents.toml")  # looked for in the current directory


@dataclass(frozen=True)
class AgentSpec:
    spec: str  # as written: recorded in results (it never holds a key)
    kind: str
    label: str
    path: Path | None = None
    llm: LLMConfig | None = None
    cli: CLIConfig | None = None
    a2a: A2AConfig | None = None
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)


@dataclass
class AgentsFile:
    """Named agents and a price table, from TOML:

    [prices]
    "my-finetune" = [0.0, 0.0]          # USD per million tokens in, out

    [agents.gpt]
    kind = "llm"                         # llm | anthropic | cli | a2a
    model = "gpt-4o-mini"
    temperature = 0

    [agents.my-cli]
    kind = "cli"
    command = "my-agent --task-file $KUBEPROOF_INSTRUCTION_FILE"
    env = ["MY_AGENT_API_KEY"]
    endpoints = ["http://127.0.0.1:8000"]  # its model: the only other service it can reach

    [agents.purple]
    kind = "a2a"
    url = "http://127.0.0.1:9009/"
    """

    path: Path | None = None
    agents: dict[str, dict] = field(default_factory=dict)
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None) -> "AgentsFile":
        if path is None:
            if not AGENTS_FILE.is_file():
                return cls()
            path = AGENTS_FILE
        try:
            data = tomllib.loads(path.read_text())
        except FileNotFoundError as exc:
            raise KubeproofError(f"no agents file {path}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise KubeproofError(f"{path}: {exc}") from exc
        prices = {}
        for model, pair in (data.get("prices") or {}).items():
            if not (isinstance(pair, list) and len(pair) == 2):
                raise KubeproofError(
                    f"{path}: prices.{model} must be [input, output] per 1M tokens"
                )
            prices[model] = (float(pair[0]), float(pair[1]))
        unknown = set(data) - {"agents", "prices"}
        if unknown:
            raise KubeproofError(
                f"{path}: unknown tables {sorted(unknown)}; expected agents, prices"
            )
        return cls(path, dict(data.get("agents") or {}), prices)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:60] or "agent"


def _options(text: str) -> tuple[str, dict]:
    head, sep, query = text.partition("?")
    return head, dict(parse_qsl(query, keep_blank_values=True)) if sep else {}


def _invalid(spec: str, where: str, exc: ValidationError) -> KubeproofError:
    problems = "; ".join(
        f"{'.'.join(map(str, e['loc'])) or 'spec'}: {e['msg']}" for e in exc.errors()
    )
    return KubeproofError(f"agent {spec!r} ({where}): {problems}")


def _llm(spec: str, where: str, **fields) -> LLMConfig:
    try:
        return LLMConfig(**fields)
    except ValidationError as exc:
        raise _invalid(spec, where, exc) from exc


def _a2a(spec: str, where: str, label: str, **fields) -> AgentSpec:
    if importlib.util.find_spec("a2a") is None:
        raise KubeproofError(
            f"agent {spec!r}: A2A agents need the a2a-sdk package",
            hint="pip install 'kubeproof[a2a]'",
        )
    try:
        config = A2AConfig(**fields)
    except ValidationError as exc:
        raise _invalid(spec, where, exc) from exc
    host, port = config.origin()[1:]
    return AgentSpec(spec, "a2a", _slug(label or f"a2a-{host}-{port}"), a2a=config)


def _named(name: str, body: dict, agents: AgentsFile) -> AgentSpec:
    where = f"{agents.path} [agents.{name}]"
    body = dict(body)
    kind = body.pop("kind", "llm")
    if kind in ("llm", "anthropic"):
        body.setdefault("provider", "anthropic" if kind == "anthropic" else "openai")
        return AgentSpec(
            name, "llm", _slug(name), llm=_llm(name, where, **body), prices=agents.prices
        )
    if kind == "cli":
        try:
            return AgentSpec(name, "cli", _slug(name), cli=CLIConfig(**body))
        except ValidationError as exc:
            raise KubeproofError(f"{where}: {exc.errors()[0]['msg']}") from exc
    if kind == "a2a":
        return _a2a(name, where, name, **body)
    raise KubeproofError(f"{where}: unknown kind {kind!r}", hint="kinds: llm, anthropic, cli, a2a")


def parse(spec: str, agents: AgentsFile | None = None) -> AgentSpec:
    """The spec resolved (files exist, options valid), else a clear error."""
    agents = agents or AgentsFile()
    kind, sep, arg = spec.partition(":")
    if spec in agents.agents:
        return _named(spec, agents.agents[spec], agents)
    if kind in ("oracle", "noop", "human") and not sep:
        return AgentSpec(spec, kind, kind)
    if kind in ("replay", "script") and arg:
        if not Path(arg).is_file():
            raise KubeproofError(f"agent {spec!r}: no such file {arg}")
        return AgentSpec(spec, kind, f"{kind}-{Path(arg).stem}", path=Path(arg))
    if kind == "llm" and arg:
        head, options = _options(arg)
        if head.startswith(("http://", "https://")):
            url, hash_, model = head.partition("#")
            if not hash_ or not model:
                raise KubeproofError(
                    f"agent {spec!r}: name the model after '#'",
                    hint="llm:http://HOST:PORT/v1#MODEL",
                )
            config = _llm(spec, "spec", model=model, base_url=url, **options)
        elif head.startswith("openai/") and len(head) > len("openai/"):
            config = _llm(spec, "spec", model=head[len("openai/") :], **options)
        else:
            raise KubeproofError(f"agent {spec!r}: expected llm:openai/MODEL or llm:URL#MODEL")
        return AgentSpec(
            spec, "llm", _slug(f"llm-{config.model}"), llm=config, prices=agents.prices
        )
    if kind == "anthropic" and arg:
        model, options = _options(arg)
        config = _llm(spec, "spec", provider="anthropic", model=model, **options)
        return AgentSpec(spec, "llm", _slug(f"anthropic-{model}"), llm=config, prices=agents.prices)
    if kind == "local" and arg:
        name, options = _options(arg)
        model = local.known(name)
        config = _llm(
            spec, "spec", model=model.alias, base_url=f"local:{name}", **(model.defaults | options)
        )
        return AgentSpec(spec, "llm", _slug(f"local-{name}"), llm=config, prices=agents.prices)
    if kind == "cli" and arg.strip():
        program = Path(arg.split()[0]).stem
        return AgentSpec(spec, "cli", _slug(f"cli-{program}"), cli=CLIConfig(command=arg))
    if kind == "a2a" and arg:
        url, options = _options(arg)
        return _a2a(spec, "spec", "", url=url, **options)
    raise KubeproofError(f"unknown agent {spec!r}", hint=f"agents: {', '.join(KINDS)}")


def check(spec: str, agents: AgentsFile | None = None) -> str:
    parse(spec, agents)
    return spec


def label(spec: "str | AgentSpec") -> str:
    """A short name for directories and tables: `oracle`, `replay-cmds`, `llm-gpt-4o`."""
    return spec.label if isinstance(spec, AgentSpec) else parse(spec).label


def build(spec: "str | AgentSpec", task: Task) -> Agent:
    agent = spec if isinstance(spec, AgentSpec) else parse(spec)
    if agent.kind == "oracle":
        if task.solution is None:
            raise KubeproofError(f"{task.id} has no solution/solve.sh")
        return OracleAgent(task.solution)
    if agent.kind == "noop":
        return NoopAgent()
    if agent.kind == "human":
        return HumanAgent()
    if agent.kind == "replay":
        return ReplayAgent.from_file(agent.path)
    if agent.kind == "script":
        return ScriptAgent(agent.path, agent.label)
    if agent.kind == "cli":
        return CLIAgent(agent.cli, agent.label)
    if agent.kind == "a2a":
        from kubeproof.agents.a2a.agent import A2AAgent

        return A2AAgent(agent.a2a, agent.label)
    from kubeproof.agents.llm.loop import LLMAgent

    config = agent.llm
    if config.base_url and config.base_url.startswith("local:"):  # started on first use
        config = config.model_copy(update={"base_url": local.ensure(config.base_url[6:])})
    return LLMAgent(config, agent.label, prices=agent.prices)
