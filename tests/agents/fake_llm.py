"""A real HTTP server speaking the OpenAI chat-completions and Anthropic Messages APIs, with
scripted replies, for testing model agents end to end without a model.

Each scripted reply is `{"status": 429, "retry_after": 0}` (an error response) or
`{"content": str, "tool_calls": [(name, arguments_json)], "usage": (in, out)}`. The script is
a list of replies, taken in order, or a function from the request's body to a reply (for
callers whose order is not fixed). Requests are kept, so tests can see what the agent sent.
"""

import json
import threading
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeLLM:
    def __init__(self, script: list[dict] | Callable[[dict], dict]):
        self.script = script if callable(script) else list(script)
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                with fake.lock:
                    fake.requests.append(
                        {"path": self.path, "body": body, "headers": dict(self.headers)}
                    )
                    if callable(fake.script):
                        reply = fake.script(body)
                    else:
                        reply = (
                            fake.script.pop(0) if fake.script else {"content": "", "usage": (1, 1)}
                        )
                if "status" in reply:
                    self._send(
                        reply["status"],
                        {"error": {"message": "scripted failure", "type": "rate_limit"}},
                        {"retry-after": str(reply.get("retry_after", 0))},
                    )
                    return
                if self.path.endswith("/messages"):
                    self._send(200, anthropic_reply(body, reply))
                else:
                    self._send(200, openai_reply(body, reply))

            def _send(self, status, payload, headers=None):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "FakeLLM":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _usage(body: dict, reply: dict) -> tuple[int, int]:
    """Scripted counts, or with usage "auto" an honest estimate (4 characters a token)."""
    usage = reply.get("usage", (10, 5))
    if usage == "auto":
        text = "".join(str(m.get("content") or "") for m in body["messages"])
        return len(text) // 4, 5
    return usage


def openai_reply(body: dict, reply: dict) -> dict:
    calls = [
        {
            "id": f"call_{uuid.uuid4().hex[:8]}",
            "type": "function",
            "function": {"name": n, "arguments": a},
        }
        for n, a in reply.get("tool_calls", [])
    ]
    tokens_in, tokens_out = _usage(body, reply)
    message = {"role": "assistant", "content": reply.get("content")}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        },
    }


def anthropic_reply(body: dict, reply: dict) -> dict:
    content = []
    if reply.get("content"):
        content.append({"type": "text", "text": reply["content"]})
    for name, arguments in reply.get("tool_calls", []):
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{uuid.uuid4().hex[:8]}",
                "name": name,
                "input": json.loads(arguments),
            }
        )
    tokens_in, tokens_out = _usage(body, reply)
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": "tool_use" if reply.get("tool_calls") else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
    }


def run(command: str, usage=(100, 20)) -> dict:
    return {"tool_calls": [("run", json.dumps({"command": command}))], "usage": usage}


def submit(summary: str = "fixed", usage=(120, 10)) -> dict:
    return {"tool_calls": [("submit", json.dumps({"summary": summary}))], "usage": usage}
