"""What a call costs: USD per million input and output tokens.

The table holds list prices of common hosted models (November 2026; check your provider's
page). Override them per agent (`price_in`, `price_out`) or in the agents file's `[prices]`
table. A model with no known price has cost `None`, never a made-up zero; local endpoints
(a base URL on loopback) cost 0.
"""

from urllib.parse import urlparse

# model name prefix -> (input, output) USD per 1M tokens; the longest matching prefix wins
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5": (1.25, 10.00),
    "o4-mini": (1.10, 4.40),
    "claude-opus-4": (15.00, 75.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4": (1.00, 5.00),
}

LOOPBACK = ("localhost", "127.0.0.1", "::1")


def price_for(
    model: str,
    base_url: str | None,
    price_in: float | None = None,
    price_out: float | None = None,
    table: dict[str, tuple[float, float]] | None = None,
) -> tuple[float, float] | None:
    if price_in is not None and price_out is not None:
        return price_in, price_out
    host = urlparse(base_url).hostname if base_url else None
    if host in LOOPBACK or (host or "").startswith("127."):
        return 0.0, 0.0
    merged = {**PRICES, **(table or {})}
    name = model.rsplit("/", 1)[-1]
    matches = [p for p in merged if name.startswith(p)]
    return merged[max(matches, key=len)] if matches else None


def cost(tokens_in: int, tokens_out: int, price: tuple[float, float] | None) -> float | None:
    if price is None:
        return None
    return round((tokens_in * price[0] + tokens_out * price[1]) / 1_000_000, 8)
