"""The A2A agent's turn: the task sent as a message, the commands of each reply run in the
trial's sandbox through the session (the same one, with the same limits, as every agent's),
and what they did sent back, until the agent submits or declines, a budget ends the turn,
or the agent fails to answer.

Each reply is read by the session's rule: one command per reply where the session asks for
it (the netpol track's NetArena mode, `session.one_command`: the first fenced block, as
NetArena's green agent reads it), else every fenced block in order. A reply with no usable
command is answered with an error and counted as wasted; a reply that is late, too large,
not A2A, or a task that failed is the agent's fault (`session.faults`), which ends the turn
and fails the trial without a retry."""

import asyncio
import shlex
import time
from uuid import uuid4

from kubeproof.agents.a2a import reply as replies
from kubeproof.agents.a2a.config import A2AConfig
from kubeproof.agents.a2a.wire import Connection
from kubeproof.agents.llm.tools import Action, Malformed, observation
from kubeproof.agents.session import BudgetExhausted, Session

ONE_COMMAND = """\
How to reply: put exactly one shell command between triple backticks (```), e.g.
```
kubectl get networkpolicies -A
```
It runs in your sandbox (kubectl is configured), and the next message gives you its output
and the updated state. A line `SUBMIT: summary` ends your turn; `DECLINE: reason` refuses."""

COMMANDS = """\
How to reply: put each shell command between triple backticks (```), at most {limit} per
reply. They run in order in your sandbox (kubectl is configured), and the next message gives
each one's exit code and output. A line `SUBMIT: summary` ends your turn when the task is
done; `DECLINE: reason` refuses it."""

STATELESS_LOG = (
    "Here is what happened so far: your commands, their output and the state after each."
)
FIRST = "(nothing yet: this is your first reply)"
CUT = "[... earlier entries cut ...]\n"


class A2AAgent:
    def __init__(self, config: A2AConfig, name: str = "a2a"):
        self.config = config
        self.name = name

    def act(self, session: Session) -> None:
        c = self.config
        session.info = {"kind": "a2a", "config": c.model_dump(mode="json")}
        session.usage.reported = False  # until a reply says what it cost
        session.usage.cost_usd = None
        asyncio.run(self._converse(session))

    def _guide(self, one: bool) -> str:
        return ONE_COMMAND if one else COMMANDS.format(limit=self.config.max_commands)

    async def _converse(self, session: Session) -> None:
        c = self.config
        one = bool(getattr(session, "one_command", False))
        max_turns = c.max_turns or (session.max_steps if one else 2 * session.max_steps)
        task = f"{session.instruction.rstrip()}\n\n{self._guide(one)}"
        context = uuid4().hex if c.memory == "context" else ""
        task_id, log, pending = "", "", ""
        async with Connection(c) as agent:
            try:
                await agent.open(self._limit(session))
            except replies.AgentFailure as exc:
                session.fault(f"the A2A agent at {c.url}: {exc}")
                return
            session.info["card"] = agent.card
            for turn in range(1, max_turns + 1):
                if c.memory == "context":
                    text = pending or task
                else:
                    history = log[-c.history_chars :]
                    if len(log) > c.history_chars:
                        history = CUT + history
                    text = f"{task}\n\n{STATELESS_LOG}\n{history or FIRST}"
                record = self._record(turn)
                session.turns.append(record)
                session.transcript.append({"role": "user", "content": text})
                started = time.monotonic()
                try:
                    answer = await agent.send(text, context, task_id, self._limit(session))
                except replies.AgentFailure as exc:
                    record["error"] = str(exc)
                    session.fault(f"the A2A agent at {c.url}, message {turn}: {exc}")
                    return
                finally:
                    record["seconds"] = round(time.monotonic() - started, 3)
                self._account(session, record, answer)
                # as agents/llm/chat.py's conversation, which the exports read
                session.transcript.append(
                    {
                        "role": "assistant",
                        "content": answer.text,
                        "tool_calls": [],
                        "state": answer.state,
                    }
                )
                if answer.declined:  # the agent rejected the task
                    session.run("decline " + shlex.quote(answer.text.strip()[:500] or "rejected"))
                    return
                task_id = answer.task_id
                entries = self._act(session, answer.text, one, record)
                if session.decision.outcome != "none":
                    return
                pending = "\n\n".join(entries)
                log += "".join(f"{e}\n\n" for e in entries)
        raise BudgetExhausted(f"turn budget of {max_turns} A2A messages spent")

    def _limit(self, session: Session) -> float:
        """Seconds for the next exchange: the per-message timeout, or less if the trial's
        time budget ends sooner (then spent: BudgetExhausted)."""
        remaining = session.remaining()
        return (
            self.config.timeout_sec
            if remaining is None
            else min(self.config.timeout_sec, remaining)
        )

    @staticmethod
    def _record(turn: int) -> dict:
        return {
            "turn": turn,
            "started": round(time.time(), 3),
            "seconds": None,
            "state": None,
            "tokens_in": None,
            "tokens_out": None,
            "cost_usd": None,
            "text": None,
            "notes": [],
            "actions": [],
            "wasted": None,
            "error": None,
        }

    @staticmethod
    def _account(session: Session, record: dict, answer: replies.Reply) -> None:
        """The reply into its turn record, and its usage (when it says) into the session's."""
        record.update(state=answer.state, text=answer.text, notes=answer.notes[:20])
        u, said = session.usage, answer.usage
        u.calls += 1
        if said is None:
            return
        record.update(tokens_in=said.tokens_in, tokens_out=said.tokens_out, cost_usd=said.cost_usd)
        first = not u.reported
        u.reported = True
        u.tokens_in += said.tokens_in or 0
        u.tokens_out += said.tokens_out or 0
        if said.cost_usd is not None and (first or u.cost_usd is not None):
            u.cost_usd = (u.cost_usd or 0.0) + said.cost_usd
        else:
            u.cost_usd = None  # a reply that said nothing of its cost: the total is unknown

    def _act(self, session: Session, text: str, one: bool, record: dict) -> list[str]:
        """Run what the reply asks for; what each command did, as the agent is shown it."""
        try:
            actions = (
                [replies.one_command(text)]
                if one
                else replies.commands(text, self.config.max_commands)
            )
        except Malformed as exc:
            record["wasted"] = str(exc)
            session.usage.wasted_turns += 1
            return [f"Your reply:\n{text.strip()[:2000] or '(empty)'}\nerror: {exc}"]
        entries = []
        for action in actions:
            entry = {"name": action.name, "args": action.args, "ran": True, "step": None}
            record["actions"].append(entry)
            result = session.run(_command(action))
            entry["step"] = len(session.steps)
            if action.name != "run":
                break
            entries.append(f"Command:\n```\n{action.args['command']}\n```\n{observation(result)}")
            if session.decision.outcome != "none":
                break
        return entries


def _command(action: Action) -> str:
    if action.name == "run":
        return action.args["command"]
    if action.name == "submit":
        return "submit " + shlex.quote(action.args.get("summary") or "done")
    return "decline " + shlex.quote(action.args["reason"])
