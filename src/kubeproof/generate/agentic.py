"""The agentic agent of the generate track (docs/generate.md, "Agents and scores"): before it
answers, the model may look at the judge cluster as the task's evaluation identity sees it —
read the fixtures, ask what it may do, try its manifests with a server-side dry run — and then
submits an answer that the stages judge exactly as they judge a single-shot one.

The model never writes a command line. The harness does: the `kubectl` tool's text must pass
the COMMAND answers' S0 (one kubectl command, no shell syntax, no flag that picks other
credentials or reads local files); reading subcommands run as they are, and the others run with
`--dry-run=server` added by the harness (any other `--dry-run` and `--raw` are refused). The
`dry_run` tool applies a manifest with `--dry-run=server`. Both run in the agent sandbox
(agents/sandbox.py) with the evaluation identity's kubeconfig and nothing else. So exploring
changes nothing, and the judge session proves it by comparing the cluster before and after
(generate/live/session.py, `explore`)."""

import shlex
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kubeproof.agents.llm.chat import ChatModel, ModelUnavailable, Reply
from kubeproof.agents.llm.config import LLMConfig
from kubeproof.agents.llm.loop import turn_record
from kubeproof.agents.llm.pricing import cost, price_for
from kubeproof.agents.llm.tools import Action, Malformed, observation, parse_tool_call
from kubeproof.agents.spec import AgentSpec
from kubeproof.generate import command, single_shot
from kubeproof.generate.extract import ANSWER_LIMIT
from kubeproof.generate.model import GeneratedTask, Operation
from kubeproof.generate.single_shot import SYSTEM, SYSTEM_COMMAND, Answer, messages
from kubeproof.results import Usage

MAX_TURNS = 8  # model calls, when the agent's config names none
COMMAND_TIMEOUT = 20.0  # seconds a tool's kubectl may take
# what only reads: run as written (`auth` only as `can-i` or `whoami`, `rollout` only as
# `status` or `history`)
READING = frozenset(
    {"get", "describe", "explain", "api-resources", "api-versions", "version", "auth", "rollout"}
)
READING_AUTH = ("can-i", "whoami")
READING_ROLLOUT = ("status", "history")
# what writes: run only with --dry-run=server, which the harness adds
WRITING = command.SUBCOMMANDS - {"get", "describe", "auth"}

KUBECTL = {
    "name": "kubectl",
    "description": "Run one kubectl command as the identity that will apply your answer, e.g. "
    "`kubectl get configmaps -n shop -o yaml` or `kubectl auth can-i create roles -n shop`. "
    "Commands that read run as written; commands that would change something run with "
    "--dry-run=server, so nothing changes. No shell: no pipes, redirections or files.",
    "parameters": {
        "type": "object",
        "properties": {"command": {"type": "string", "description": "The kubectl command."}},
        "required": ["command"],
    },
}
DRY_RUN = {
    "name": "dry_run",
    "description": "Try manifests: the apiserver checks them with a server-side dry run as the "
    "identity that will apply your answer, and says what it would do. Nothing is created.",
    "parameters": {
        "type": "object",
        "properties": {"manifest": {"type": "string", "description": "The YAML manifests."}},
        "required": ["manifest"],
    },
}
SUBMIT = {
    "name": "submit",
    "description": "Submit your final answer and end your turn: the YAML manifests, or for a "
    "command task the one kubectl command.",
    "parameters": {
        "type": "object",
        "properties": {"answer": {"type": "string", "description": "The final answer."}},
        "required": ["answer"],
    },
}

EXPLORING = (
    "Before you answer you may look at the cluster as the identity that will apply your "
    "answer: run kubectl commands that read (get, describe, explain, auth can-i) and try "
    "manifests with a server-side dry run. Nothing you do changes the cluster. You have at "
    "most {turns} replies in all; the last must submit."
)
TEXT_PROTOCOL = (
    "Reply with exactly one action each time: a ```sh block holding one kubectl command to "
    "run; or a first line `DRY-RUN` followed by a ```yaml block of manifests to try; or a "
    "first line `SUBMIT` followed by your final answer. A reply holding only a ```yaml "
    "block is taken as your final answer."
)
TOOLS_PROTOCOL = "Use the tools: `kubectl`, `dry_run`, and `submit` for your final answer."

_SH = ("sh", "bash", "shell", "console", "")


def tools_for(task: GeneratedTask) -> list[dict]:
    """A command task's answer is a command: there is no manifest to dry-run."""
    return [KUBECTL, SUBMIT] if task.answer_format == "command" else [KUBECTL, DRY_RUN, SUBMIT]


def system_text(task: GeneratedTask, config: LLMConfig, turns: int) -> str:
    base = SYSTEM_COMMAND if task.answer_format == "command" else SYSTEM
    base = base.replace(" Do not explain.", "")
    protocol = TOOLS_PROTOCOL if config.protocol == "tools" else TEXT_PROTOCOL
    return f"{base} {EXPLORING.format(turns=turns)} {protocol}"


