"""What the simulated process in a container does once started, decided from its behaviour
model, its command, its environment and its mounted files."""

import contextlib
import re
import shlex
from dataclasses import dataclass, field

from kubeproof.nodesim import diskcmd, formats
from kubeproof.nodesim.catalog import ImageModel
from kubeproof.nodesim.quantity import parse

FOREVER = float("inf")


@dataclass
class Plan:
    """Lines logged at start, then an exit after `runs_for` seconds (inf: runs until stopped)."""

    logs: list[str] = field(default_factory=list)
    runs_for: float = FOREVER
    exit_code: int = 0
    reason: str = "Completed"  # terminated reason when it exits
    exit_logs: list[str] = field(default_factory=list)
    # files the process writes before it exits (its terminationMessagePath, read then)
    written: dict[str, str] = field(default_factory=dict)
    # the runtime's error when the program cannot be executed at all (StartError)
    start_error: str | None = None
    # (file, bytes, seconds after start) its script writes with dd/fallocate (storage.py)
    disk: list[tuple[str, int, float]] = field(default_factory=list)


# containerd's CRI StartContainer wraps runc's error (internal/cri/server/container_start.go:
# "failed to create containerd task: %w"; the shim adds "failed to create shim task: OCI
# runtime create failed: runc create failed: ", ttrpc the trailing ": unknown"); runc 1.2+
# (libcontainer/standard_init_linux.go) reports exec.LookPath's error "during container init"
_RUNC_START = (
    "failed to create containerd task: failed to create shim task: OCI runtime create "
    "failed: runc create failed: unable to start container process: error during container "
    "init: {}: unknown"
)


def start_error(model: ImageModel, container: dict, files) -> str | None:
    """The runtime's message when the container's program is not in the image: a name not on
    its PATH, or a path that does not exist (the programs the model lists, and mounted
    files). None when it starts, or when the model does not list its programs."""
    if model.executables is None:
        return None
    argv = container.get("command") or ([] if model.entrypoint else (container.get("args") or []))
    if not argv:
        return None  # the image's own ENTRYPOINT/CMD
    program = argv[0]
    if "/" not in program:
        if program in model.executables:
            return None
        return _RUNC_START.format(f'exec: "{program}": executable file not found in $PATH')
    directory, _, name = program.rpartition("/")
    if (directory in model.bin_dirs and name in model.executables) or program in files:
        return None
    return _RUNC_START.format(f'exec: "{program}": stat {program}: no such file or directory')


def plan(model: ImageModel, container: dict, env: dict[str, str], files: dict[str, str]) -> Plan:
    if error := start_error(model, container, files):
        return Plan(runs_for=0.0, exit_code=128, reason="StartError", start_error=error)
    for need in model.requires:
        problem = _unmet(need.env, need.file, need.values, env, files)
        malformed = None if problem else formats.error(need, files)
        if problem or malformed:
            return Plan(
                logs=[] if malformed else list(model.logs.start),
                runs_for=min(model.startup_seconds, 1.0) * 0.5,
                exit_code=need.exit_code,
                reason="Error",
                exit_logs=[malformed or need.message, *model.logs.failure],
            )
    limit = ((container.get("resources") or {}).get("limits") or {}).get("memory")
    if limit and parse(model.memory) > parse(limit):
        # the kernel kills it as the working set crosses the limit during start-up
        return Plan(
            logs=list(model.logs.start),
            runs_for=max(model.startup_seconds, 0.3),
            exit_code=137,
            reason="OOMKilled",
        )
    command = [*(container.get("command") or []), *(container.get("args") or [])]
    if container.get("stdin") and interactive_shell(model, command):
        # `stdin: true`: the runtime holds the container's stdin open (CRI ContainerConfig
        # stdin, k8s.io/cri-api pkg/apis/runtime/v1/api.proto:1280-1284), so a shell with no script
        # blocks reading it until stopped (`kubectl run -it`, `kubectl debug -it`)
        return Plan(logs=[])
    if model.shell and command:
        return _shell(command, set(model.executables or ()))
    if model.batch:
        ok = model.batch.exit_code == 0
        return Plan(
            logs=list(model.logs.start),
            runs_for=model.batch.seconds,
            exit_code=model.batch.exit_code,
            reason="Completed" if ok else "Error",
            exit_logs=list(model.logs.success if ok else model.logs.failure),
        )
    return Plan(logs=formats.render([*model.logs.start, *model.logs.ready], files))


def interactive_shell(model: ImageModel, command: list[str]) -> bool:
    """The image's shell with no script: its default command (a shell image given none) or
    `sh`/`bash`/`ash` alone."""
    if not command:
        return bool(model.shell)
    return len(command) == 1 and command[0].rsplit("/", 1)[-1] in ("sh", "bash", "ash")


