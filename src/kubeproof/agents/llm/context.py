"""What is sent when the conversation outgrows the model's context.

Policy, in order, until the estimate fits `context_tokens - max_tokens`:
1. the oldest command outputs are elided (the command and exit code stay; the text becomes
   `[output elided: N chars]`), never the last `KEEP_RECENT`;
2. then the oldest whole exchanges (a model reply and its results) are dropped, and a note
   says how many; the system prompt and the task instruction always stay.
The trial keeps the full conversation: only what is sent is cut. Tokens are estimated at four
characters each, scaled by what the provider reported for the previous call.
"""

import copy

KEEP_RECENT = 2
CHARS_PER_TOKEN = 4.0
MESSAGE_OVERHEAD = 4


def estimate(messages: list[dict]) -> int:
    chars = 0
    for m in messages:
        chars += len(m.get("content") or "")
        for c in m.get("tool_calls") or []:
            chars += len(c["name"]) + len(c["arguments"])
    return int(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD * len(messages)


def _exchanges(messages: list[dict]) -> list[list[int]]:
    """Indexes of each exchange after the head (system + instruction): a reply + results."""
    groups: list[list[int]] = []
    for i in range(2, len(messages)):
        if messages[i]["role"] == "assistant" or not groups:
            groups.append([i])
        else:
            groups[-1].append(i)
    return groups


def fit(messages: list[dict], limit: int, scale: float = 1.0) -> tuple[list[dict], dict]:
    """The messages to send and what was cut: {elided: n, dropped: n}."""

    def size(ms: list[dict]) -> float:
        return estimate(ms) * scale

    cut = {"elided": 0, "dropped": 0}
    if size(messages) <= limit:
        return messages, cut
    out = copy.deepcopy(messages)
    results = [i for i, m in enumerate(out) if m.get("observation")]
    for i in results[:-KEEP_RECENT] if len(results) > KEEP_RECENT else []:
        text = out[i]["content"]
        head = text.split("\n", 1)[0]
        out[i]["content"] = f"{head}\n[output elided: {len(text)} chars]"
        cut["elided"] += 1
        if size(out) <= limit:
            return out, cut
    groups = _exchanges(out)
    drop: set[int] = set()
    for group in groups[:-1]:
        drop.update(group)
        cut["dropped"] += 1
        kept = [m for j, m in enumerate(out) if j not in drop]
        if size(kept) <= limit:
            break
    kept = [m for j, m in enumerate(out) if j not in drop]
    if cut["dropped"]:
        note = f"[{cut['dropped']} earlier exchanges were dropped to fit the context]"
        kept.insert(2, {"role": "user", "content": note})
        # a user note cannot sit between a reply and its tool results; merge into the head
        kept[1] = {**kept[1], "content": kept[1]["content"] + "\n\n" + note}
        del kept[2]
    return kept, cut
