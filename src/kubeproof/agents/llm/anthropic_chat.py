"""Claude through the `anthropic` SDK's Messages API with native tool use."""

import json
import os

import anthropic

from kubeproof.agents.llm.chat import Reply, Retryable, ToolCall, retryable, with_retries
from kubeproof.agents.llm.config import LLMConfig


def _input(arguments: str) -> dict:
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def to_anthropic(messages: list[dict]) -> tuple[str, list[dict]]:
    """The system prompt apart; tool results as user turns; same-role turns merged, since
    the Messages API wants user and assistant to alternate."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    out: list[dict] = []
    for m in messages:
        if m["role"] == "system":
            continue
        if m["role"] == "assistant":
            role, blocks = "assistant", []
            if m.get("content"):
                blocks.append({"type": "text", "text": m["content"]})
            for c in m.get("tool_calls") or []:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": c["id"],
                        "name": c["name"],
                        "input": _input(c["arguments"]),
                    }
                )
        elif m["role"] == "tool":
            role = "user"
            blocks = [
                {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}
            ]
        else:
            role, blocks = "user", [{"type": "text", "text": m["content"]}]
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks or [{"type": "text", "text": "(empty)"}]})
    return system, out


class AnthropicChat:
    def __init__(self, config: LLMConfig):
        self.config = config
        self.client = anthropic.Anthropic(
            api_key=os.environ.get(config.key_env()) or "unused",
            base_url=config.base_url,
            max_retries=0,
            timeout=config.request_timeout_sec,
            default_headers=config.headers or None,
        )

    def _call(self, messages: list[dict], tools: list[dict] | None) -> Reply:
        c = self.config
        system, converted = to_anthropic(messages)
        kwargs: dict = {"model": c.model, "max_tokens": c.max_tokens, "messages": converted}
        if system:
            kwargs["system"] = system
        if c.temperature is not None:
            kwargs["temperature"] = c.temperature
        if tools:
            kwargs["tools"] = [
                {
                    "name": t["name"],
                    "description": t["description"],
                    "input_schema": t["parameters"],
                }
                for t in tools
            ]
        try:
            response = self.client.messages.create(**kwargs)
        except anthropic.APIStatusError as exc:
            raise retryable(exc.status_code, exc.message, exc.response.headers) from exc
        except (anthropic.APITimeoutError, anthropic.APIConnectionError) as exc:
            raise Retryable(f"{type(exc).__name__}: {exc}") from exc
        text = "".join(b.text for b in response.content if b.type == "text")
        calls = [
            ToolCall(b.id, b.name, json.dumps(b.input))
            for b in response.content
            if b.type == "tool_use"
        ]
        u = response.usage
        tokens_in = (u.input_tokens or 0) + (getattr(u, "cache_read_input_tokens", 0) or 0)
        tokens_in += getattr(u, "cache_creation_input_tokens", 0) or 0
        return Reply(text, calls, tokens_in, u.output_tokens or 0, response.stop_reason)

    def complete(self, messages: list[dict], tools: list[dict] | None) -> Reply:
        c = self.config
        return with_retries(lambda: self._call(messages, tools), c.max_retries, c.retry_base_sec)