def parse_text(reply: str, task: GeneratedTask) -> Action:
    """One action of the text protocol (TEXT_PROTOCOL)."""
    head, _, rest = reply.strip().partition("\n")
    word = head.strip().strip("*`#: ").upper().replace("_", "-")
    if word.startswith("SUBMIT"):
        after = head.strip().strip("*`#").strip()[len("SUBMIT") :].lstrip(" :")
        answer = "\n".join(x for x in (after, rest) if x.strip())
        if not answer.strip():
            raise Malformed("SUBMIT needs your answer after it")
        return Action("submit", {"answer": answer})
    blocks = command._FENCE.findall(reply)
    if word.startswith("DRY-RUN"):
        yaml_blocks = [b for lang, b in blocks if lang.lower() not in _SH or lang == ""]
        if not yaml_blocks:
            raise Malformed("DRY-RUN needs a ```yaml block of manifests after it")
        return Action("dry_run", {"manifest": yaml_blocks[0]})
    shell = [b for lang, b in blocks if lang.lower() in _SH and "kubectl" in b]
    if len(shell) > 1:
        raise Malformed(f"{len(shell)} commands in one reply; give exactly one")
    if shell:
        return Action("kubectl", {"command": shell[0].strip()})
    if any(lang.lower() in ("yaml", "yml") for lang, _ in blocks) or (
        task.answer_format != "command" and reply.lstrip().startswith("apiVersion:")
    ):
        return Action("submit", {"answer": reply})
    raise Malformed(
        "no action found: reply with a ```sh block holding one kubectl command, a first "
        "line `DRY-RUN` and a ```yaml block, or a first line `SUBMIT` and your answer"
    )


def checked(text: str) -> tuple[list[str] | None, str]:
    """The argv the harness runs for a `kubectl` tool call, or None and why not."""
    parsed = command.parse(text, READING | WRITING)
    if parsed.failure is not None:
        return None, f"refused ({parsed.failure}): {parsed.reason}"
    argv, sub = parsed.argv, parsed.subcommand
    words = [a for a in argv[1:] if not a.startswith("-")]
    verb = words[1] if len(words) > 1 else ""
    if sub == "auth" and verb not in READING_AUTH:
        return None, "refused: of `kubectl auth`, only `can-i` and `whoami` may run here"
    if sub in READING and (sub != "rollout" or verb in READING_ROLLOUT):
        return argv, ""
    if any(a == "--raw" or a.startswith("--raw=") for a in argv):
        return None, "refused: --raw is not allowed for a command that writes"
    runs = [a for a in argv if a.startswith("--dry-run")]
    if any(a != "--dry-run=server" for a in runs):
        return None, "refused: a command that writes runs only with --dry-run=server here"
    return (argv if runs else [*argv, "--dry-run=server"]), "(run with --dry-run=server)"


class Tools:
    """The agent's tools on a judge cluster: kubectl in the sandbox as the evaluation
    identity, with the kubeconfig the session wrote and nothing else."""

    def __init__(self, kubeconfig: Path, scratch: Path):
        from kubeproof.agents.sandbox import Sandbox
        from kubeproof.cluster.base import kubectl_binary

        self.sandbox = Sandbox(kubeconfig, scratch, kubectl_binary(), timeout=COMMAND_TIMEOUT)

    def close(self) -> None:
        self.sandbox.close()

    def kubectl(self, text: str) -> str:
        argv, note = checked(text)
        if argv is None:
            return f"error: {note}"
        result = self.sandbox.run(shlex.join(argv))
        return f"{note}\n{observation(result)}".lstrip()

    def dry_run(self, manifest: str, task: GeneratedTask) -> str:
        if len(manifest.encode()) > ANSWER_LIMIT:
            return f"error: the manifests are over {ANSWER_LIMIT} bytes"
        if task.operation is Operation.delete:
            line = "kubectl delete --dry-run=server -f -"
        else:
            line = "kubectl apply --server-side --dry-run=server -f -"
        return observation(self.sandbox.run(line, stdin=manifest.encode()))


# (task, the evaluation identity's kubeconfig, a scratch directory) -> the answer
Explore = Callable[[GeneratedTask, Path, Path], Answer]


