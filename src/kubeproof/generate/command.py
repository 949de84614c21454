"""S0 for COMMAND answers: the one kubectl command in a model's raw answer, read as the
hostile input it is. The judge runs it for real (stock kubectl, the evaluation identity's
kubeconfig, no shell), so the text is refused unless it is exactly one kubectl command of an
allowed subcommand, split by shlex, with no shell syntax (pipes, redirections, `;`, `&&`,
substitutions, comments), no flag that picks other credentials or another server, and no
flag that reads or writes local files (docs/generate.md, "COMMAND")."""

import re
import shlex
from enum import StrEnum

from pydantic import BaseModel, Field

COMMAND_LIMIT = 4096  # characters: a kubectl command is a line, not a file
ARG_LIMIT = 64
_FENCE = re.compile(r"^[ \t]*```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)
_SHELL_FENCES = ("", "bash", "sh", "shell", "console", "zsh", "text")
_PROMPT = re.compile(r"^\s*(?:\$|#|>|PS>)\s+")
# what a shell would read as more than one word of a command: an operator, a substitution
_SHELL_CHARS = set(";|&<>()`$\n\r\\")

# the subcommands a task's answer may need; plugins (`kubectl foo` runs kubectl-foo from
# PATH), exec, cp, proxy, port-forward, edit, config and the like are refused
SUBCOMMANDS = frozenset(
    {"get", "describe", "create", "delete", "label", "annotate", "scale", "set", "patch",
     "expose", "autoscale", "auth", "rollout"}
)  # fmt: skip
# flags that choose other credentials, another server or identity, or touch local files
FORBIDDEN_LONG = frozenset(
    {"kubeconfig", "server", "token", "as", "as-group", "as-uid", "context", "cluster", "user",
     "username", "password", "certificate-authority", "client-certificate", "client-key",
     "insecure-skip-tls-verify", "tls-server-name", "cache-dir", "log-dir", "log-file",
     "log-file-max-size", "profile", "profile-output", "filename", "kustomize", "from-file",
     "from-env-file", "patch-file", "recursive", "disable-compression", "proxy-url"}
)  # fmt: skip
FORBIDDEN_SHORT = frozenset("fks")  # -f FILE, -k DIR, -s SERVER
_OUTPUT_FLAGS = ("-o", "--output")
_NAMESPACE_FLAGS = ("-n", "--namespace")


class CommandFailure(StrEnum):
    empty = "empty"
    not_kubectl = "not_kubectl"
    shell_syntax = "shell_syntax"
    forbidden = "forbidden"
    invalid = "invalid"


class ParsedCommand(BaseModel):
    argv: list[str] = Field(default_factory=list, description="kubectl and its arguments.")
    failure: CommandFailure | None = Field(default=None, description="None when S0 passed.")
    reason: str = ""

    @property
    def subcommand(self) -> str:
        return subcommand(self.argv) or ""


def command_text(answer: str) -> str:
    """The command part of an answer: a shell-looking fenced block, else the first line that
    starts with kubectl (a `$ ` prompt allowed), else the whole answer."""
    blocks = [body for lang, body in _FENCE.findall(answer) if lang.lower() in _SHELL_FENCES]
    text = blocks[0] if blocks else answer
    lines = [_PROMPT.sub("", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not blocks:
        starts = [i for i, line in enumerate(lines) if line.startswith("kubectl")]
        # prose around one command is fine; two commands are not one
        lines = [lines[i] for i in starts] if starts else lines
    return "\n".join(lines)


def subcommand(argv: list[str]) -> str | None:
    """The subcommand: the first word after kubectl, or after a leading `-n NS`."""
    rest = argv[1:]
    while rest and rest[0].startswith("-"):
        if rest[0] in _NAMESPACE_FLAGS and len(rest) > 1:
            rest = rest[2:]
        elif rest[0].startswith(("--namespace=", "-n=")):
            rest = rest[1:]
        else:
            return None
    return rest[0] if rest else None


def _flag_problem(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv[1:], start=1):
        if arg == "--":
            break
        if arg.startswith("--"):
            name, _, value = arg[2:].partition("=")
            if name in FORBIDDEN_LONG:
                return f"the flag --{name} is not allowed"
        elif arg.startswith("-") and len(arg) > 1:
            name, value = arg[1], arg[2:].removeprefix("=")
            if name in FORBIDDEN_SHORT:
                return f"the flag -{name} is not allowed"
        else:
            continue
        if arg.split("=")[0] in _OUTPUT_FLAGS or (arg[:2] == "-o" and not arg.startswith("--")):
            value = value or (argv[i + 1] if i + 1 < len(argv) else "")
            if value.split("=")[0].endswith("-file"):
                return f"the output format {value.split('=')[0]} reads a local file"
    return None


def parse(answer: str, allowed: frozenset[str] = SUBCOMMANDS) -> ParsedCommand:
    """S0 over a raw COMMAND answer (`allowed`: the subcommands it may use)."""
    if len(answer) > COMMAND_LIMIT * 4:
        return ParsedCommand(failure=CommandFailure.invalid, reason="answer too long")
    text = command_text(answer)
    if not text.strip():
        return ParsedCommand(failure=CommandFailure.empty, reason="no command")
    if len(text) > COMMAND_LIMIT:
        return ParsedCommand(failure=CommandFailure.invalid, reason=f"over {COMMAND_LIMIT} chars")
    if "\n" in text:
        return ParsedCommand(failure=CommandFailure.shell_syntax, reason="more than one line")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        argv = list(lexer)
    except ValueError as exc:  # an unclosed quote
        return ParsedCommand(failure=CommandFailure.invalid, reason=str(exc))
    if not argv:
        return ParsedCommand(failure=CommandFailure.empty, reason="no command")
    if argv[0] != "kubectl":
        return ParsedCommand(
            argv=argv, failure=CommandFailure.not_kubectl, reason=f"starts with {argv[0]!r}"
        )
    # shlex gives an unquoted operator a token of its own; `$`, backticks and backslashes
    # are refused anywhere (a shell would expand them), as is a word starting a comment
    odd = [a for a in argv if set(a) & _SHELL_CHARS or a.startswith("#")]
    if odd:
        return ParsedCommand(
            argv=argv, failure=CommandFailure.shell_syntax, reason=f"shell syntax {odd[0]!r}"
        )
    if len(argv) > ARG_LIMIT:
        return ParsedCommand(failure=CommandFailure.invalid, reason=f"over {ARG_LIMIT} words")
    problem = _flag_problem(argv)
    if problem:
        return ParsedCommand(argv=argv, failure=CommandFailure.forbidden, reason=problem)
    sub = subcommand(argv)
    if sub not in allowed:
        return ParsedCommand(
            argv=argv, failure=CommandFailure.forbidden, reason=f"subcommand {sub!r} not allowed"
        )
    return ParsedCommand(argv=argv, reason=f"kubectl {sub}")


def render(argv: list[str]) -> str:
    """The command as one line a shell reads back to the same words."""
    return shlex.join(argv)
