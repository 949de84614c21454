"""Chat completions on any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp,
LiteLLM …) through the `openai` SDK. The SDK's own retries are off: ours are recorded."""

import os

import openai

from kubeproof.agents.llm.chat import Reply, Retryable, ToolCall, retryable, with_retries
from kubeproof.agents.llm.config import LLMConfig


def to_openai(messages: list[dict], system_role: bool = True) -> list[dict]:
    out = []
    if not system_role:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        messages = [m for m in messages if m["role"] != "system"]
        if system and messages and messages[0]["role"] == "user":
            messages = [
                {**messages[0], "content": f"{system}\n\n{messages[0]['content']}"},
                *messages[1:],
            ]
    for m in messages:
        if m["role"] == "assistant":
            msg: dict = {"role": "assistant", "content": m.get("content") or None}
            if m.get("tool_calls"):
                msg["tool_calls"] = [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in m["tool_calls"]
                ]
            elif msg["content"] is None:
                msg["content"] = ""
            out.append(msg)
        elif m["role"] == "tool":
            out.append({"role": "tool", "tool_call_id": m["tool_call_id"], "content": m["content"]})
        else:
            out.append({"role": m["role"], "content": m["content"]})
    return out


class OpenAIChat:
    def __init__(self, config: LLMConfig):
        self.config = config
        self.client = openai.OpenAI(
            api_key=os.environ.get(config.key_env()) or "unused",  # local servers need none
            base_url=config.base_url,
            max_retries=0,
            timeout=config.request_timeout_sec,
            default_headers=config.headers or None,
        )
        # OpenAI's own newer models take max_completion_tokens; compatible servers max_tokens
        self.limit_param = "max_completion_tokens" if config.base_url is None else "max_tokens"

    def _call(self, messages: list[dict], tools: list[dict] | None) -> Reply:
        c = self.config
        kwargs: dict = {"model": c.model, "messages": to_openai(messages, c.system_role)}
        kwargs[self.limit_param] = c.max_tokens
        if c.temperature is not None:
            kwargs["temperature"] = c.temperature
        if c.seed is not None:
            kwargs["seed"] = c.seed
        if tools:
            kwargs["tools"] = [{"type": "function", "function": t} for t in tools]
        try:
            response = self.client.chat.completions.create(**kwargs)
        except openai.APIStatusError as exc:
            raise retryable(exc.status_code, exc.message, exc.response.headers) from exc
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise Retryable(f"{type(exc).__name__}: {exc}") from exc
        if not response.choices:
            return Reply("", [], *_usage(response), "no choices")
        choice = response.choices[0]
        calls = [
            ToolCall(t.id, t.function.name, t.function.arguments or "")
            for t in choice.message.tool_calls or []
            if getattr(t, "function", None) is not None
        ]
        return Reply(choice.message.content or "", calls, *_usage(response), choice.finish_reason)

    def complete(self, messages: list[dict], tools: list[dict] | None) -> Reply:
        c = self.config
        return with_retries(lambda: self._call(messages, tools), c.max_retries, c.retry_base_sec)


def _usage(response) -> tuple[int, int]:
    usage = getattr(response, "usage", None)
    if usage is None:
        return 0, 0
    return usage.prompt_tokens or 0, usage.completion_tokens or 0
