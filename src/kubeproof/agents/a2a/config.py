"""An A2A agent's settings: `a2a:URL?option=value&...`, or `kind = "a2a"` in the agents file.

The URL is the only place the harness talks to: the agent's card is read from it and every
request goes to its scheme, host and port, whatever the card names (a card written for a
container network names a host this machine cannot resolve)."""

from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

# NetArena's text_utils.DEFAULT_CONTEXT_LENGTH: the tail of the log each message carries
NETARENA_HISTORY = 127_000


class A2AConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        description="The agent's base URL (http or https, no user, query or fragment); its "
        "card is read from URL/.well-known/agent-card.json."
    )
    memory: Literal["stateless", "context"] = Field(
        "stateless",
        description="`stateless`: every message holds the whole task and the log of what "
        "happened so far, as NetArena's green agent sends them (its reference agents keep "
        "no state); `context`: one A2A context per trial, the first message holds the task, "
        "each later one only what the agent's last commands did.",
    )
    timeout_sec: float = Field(
        60.0,
        gt=0,
        le=3600,
        description="Seconds the agent has to answer one message (NetArena's client waits "
        "60); a later answer is the agent's failure.",
    )
    max_reply_bytes: int = Field(
        1 << 20,
        ge=1024,
        le=64 << 20,
        description="Bytes of one HTTP response from the agent (its card or a reply); a "
        "larger one is the agent's failure.",
    )
    max_turns: int | None = Field(
        None,
        ge=1,
        le=10_000,
        description="Messages per trial; default: the step budget when the session takes "
        "one command per reply (NetArena's mode), else twice the step budget.",
    )
    max_commands: int = Field(
        16,
        ge=1,
        le=256,
        description="Commands one reply may hold; a reply with more runs none and is "
        "answered with an error.",
    )
    history_chars: int = Field(
        NETARENA_HISTORY,
        ge=1000,
        le=10_000_000,
        description="`stateless`: how many of the log's last characters each message carries.",
    )

    @field_validator("url")
    @classmethod
    def _explicit_url(cls, url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http(s) URL with a host")
        if parts.username is not None or parts.password is not None:
            raise ValueError("the URL may not hold a user or password (results record it)")
        if parts.query or parts.fragment:
            raise ValueError("the URL may not hold a query or fragment (`?` starts options)")
        parts.port  # noqa: B018 — raises on a port that is not one
        return url

    def origin(self) -> tuple[str, str, int]:
        """The scheme, host and port every request must go to."""
        parts = urlsplit(self.url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return parts.scheme, (parts.hostname or "").lower(), port
