"""The tool-use loop: ask the model, run what it chose in the sandbox, show it the result.

One model call is one turn. A turn whose output cannot be acted on (an empty reply, no action,
invalid tool JSON, an unknown tool) is answered with an error and counted as wasted. Budgets
end the trial with a stated reason: the task's step and time budgets (the session's), and the
agent's turns, tokens and cost. Every call's tokens, cost, retries and latency are recorded.
"""

import shlex
import time
from collections.abc import Callable
from importlib import resources

import jinja2

from kubeproof.agents.llm.chat import ChatModel, Reply
from kubeproof.agents.llm.config import LLMConfig
from kubeproof.agents.llm.context import estimate, fit
from kubeproof.agents.llm.pricing import cost, price_for
from kubeproof.agents.llm.tools import TOOLS, Action, Malformed, observation, parse_text
from kubeproof.agents.llm.tools import parse_tool_call as parse_call
from kubeproof.agents.session import BudgetExhausted, Session
from kubeproof.errors import KubeproofError

# extra tools (the recorder's prescribe/report): definition + handler(session, args) -> text
ExtraTool = tuple[dict, Callable[[Session, dict], str]]


def system_prompt(config: LLMConfig, session: Session, extras: list[str]) -> str:
    name = f"system-{config.prompt}.j2"
    folder = resources.files("kubeproof.agents.llm") / "prompts"
    if not (folder / name).is_file():
        versions = sorted(p.name[7:-3] for p in folder.iterdir() if p.name.startswith("system-"))
        raise KubeproofError(
            f"no system prompt version {config.prompt!r}", hint=f"versions: {versions}"
        )
    template = jinja2.Template((folder / name).read_text(), undefined=jinja2.StrictUndefined)
    seconds = None
    if session.deadline is not None:
        seconds = int(session.deadline - time.monotonic())
    return template.render(
        protocol=config.protocol,
        max_steps=session.max_steps,
        seconds=seconds,
        command_timeout=int(session.sandbox.timeout),
        extras=extras,
    ).strip()


def make_chat(config: LLMConfig) -> ChatModel:
    if config.provider == "anthropic":
        from kubeproof.agents.llm.anthropic_chat import AnthropicChat

        return AnthropicChat(config)
    from kubeproof.agents.llm.openai_chat import OpenAIChat

    return OpenAIChat(config)


def turn_record(turn: int, started: float, reply: Reply, spent, cut: dict | None = None) -> dict:
    """One model call as turns.jsonl holds it (the loop adds its actions and waste)."""
    return {
        "turn": turn,
        "started": round(started, 3),
        "seconds": reply.seconds,
        "retries": reply.retries,
        "retry_errors": reply.errors,
        "tokens_in": reply.tokens_in,
        "tokens_out": reply.tokens_out,
        "cost_usd": spent,
        "finish_reason": reply.finish_reason,
        "text": reply.text,
        "tool_calls": [
            {"id": t.id, "name": t.name, "arguments": t.arguments} for t in reply.tool_calls
        ],
        "actions": [],
        "wasted": None,
        "context_cut": cut if cut and any(cut.values()) else None,
    }


