"""An A2A agent's reply read as hostile input: its text, the commands in it and the usage
it reports. Pure functions over the SDK's message types, so they are tested without a server.

The text is NetArena's (src/netarena/agent_client.py): a Message's parts, or a Task's last
artifact with text, else its status message, else its latest agent message; text parts as
they are, data parts as indented JSON, other parts (raw bytes, URLs) skipped. Commands are
fenced with triple backticks; a line `SUBMIT: summary` or `DECLINE: reason` outside a fence
ends the turn."""

import json
import math
import re
from dataclasses import dataclass, field

from a2a.types import Message, Part, Role, SendMessageResponse, Task, TaskState
from google.protobuf.json_format import MessageToDict

from kubeproof.agents.llm.tools import LINE, Action, Malformed

FENCED = re.compile(r"```(.*?)```", re.DOTALL)  # NetArena's text_utils.extract_command
SHELL_TAG = re.compile(r"\A[ \t]*(?:sh|bash|shell|console|zsh)[ \t]*\n")
# the states a reply may end in: a task done, or one waiting for the harness's next message
ANSWERED = {TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_INPUT_REQUIRED}
COUNT_LIMIT = 10**12  # tokens: anything larger is not a count
COST_LIMIT = 1e6  # USD per reply


class AgentFailure(Exception):
    """What the agent did wrong speaking A2A: the trial's fault, never a retried error."""


@dataclass
class Usage:
    """What the agent said one reply cost; None where it did not say."""

    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None


@dataclass
class Reply:
    text: str
    kind: str  # message | task
    state: str | None = None  # the task's state, e.g. TASK_STATE_COMPLETED
    task_id: str = ""  # set when the task waits for input: the next message continues it
    usage: Usage | None = None
    notes: list[str] = field(default_factory=list)  # what was skipped or ignored
    declined: bool = False  # the agent rejected the task


def _part_text(part: Part, notes: list[str]) -> str | None:
    kind = part.WhichOneof("content")
    if kind == "text":
        return part.text
    if kind == "data":
        return json.dumps(MessageToDict(part.data), indent=2)
    notes.append(f"a {kind or 'empty'} part skipped")
    return None


def _text(parts, notes: list[str]) -> str:
    return "\n".join(t for t in (_part_text(p, notes) for p in parts) if t is not None)


def _task_text(task: Task, notes: list[str]) -> str:
    for artifact in reversed(task.artifacts):
        text = _text(artifact.parts, notes)
        if text.strip():
            return text
    if task.status.HasField("message"):
        text = _text(task.status.message.parts, notes)
        if text.strip():
            return text
    for message in reversed(task.history):
        if message.role == Role.ROLE_AGENT:
            text = _text(message.parts, notes)
            if text.strip():
                return text
    return ""


def read(response: SendMessageResponse) -> Reply:
    """The reply's text and what it says of its task; a task that failed, was canceled,
    wants authentication or is still running is the agent's failure."""
    notes: list[str] = []
    if response.HasField("message"):
        message: Message = response.message
        return Reply(_text(message.parts, notes), "message", usage=usage(message), notes=notes)
    if not response.HasField("task"):
        raise AgentFailure("the reply holds neither a message nor a task")
    task = response.task
    text = _task_text(task, notes)
    state = TaskState.Name(task.status.state)
    reported = usage(task)
    if reported is None and task.status.HasField("message"):
        reported = usage(task.status.message)
    reply = Reply(text, "task", state, usage=reported, notes=notes)
    if task.status.state == TaskState.TASK_STATE_REJECTED:
        reply.declined = True
    elif task.status.state not in ANSWERED:
        said = f": {text.strip()[:200]!r}" if text.strip() else ""
        raise AgentFailure(f"its task ended in {state}{said}")
    if task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
        reply.task_id = task.id
    return reply


def _count(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0 or value >= COUNT_LIMIT or value != int(value):
        return None
    return int(value)


def usage(holder: Message | Task) -> Usage | None:
    """The `usage` object of the metadata, if it has one: tokens in (`tokens_in`,
    `input_tokens` or `prompt_tokens`), out (`tokens_out`, `output_tokens` or
    `completion_tokens`), `cost_usd`. A value that is not a non-negative count (or a finite
    cost) is taken as not said."""
    if not holder.HasField("metadata"):
        return None
    data = MessageToDict(holder.metadata).get("usage")
    if not isinstance(data, dict):
        return None

    def first(*keys: str) -> int | None:
        return next((c for c in (_count(data.get(k)) for k in keys) if c is not None), None)

    cost = data.get("cost_usd")
    if (
        isinstance(cost, bool)
        or not isinstance(cost, int | float)
        or not (math.isfinite(cost) and 0 <= cost < COST_LIMIT)
    ):
        cost = None
    found = Usage(
        first("tokens_in", "input_tokens", "prompt_tokens"),
        first("tokens_out", "output_tokens", "completion_tokens"),
        None if cost is None else float(cost),
    )
    return found if found != Usage() else None


def _fenced(body: str) -> str:
    """A fence's content as a command: NetArena keeps a ```bash tag, whose `bash` its
    block-list then refuses; the tag is dropped here."""
    return SHELL_TAG.sub("", body, count=1).strip()


def _ending(match: re.Match) -> Action:
    word, rest = match.group(1), match.group(2).strip()
    if word == "SUBMIT":
        return Action("submit", {"summary": rest})
    if not rest:
        raise Malformed("DECLINE needs a reason: `DECLINE: why`")
    return Action("decline", {"reason": rest})


def one_command(text: str) -> Action:
    """NetArena's reading (one command per reply): the first fenced block; without one, a
    SUBMIT or DECLINE line."""
    match = FENCED.search(text)
    if match is not None and _fenced(match.group(1)):
        return Action("run", {"command": _fenced(match.group(1))})
    ending = LINE.search(FENCED.sub("", text))
    if ending is not None:
        return _ending(ending)
    raise Malformed("no command found: put one command between triple backticks (```)")


def commands(text: str, limit: int) -> list[Action]:
    """Every fenced block in order, up to a SUBMIT or DECLINE line (outside the fences),
    which ends the list; more than `limit` commands is malformed."""
    found: list[tuple[int, Action]] = []
    for match in FENCED.finditer(text):
        command = _fenced(match.group(1))
        if command:
            found.append((match.start(), Action("run", {"command": command})))
    # fences blanked, their positions and line breaks kept
    blanked = FENCED.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for match in LINE.finditer(blanked):
        found.append((match.start(), _ending(match)))
    found.sort(key=lambda pair: pair[0])
    actions: list[Action] = []
    for _, action in found:
        actions.append(action)
        if action.name != "run":
            break
    runs = sum(1 for a in actions if a.name == "run")
    if not actions:
        raise Malformed(
            "no command found: put each command between triple backticks (```), or end "
            "with a line `SUBMIT: summary` or `DECLINE: reason`"
        )
    if runs > limit:
        raise Malformed(f"{runs} commands in one reply; at most {limit}")
    return actions
