"""What the simulated process in a container does once started, decided from its behaviour
model, its command, its environment and its mounted files."""

import contextlib
import re
import shlex
from dataclasses import dataclass, field

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


def plan(model: ImageModel, container: dict, env: dict[str, str], files: dict[str, str]) -> Plan:
    for need in model.requires:
        problem = _unmet(need.env, need.file, need.values, env, files)
        if problem:
            return Plan(
                logs=list(model.logs.start),
                runs_for=min(model.startup_seconds, 1.0) * 0.5,
                exit_code=need.exit_code,
                reason="Error",
                exit_logs=[need.message, *model.logs.failure],
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
    if model.shell and command:
        return _shell(command)
    if model.batch:
        ok = model.batch.exit_code == 0
        return Plan(
            logs=list(model.logs.start),
            runs_for=model.batch.seconds,
            exit_code=model.batch.exit_code,
            reason="Completed" if ok else "Error",
            exit_logs=list(model.logs.success if ok else model.logs.failure),
        )
    return Plan(logs=[*model.logs.start, *model.logs.ready])


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


def _shell(command: list[str]) -> Plan:
    """Enough of sh for the commands people give busybox: echo, sleep, exit, true/false,
    loops that never end."""
    text = command[-1] if len(command) >= 3 and command[1] == "-c" else " ".join(command)
    logs: list[str] = []
    seconds = 0.0
    if re.search(r"while\s+(true|:)|tail\s+-f|sleep\s+infinity", text):
        echoes = [_echo(s) for s in re.split(r"[;&\n]+", text) if s.strip().startswith("echo")]
        return Plan(logs=[e for e in echoes if e is not None][:1])
    for statement in re.split(r"\s*(?:;|&&|\n)\s*", text):
        words = shlex.split(statement, posix=True) if statement.strip() else []
        if not words:
            continue
        if words[0] == "echo":
            logs.append(" ".join(words[1:]))
        elif words[0] == "sleep" and len(words) > 1:
            with contextlib.suppress(ValueError):
                seconds += float(words[1].rstrip("s"))
        elif words[0] == "exit":
            code = int(words[1]) if len(words) > 1 and words[1].isdigit() else 0
            return Plan(
                logs=logs,
                runs_for=seconds,
                exit_code=code,
                reason="Completed" if code == 0 else "Error",
            )
        elif words[0] == "false":
            return Plan(logs=logs, runs_for=seconds, exit_code=1, reason="Error")
    if seconds >= 3600:
        return Plan(logs=logs)
    return Plan(logs=logs, runs_for=seconds, exit_code=0, reason="Completed")


def _echo(statement: str) -> str | None:
    try:
        return " ".join(shlex.split(statement)[1:])
    except ValueError:
        return None