class LLMAgent:
    def __init__(
        self,
        config: LLMConfig,
        name: str = "llm",
        chat: ChatModel | None = None,
        prices: dict[str, tuple[float, float]] | None = None,
        extra_tools: list[ExtraTool] | None = None,
        extra_prompt: list[str] | None = None,
    ):
        self.config = config
        self.name = name
        self.chat = chat or make_chat(config)
        self.price = price_for(
            config.model, config.base_url, config.price_in, config.price_out, prices
        )
        self.extra = {d["name"]: (d, h) for d, h in extra_tools or []}
        self.extra_prompt = extra_prompt or []
        self.messages: list[dict] = []

    def offer(self, tools: list[ExtraTool], prompt: str) -> None:
        """More tools (the recorder's prescribe and report) and what the prompt says of them."""
        self.extra.update({d["name"]: (d, h) for d, h in tools})
        self.extra_prompt.append(prompt)

    def act(self, session: Session) -> None:
        c = self.config
        tools = [*TOOLS, *(d for d, _ in self.extra.values())]
        session.info = {
            "kind": "llm",
            "model": c.model,
            "provider": c.provider,
            "config": c.public(),
            "price_per_mtok": list(self.price) if self.price else None,
        }
        if self.price is None and c.max_cost_usd:
            session.info["warning"] = f"no price known for {c.model}: the cost budget cannot apply"
        self.messages = [
            {"role": "system", "content": system_prompt(c, session, self.extra_prompt)},
            {"role": "user", "content": session.instruction},
        ]
        session.transcript = self.messages
        max_turns = c.max_turns or 2 * session.max_steps
        scale = 1.0
        for turn in range(1, max_turns + 1):
            session.remaining()
            send, cut = fit(self.messages, c.context_tokens - c.max_tokens, scale)
            started = time.time()
            reply = self.chat.complete(send, tools if c.protocol == "tools" else None)
            if reply.tokens_in:
                # the provider's count calibrates the estimate for the next call
                scale = max(0.25, reply.tokens_in / max(1, estimate(send)))
            spent = cost(reply.tokens_in, reply.tokens_out, self.price)
            session.usage.add(reply.tokens_in, reply.tokens_out, spent, reply.retries)
            record = turn_record(turn, started, reply, spent, cut)
            session.turns.append(record)
            actions = self._understand(reply, tools, record)
            for action in actions:
                self._do(action, session, record)
                if session.decision.outcome != "none":
                    return
            if not any(a["ran"] for a in record["actions"]):
                record["wasted"] = record.get("wasted") or "no action could be taken"
                session.usage.wasted_turns += 1
            self._budgets(session)
        raise BudgetExhausted(f"turn budget of {max_turns} model calls spent")

    def _understand(self, reply: Reply, tools: list[dict], record: dict) -> list[Action]:
        """The reply as actions; anything unusable is answered now with an error message."""
        self.messages.append(
            {
                "role": "assistant",
                "content": reply.text,
                "tool_calls": [
                    {"id": t.id, "name": t.name, "arguments": t.arguments} for t in reply.tool_calls
                ],
            }
        )
        if self.config.protocol == "text":
            try:
                return [parse_text(reply.text)]
            except Malformed as exc:
                self._error(None, str(exc), record)
                return []
        if not reply.tool_calls:
            why = "empty reply" if not reply.text.strip() else "no tool call"
            self._error(None, f"{why}: call the `run` tool to act, or `submit` / `decline`", record)
            return []
        actions = []
        for call in reply.tool_calls:
            try:
                actions.append(
                    Action(call.name, parse_call(call.name, call.arguments, tools), call.id)
                )
            except Malformed as exc:
                self._error(call.id, str(exc), record, call.name)
        return actions

    def _error(self, call_id: str | None, message: str, record: dict, name: str = "") -> None:
        record["actions"].append({"name": name or None, "ran": False, "error": message})
        record["wasted"] = record["wasted"] or message
        text = f"error: {message}"
        if call_id is None:
            self.messages.append({"role": "user", "content": text, "observation": True})
        else:
            self.messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "name": name,
                    "content": text,
                    "observation": True,
                }
            )

    def _answer(self, action: Action, text: str) -> None:
        if action.call_id is None:
            self.messages.append({"role": "user", "content": text, "observation": True})
        else:
            self.messages.append(
                {
                    "role": "tool",
                    "tool_call_id": action.call_id,
                    "name": action.name,
                    "content": text,
                    "observation": True,
                }
            )

    def _do(self, action: Action, session: Session, record: dict) -> None:
        entry = {"name": action.name, "args": action.args, "ran": True, "step": None}
        record["actions"].append(entry)
        if action.name in self.extra:
            self._answer(action, self.extra[action.name][1](session, action.args))
            return
        if action.name == "run":
            command = action.args["command"]
        elif action.name == "submit":
            command = "submit " + shlex.quote(action.args.get("summary") or "done")
        else:
            command = "decline " + shlex.quote(action.args["reason"])
        result = session.run(command)
        entry["step"] = len(session.steps)
        self._answer(action, observation(result))

    def _budgets(self, session: Session) -> None:
        c, u = self.config, session.usage
        used = u.tokens_in + u.tokens_out
        if c.max_total_tokens and used >= c.max_total_tokens:
            raise BudgetExhausted(f"token budget of {c.max_total_tokens} spent ({used} used)")
        if c.max_cost_usd and u.cost_usd is not None and u.cost_usd >= c.max_cost_usd:
            raise BudgetExhausted(f"cost budget of ${c.max_cost_usd:g} spent (${u.cost_usd:.4f})")