class AgenticAnswerer:
    """A model that explores, then answers; `explores` tells the trial code to call it on a
    judge cluster (JudgeSession.explore) rather than before judging."""

    explores = True

    def __init__(
        self, config: LLMConfig, chat: ChatModel, prices: dict | None = None, variant: str = ""
    ):
        self.config = config
        self.chat = chat
        self.variant = variant
        self.turns = config.max_turns or MAX_TURNS
        self.price = price_for(
            config.model, config.base_url, config.price_in, config.price_out, prices
        )
        self.info = single_shot.model_info(config, self.price, "agentic")

    def __call__(self, task: GeneratedTask, kubeconfig: Path, scratch: Path) -> Answer:
        tools = Tools(kubeconfig, scratch)
        try:
            return self._converse(task, tools)
        finally:
            tools.close()

    def _converse(self, task: GeneratedTask, tools: Tools) -> Answer:
        offered = tools_for(task)
        sent = messages(task, self.variant)
        sent[0]["content"] = system_text(task, self.config, self.turns)
        usage = Usage(calls=0, turns=0, tokens_in=0, tokens_out=0, cost_usd=None)
        answer = Answer("", info=self.info, usage=usage, transcript=sent)
        started = time.time()
        for turn in range(1, self.turns + 1):
            try:
                reply = self.chat.complete(
                    sent, offered if self.config.protocol == "tools" else None
                )
            except ModelUnavailable as exc:
                answer.error = str(exc)
                break
            spent = cost(reply.tokens_in, reply.tokens_out, self.price)
            usage.calls += 1 + reply.retries
            usage.turns += 1
            usage.retries += reply.retries
            usage.tokens_in += reply.tokens_in
            usage.tokens_out += reply.tokens_out
            if spent is not None:
                usage.cost_usd = round((usage.cost_usd or 0.0) + spent, 6)
            record = turn_record(turn, started, reply, spent)
            answer.turns.append(record)
            submitted = self._act(task, tools, reply, offered, sent, record)
            if record["wasted"]:
                usage.wasted_turns += 1
            if submitted is not None:
                answer.text = submitted
                break
        answer.seconds = round(time.time() - started, 3)
        return answer

    def _act(
        self,
        task: GeneratedTask,
        tools: Tools,
        reply: Reply,
        offered: list[dict],
        sent: list[dict],
        record: dict,
    ) -> str | None:
        """Do what the reply asks; the answer text once it submits."""
        calls = [{"id": t.id, "name": t.name, "arguments": t.arguments} for t in reply.tool_calls]
        sent.append({"role": "assistant", "content": reply.text, "tool_calls": calls})
        actions: list[Action] = []
        try:
            if self.config.protocol == "text":
                actions = [parse_text(reply.text, task)]
            elif not reply.tool_calls:
                raise Malformed("no tool call: use `kubectl`, `dry_run` or `submit`")
            else:
                for call in reply.tool_calls:
                    args = parse_tool_call(call.name, call.arguments, offered)
                    actions.append(Action(call.name, args, call.id))
            for action in actions:
                _usable(action)
        except Malformed as exc:
            record["wasted"] = str(exc)
            record["actions"].append({"name": None, "ran": False, "error": str(exc)})
            _answer(sent, None, "", f"error: {exc}")
            return None
        for action in actions:
            record["actions"].append({"name": action.name, "args": action.args, "ran": True})
            if action.name == "submit":
                return str(action.args["answer"])
            if action.name == "kubectl":
                said = tools.kubectl(str(action.args["command"]))
            else:
                said = tools.dry_run(str(action.args["manifest"]), task)
            _answer(sent, action.call_id, action.name, said)
        return None


def _usable(action: Action) -> None:
    """The model's text must be text a command line, a file and a result can hold: a NUL
    byte or a lone surrogate (both valid in a JSON string) would otherwise fail the harness's
    own subprocess or file write, an `error` the agent caused."""
    for key, value in action.args.items():
        if not isinstance(value, str):
            continue
        if "\x00" in value:
            raise Malformed(f"the {key} of {action.name} holds a NUL byte")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise Malformed(f"the {key} of {action.name} is not valid UTF-8 text") from exc


def _answer(sent: list[dict], call_id: str | None, name: str, text: str) -> None:
    if call_id is None:
        sent.append({"role": "user", "content": text, "observation": True})
    else:
        sent.append(
            {"role": "tool", "tool_call_id": call_id, "name": name, "content": text,
             "observation": True}
        )  # fmt: skip


def explore_in(explorer: Explore, task: GeneratedTask, write_kubeconfig) -> Answer:
    """Run `explorer` with a kubeconfig `write_kubeconfig(path)` writes, in a scratch
    directory removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="kubeproof-explore-") as home:
        config = write_kubeconfig(Path(home) / "kubeconfig")
        return explorer(task, config, Path(home) / "scratch")


def answerer(spec: AgentSpec, variant: str, chat: ChatModel | None = None):
    """The spec's agent in agentic mode: a model agent explores first; oracle and noop answer
    as they do single-shot. `chat` replaces the model's endpoint (tests)."""
    if spec.kind != "llm" or spec.llm is None:
        return single_shot.answerer(spec, chat)
    config = spec.llm
    if chat is None:
        config, chat = single_shot.model_chat(config)
    return AgenticAnswerer(config, chat, spec.prices, variant)