def _unmet(env_name, file, values, env, files) -> str | None:
    if env_name:
        value = env.get(env_name)
        if not value:
            return f"{env_name} unset"
        if values is not None and value not in values:
            return f"{env_name}={value}"
    if file:
        if file not in files:
            return f"{file} missing"
        if values is not None and files[file].strip() not in values:
            return f"{file} content"
    return None


def _shell(command: list[str], programs: set[str]) -> Plan:
    """Enough of sh for the commands people give busybox: echo, sleep, exit, true/false,
    loops that never end, `echo … > FILE` (a termination message), `dd`/`fallocate` filling
    a file (diskcmd.py), and a program that is not there (`sh: X: not found`, status 127)."""
    text = command[-1] if len(command) >= 3 and command[1] == "-c" else " ".join(command)
    logs: list[str] = []
    seconds = 0.0
    written: dict[str, str] = {}
    disk: list[tuple[str, int, float]] = []
    if re.search(r"while\s+(true|:)|tail\s+-f|sleep\s+infinity", text):
        echoes = [_echo(s) for s in re.split(r"[;&\n]+", text) if s.strip().startswith("echo")]
        return Plan(logs=[e for e in echoes if e is not None][:1])
    status = 0
    for statement in re.split(r"\s*(?:;|&&|\n)\s*", text):
        try:
            words = shlex.split(statement, posix=True) if statement.strip() else []
        except ValueError:
            words = []
        if not words:
            continue
        status = 0
        if words[0] == "echo":
            out, redirect = _redirected(words[1:])
            if redirect is None:
                logs.append(out)
            else:
                append = redirect.startswith(">")
                path = redirect.lstrip(">").strip()
                written[path] = (written.get(path, "") if append else "") + out + "\n"
        elif fill := diskcmd.parse(words):
            disk.append((fill[0], fill[1], seconds))
        elif words[0] == "sleep" and len(words) > 1:
            with contextlib.suppress(ValueError):
                seconds += float(words[1].rstrip("s"))
        elif words[0] == "exit":
            code = int(words[1]) if len(words) > 1 and words[1].isdigit() else 0
            return _ended(logs, seconds, code, written, disk)
        elif words[0] == "false":
            return _ended(logs, seconds, 1, written, disk)
        elif programs and _missing(words[0], programs):
            logs.append(f"sh: {words[0]}: not found")  # busybox ash, status 127
            status = 127
    if seconds >= 3600:
        return Plan(logs=logs, disk=disk)
    return _ended(logs, seconds, status, written, disk)


# ash's builtins and reserved words: never looked up on PATH
_BUILTINS = frozenset(
    [
        ".",
        ":",
        "alias",
        "bg",
        "break",
        "cd",
        "chdir",
        "command",
        "continue",
        "eval",
        "exec",
        "exit",
        "export",
        "false",
        "fg",
        "getopts",
        "hash",
        "help",
        "history",
        "jobs",
        "kill",
        "let",
        "local",
        "printf",
        "read",
        "readonly",
        "return",
        "set",
        "shift",
        "source",
        "test",
        "times",
        "trap",
        "true",
        "type",
        "ulimit",
        "umask",
        "unalias",
        "unset",
        "wait",
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "in",
        "{",
        "}",
        "!",
        "[",
        "[[",
    ]
)


def _missing(word: str, programs: set[str]) -> bool:
    """A command word ash would look up on PATH and not find (not an assignment, an
    expansion, a path, a builtin or a reserved word)."""
    if "/" in word or word.startswith(("$", "(", "`")) or "=" in word.lstrip("="):
        return False
    return word not in programs and word not in _BUILTINS


def _ended(logs: list[str], seconds: float, code: int, written: dict[str, str], disk=()) -> Plan:
    return Plan(
        logs=logs,
        runs_for=seconds,
        exit_code=code,
        reason="Completed" if code == 0 else "Error",
        written=written,
        disk=list(disk),
    )


def _redirected(words: list[str]) -> tuple[str, str | None]:
    """echo's words and where `>`/`>>` sends them (None: the log); an append keeps one
    `>` before the path."""
    for i, word in enumerate(words):
        if word in (">", ">>") and i + 1 < len(words):
            return " ".join(words[:i]), word[1:] + words[i + 1]
        if word.startswith(">"):
            return " ".join(words[:i]), word[1:]
    return " ".join(words), None


def _echo(statement: str) -> str | None:
    try:
        return " ".join(shlex.split(statement)[1:])
    except ValueError:
        return None
