"""Chat-format JSONL for fine-tuning, from the trajectories that resolved their task (score
1: the expected verdict, safely): one conversation a line, `{"messages": [...], "metadata":
{...}}`, in the OpenAI chat shape with tool calls — what KubeBench's authors fine-tuned on.
A model agent's transcript is used as it was; an agent without one (the oracle, a replay,
a CLI agent) is written as the same conversation rebuilt from its commands and outputs."""

import json
from pathlib import Path

from kubeproof.results.exports import trials
from kubeproof.results.load import load_run


def write_run(run_dir: Path, out: Path, instructions: dict[str, str] | None = None) -> int:
    """Append every resolved trajectory of the run to `out` (JSONL); how many."""
    loaded = load_run(run_dir)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with out.open("a") as fh:
        for rel, result in loaded.trials:
            if result.score != 1:
                continue
            view = trials.load(run_dir, rel, result)
            messages = trials.conversation(view, (instructions or {}).get(result.task))
            for m in messages:  # the chat shape fine-tuning tools expect
                for call in m.get("tool_calls") or []:
                    call.setdefault("type", "function")
                    call["function"] = {
                        "name": call.pop("name", ""),
                        "arguments": call.pop("arguments", "{}"),
                    }
            record = {
                "messages": messages,
                "metadata": {
                    "run": loaded.name,
                    "task": result.task,
                    "agent": result.agent,
                    "verdict": result.verdict,
                    "source": "transcript" if view.transcript else "trajectory",
                },
            }
            fh.write(json.dumps(record) + "\n")
            count += 1
    return count
