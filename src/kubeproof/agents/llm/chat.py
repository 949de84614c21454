"""The conversation in a provider-neutral form, a model's reply, and retrying a call.

Messages are plain dicts: `system` and `user` with `content`; `assistant` with `content` and
`tool_calls` ([{id, name, arguments}], arguments as the raw JSON text the model wrote); `tool`
with `tool_call_id`, `name` and `content`. Each provider module converts to its own API.
"""

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from kubeproof.errors import KubeproofError

BACKOFF_CAP = 60.0


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text, parsed (and possibly rejected) by the loop


@dataclass
class Reply:
    text: str
    tool_calls: list[ToolCall]
    tokens_in: int
    tokens_out: int
    finish_reason: str | None
    retries: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)  # what the retried attempts failed with


class ChatModel(Protocol):
    def complete(self, messages: list[dict], tools: list[dict] | None) -> Reply:
        """One model call. `tools` are JSON-schema function definitions, or None."""


class ModelUnavailable(KubeproofError):
    """The endpoint kept failing (or refused the request): a harness error, not a turn."""


class Retryable(Exception):
    """A failure worth another attempt: 429, 5xx, a timeout, a dropped connection."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def retryable(status: int, message: str, headers) -> Exception:
    """What an error response means: retry a 429 or 5xx; give up on anything else (a bad
    key, an unknown model, a malformed request) with the endpoint's own message."""
    if status != 429 and status < 500:
        return ModelUnavailable(f"the model endpoint refused the request: HTTP {status}: {message}")
    try:
        after = float(headers.get("retry-after")) if headers is not None else None
    except (TypeError, ValueError):
        after = None
    return Retryable(f"HTTP {status}: {message}", after)


def with_retries(
    call: Callable[[], Reply],
    max_retries: int,
    base: float,
    sleep: Callable[[float], None] = time.sleep,
) -> Reply:
    """Exponential back-off with jitter; a server's Retry-After wins when it is longer."""
    errors: list[str] = []
    started = time.monotonic()
    for attempt in range(max_retries + 1):
        try:
            reply = call()
        except Retryable as exc:
            errors.append(str(exc))
            if attempt == max_retries:
                raise ModelUnavailable(
                    f"the model endpoint failed {attempt + 1} times: {'; '.join(errors)}"
                ) from exc
            delay = min(BACKOFF_CAP, base * 2**attempt) * (0.5 + random.random() / 2)
            sleep(max(delay, exc.retry_after or 0.0))
            continue
        reply.retries, reply.errors = attempt, errors
        reply.seconds = round(time.monotonic() - started, 3)
        return reply
    raise AssertionError("unreachable")
