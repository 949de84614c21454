"""A trial's conversation as the exports need it: the transcript a model agent left, or,
for agents without one (oracle, replay, CLI agents), one rebuilt from the commands it ran,
in the same shape — user instruction, assistant tool calls, tool results."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from kubeproof import hostile
from kubeproof.results.paths import TrialPaths
from kubeproof.results.trial import TrialResult

LIMIT = 64 * 1024 * 1024
OUTPUT_LIMIT = 16 * 1024  # characters of a command's output kept in an export
CHAT_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")


@dataclass
class TrialView:
    rel: str  # the trial's directory, relative to the run
    result: TrialResult
    steps: list[dict] = field(default_factory=list)  # trajectory.jsonl
    turns: list[dict] = field(default_factory=list)  # turns.jsonl (model agents)
    transcript: list[dict] | None = None  # transcript.json (model agents)

    @property
    def label(self) -> str:
        """The agent's directory name (`oracle`, `llm-gpt-4o`)."""
        parts = self.rel.split("/")
        return parts[-2] if len(parts) >= 2 else self.result.agent


def _lines(root: Path, name: str) -> list[dict]:
    data = hostile.read_bytes(root, name, LIMIT)
    if data is None:
        return []
    out = []
    for n, line in enumerate(hostile.decode(data, name).splitlines(), 1):
        if line.strip():
            value = hostile.loads_json(line, f"{root / name}:{n}")
            if isinstance(value, dict):
                out.append(value)
    return out


def load(run_dir: Path, rel: str, result: TrialResult) -> TrialView:
    root = Path(run_dir) / rel
    paths = TrialPaths(root)
    view = TrialView(rel, result)
    try:
        view.steps = _lines(root, paths.trajectory.name)
        view.turns = _lines(root, paths.turns.name)
        data = hostile.read_bytes(root, paths.transcript.name, LIMIT)
        if data is not None:
            value = hostile.loads_json(data, str(paths.transcript))
            if isinstance(value, list):
                view.transcript = [m for m in value if isinstance(m, dict)]
    except hostile.HostileInput:
        pass  # a trial whose files do not read exports with what did
    return view


def clip(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    return text[:OUTPUT_LIMIT] + f"\n[… {len(text) - OUTPUT_LIMIT} characters cut]"


def observation(step: dict) -> str:
    """What a command gave back, as the model agents are shown it."""
    parts = [f"exit code: {step.get('exit_code')}"]
    for stream in ("stdout", "stderr"):
        if step.get(stream):
            parts.append(f"{stream}:\n{clip(str(step[stream]).rstrip())}")
    if step.get("timed_out"):
        parts.append("(timed out)")
    return "\n".join(parts)


def conversation(view: TrialView, instruction: str | None) -> list[dict]:
    """Chat messages (OpenAI shape, tool calls with JSON-string arguments)."""
    if view.transcript:
        return [{k: v for k, v in m.items() if k in CHAT_KEYS} for m in view.transcript]
    messages: list[dict] = [{"role": "user", "content": instruction or view.result.task}]
    for step in view.steps:
        command = str(step.get("command", ""))
        call = f"call_{int(step.get('index', len(messages)))}"
        if command in ("submit", "decline") or command.startswith(("submit ", "decline ")):
            name, _, words = command.partition(" ")
            key = "summary" if name == "submit" else "reason"
            args = json.dumps({key: words})
        else:
            name, args = "run", json.dumps({"command": command})
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": call, "name": name, "arguments": args}],
            }
        )
        reply = {"role": "tool", "tool_call_id": call, "name": name}
        messages.append(reply | {"content": observation(step)})
    return messages
