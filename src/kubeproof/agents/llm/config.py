"""How a model-driven agent is configured: endpoint, model, sampling, protocol and budgets.

API keys are never part of a configuration: `api_key_env` names the environment variable
that holds the key, so specs, config files and results can be shared without secrets.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

OPENAI_URL = "https://api.openai.com/v1"
ANTHROPIC_URL = "https://api.anthropic.com"


class LLMConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    provider: Literal["openai", "anthropic"] = "openai"
    model: str
    base_url: str | None = None  # None: the provider's public API
    api_key_env: str | None = None  # default: OPENAI_API_KEY / ANTHROPIC_API_KEY
    headers: dict[str, str] = Field(default_factory=dict)
    temperature: float | None = 0.0
    max_tokens: int = Field(1024, ge=1)  # per reply
    seed: int | None = None
    # `tools`: native tool calling; `text`: the documented text protocol, for models and
    # servers without tool calling
    protocol: Literal["tools", "text"] = "tools"
    prompt: str = "v1"  # system prompt template version (agents/llm/prompts)
    # false for chat templates without a system role (Gemma): the system prompt then opens
    # the first user message
    system_role: bool = True
    context_tokens: int = Field(32_000, ge=1024)  # what the conversation may fill
    max_turns: int | None = Field(None, ge=1)  # model calls; default twice the step budget
    max_total_tokens: int | None = Field(None, ge=1)  # tokens in + out over the trial
    max_cost_usd: float | None = Field(None, gt=0)
    price_in: float | None = None  # USD per million input tokens; default: prices.py
    price_out: float | None = None
    max_retries: int = Field(5, ge=0)  # on 429, 5xx, timeouts and dropped connections
    retry_base_sec: float = Field(1.0, ge=0)  # back-off: base * 2^attempt, capped at 60 s
    request_timeout_sec: float = Field(120.0, gt=0)

    def key_env(self) -> str:
        default = "ANTHROPIC_API_KEY" if self.provider == "anthropic" else "OPENAI_API_KEY"
        return self.api_key_env or default

    def public(self) -> dict:
        """What a result may record about this agent (no key, no header values)."""
        data = self.model_dump(exclude={"headers"})
        data["headers"] = sorted(self.headers)
        return data
