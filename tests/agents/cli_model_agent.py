#!/usr/bin/env python3
"""A CLI agent that asks a model: an OpenAI-compatible chat loop in one file, run inside the
sandbox. It reaches the model only because its agents-file entry declares the endpoint (the
sandbox routes nothing else). Used by tests/agents/test_model_trials.py.

usage: cli_model_agent.py BASE_URL MODEL  (the instruction on stdin)
"""

import json
import subprocess
import sys
import urllib.request

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": text,
            "parameters": {
                "type": "object",
                "properties": {field: {"type": "string"}},
                "required": [field],
            },
        },
    }
    for name, text, field in (
        ("run", "run a shell command", "command"),
        ("submit", "say the task is done", "summary"),
    )
]


def ask(base_url: str, model: str, messages: list) -> dict:
    body = json.dumps({"model": model, "messages": messages, "tools": TOOLS}).encode()
    request = urllib.request.Request(
        f"{base_url}/chat/completions", body, {"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.load(reply)["choices"][0]["message"]


def main(base_url: str, model: str) -> int:
    messages = [{"role": "user", "content": sys.stdin.read()}]
    for _ in range(10):
        message = ask(base_url, model, messages)
        messages.append(message)
        for call in message.get("tool_calls") or []:
            arguments = json.loads(call["function"]["arguments"])
            if call["function"]["name"] == "submit":
                return subprocess.run(["submit", arguments["summary"]]).returncode
            done = subprocess.run(arguments["command"], shell=True, capture_output=True, text=True)
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "content": f"exit {done.returncode}\n{done.stdout}{done.stderr}",
                }
            )
    return 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
