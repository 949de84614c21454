"""The single-shot agent of the generate track: the model is asked once, as KubeBench and
CloudEval-YAML ask it, for the manifests that answer one prompt variant of a task, and its raw
reply is the answer the stages judge (S0 finds the YAML in it). `oracle` answers with the
task's reference and `noop` with nothing, the two ends every score lies between."""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubeproof.agents.llm.chat import ChatModel, ModelUnavailable
from kubeproof.agents.llm.config import LLMConfig
from kubeproof.agents.llm.loop import make_chat, turn_record
from kubeproof.agents.llm.pricing import cost, price_for
from kubeproof.agents.spec import AgentSpec
from kubeproof.errors import KubeproofError
from kubeproof.generate.model import GeneratedTask
from kubeproof.results import Usage

VARIANTS = ("full", "simplified", "terse")
KINDS = ("oracle", "noop", "llm:URL#MODEL", "llm:openai/MODEL", "anthropic:MODEL", "local:MODEL")
# the instruction every model gets, whatever the variant: CloudEval-YAML's "write YAML only"
SYSTEM = (
    "You are a Kubernetes administrator. Write the Kubernetes manifests that do exactly what "
    "the request asks, no more and no less. Reply with YAML only, in one ```yaml block; "
    "separate several objects with a line `---`. Do not explain."
)
# a COMMAND task's: one kubectl command, run as it is (no shell), judged by effect or output
SYSTEM_COMMAND = (
    "You are a Kubernetes administrator. Write the one kubectl command that does exactly what "
    "the request asks, no more and no less. It runs as it is, without a shell: no pipes, no "
    "redirections, no other command. Reply with the command only, in one ```bash block. Do "
    "not explain."
)


@dataclass
class Answer:
    """What the agent answered, and what asking cost."""

    text: str
    seconds: float = 0.0
    usage: Usage | None = None  # model agents
    info: dict[str, Any] | None = None  # what the agent is: model, provider, config
    transcript: list[dict] = field(default_factory=list)  # the messages and the reply
    turn: dict[str, Any] | None = None  # the call as turns.jsonl records it
    turns: list[dict[str, Any]] = field(default_factory=list)  # an agentic agent's calls
    error: str | None = None  # the endpoint failed: the harness's failure, not the answer's


Answerer = Callable[[GeneratedTask, str], Answer]


def messages(task: GeneratedTask, variant: str) -> list[dict]:
    if variant not in VARIANTS:
        raise KubeproofError(f"unknown prompt variant {variant!r}", hint=f"use {VARIANTS}")
    return [
        {
            "role": "system",
            "content": SYSTEM_COMMAND if task.answer_format == "command" else SYSTEM,
        },
        {"role": "user", "content": getattr(task.prompts, variant)},
    ]


def model_info(config: LLMConfig, price, mode: str) -> dict[str, Any]:
    """What a model agent's trial records of it (`agent_info`)."""
    return {
        "kind": "llm",
        "model": config.model,
        "provider": config.provider,
        "config": config.public(),
        "price_per_mtok": list(price) if price else None,
        "mode": mode,
    }


class ModelAnswerer:
    """One chat call per task, no tools, the config's sampling (temperature 0 by default)."""

    def __init__(self, config: LLMConfig, chat: ChatModel, prices: dict | None = None):
        self.config = config
        self.chat = chat
        self.price = price_for(
            config.model, config.base_url, config.price_in, config.price_out, prices
        )
        self.info = model_info(config, self.price, "single-shot")

    def __call__(self, task: GeneratedTask, variant: str) -> Answer:
        sent = messages(task, variant)
        started = time.time()
        try:
            reply = self.chat.complete(sent, None)
        except ModelUnavailable as exc:
            return Answer("", round(time.time() - started, 3), info=self.info, error=str(exc))
        spent = cost(reply.tokens_in, reply.tokens_out, self.price)
        usage = Usage(
            calls=1 + reply.retries,
            turns=1,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            cost_usd=spent,
            retries=reply.retries,
            wasted_turns=0 if reply.text.strip() else 1,
        )
        turn = turn_record(1, started, reply, spent)
        turn["wasted"] = None if reply.text.strip() else "empty reply"
        transcript = [*sent, {"role": "assistant", "content": reply.text}]
        return Answer(reply.text, reply.seconds, usage, self.info, transcript, turn)


def answerer(spec: AgentSpec, chat: ChatModel | None = None) -> Answerer:
    """The spec's single-shot agent; `chat` replaces the model's endpoint (tests)."""
    if spec.kind == "oracle":
        return lambda task, variant: Answer(task.reference, info={"kind": "oracle"})
    if spec.kind == "noop":
        return lambda task, variant: Answer("", info={"kind": "noop"})
    if spec.kind != "llm" or spec.llm is None:
        raise KubeproofError(
            f"agent {spec.spec!r} cannot answer generate tasks", hint=f"agents: {', '.join(KINDS)}"
        )
    config = spec.llm
    if chat is None:
        config, chat = model_chat(config)
    return ModelAnswerer(config, chat, spec.prices)


def model_chat(config: LLMConfig) -> tuple[LLMConfig, ChatModel]:
    """The endpoint a model config names; a `local:` model's server is started on first use
    and the config then points at it."""
    from kubeproof.agents.llm import local

    if config.base_url and config.base_url.startswith("local:"):
        config = config.model_copy(update={"base_url": local.ensure(config.base_url[6:])})
    return config, make_chat(config)
