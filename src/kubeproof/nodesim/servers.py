"""Servers recognised from a container's command, whatever its image's model says: busybox
`httpd -f -p 8080`, `python -m http.server 8000`, `nc -lk -p 9000`. The rules are data (the
catalog's `servers:` list, images.yaml); this module reads a command line against them.

A container whose command names such a server listens on its port (and, for an HTTP server,
answers GET /) from the moment it starts, and runs until stopped — unless the rule says the
program forks to the background without a flag (busybox httpd without `-f`: the parent exits
0 at once, taking the container with it, as PID 1 leaving ends a container)."""

import re
import shlex

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

MAX_SCRIPT = 64 * 1024  # a longer script is not searched for a server


class ServerRule(BaseModel):
    """How one server program is started and where it listens."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    names: list[str] = Field(description="program names (basename of argv[0]); `*` globs")
    module: str | None = Field(None, description="`python -m MODULE`: the module run")
    port_option: str | None = Field(
        None, description="the option naming the port (`-p`); its value may be IP:PORT"
    )
    positional_port: bool = Field(False, description="the first operand is the port")
    default_port: int | None = Field(None, description="the port when the command names none")
    valued: list[str] = Field(
        default_factory=list, description="other options that take a value (skipped)"
    )
    listen_flag: str | None = Field(
        None, description="a flag without which it is a client, not a server (nc's `-l`)"
    )
    foreground_flag: str | None = Field(
        None, description="a flag without which it forks to the background and exits 0"
    )
    http: bool = Field(False, description="serves HTTP: GET / answers 200")
    root_options: list[str] = Field(
        default_factory=list,
        description="options naming the directory it serves files from (a static file "
        "server; its default is the working directory): what GET answers (nodesim/pages.py)",
    )


class Server(BaseModel):
    """A server a command starts."""

    port: int = Field(description="the TCP port it listens on")
    http: bool = Field(description="it answers HTTP")
    foreground: bool = Field(description="it stays in the foreground (else it exits at once)")


def _matches(rule: ServerRule, argv: list[str]) -> list[str] | None:
    """The arguments after the program (and `-m MODULE`), or None when the rule is not it."""
    if not argv:
        return None
    name = argv[0].rsplit("/", 1)[-1]
    if not any(re.fullmatch(n.replace(".", r"\.").replace("*", ".*"), name) for n in rule.names):
        return None
    if rule.module is None:
        return argv[1:]
    for i, word in enumerate(argv[1:], 1):
        if word == "-m" and i + 1 < len(argv):
            return argv[i + 2 :] if argv[i + 1] == rule.module else None
        if word.startswith("-m") and len(word) > 2:
            return argv[i + 1 :] if word[2:] == rule.module else None
    return None


def _options(rule: ServerRule, args: list[str]) -> tuple[dict[str, str], list[str]]:
    """getopt-style: {option: value} ("" for a flag) and the operands. Short options may be
    bundled (`-lkp 9000`, `-p9000`); `--name=value` and `--name value` are read too."""
    valued = set(rule.valued) | ({rule.port_option} if rule.port_option else set())
    options: dict[str, str] = {}
    operands: list[str] = []
    words = iter(args)
    for word in words:
        if word.startswith("--") and len(word) > 2:
            name, eq, value = word.partition("=")
            options[name] = value if eq else (next(words, "") if name in valued else "")
        elif word.startswith("-") and len(word) > 1:
            for i, letter in enumerate(word[1:], 1):
                option = f"-{letter}"
                if option in valued:
                    options[option] = word[i + 1 :] or next(words, "")
                    break
                options[option] = ""
        else:
            operands.append(word)
    return options, operands


def _port(text: str) -> int | None:
    tail = text.rsplit(":", 1)[-1]  # httpd's -p [IP:]PORT
    return int(tail) if tail.isdigit() and 0 < int(tail) < 65536 else None


def recognise(rules: list[ServerRule], argv: list[str]) -> Server | None:
    """The server `argv` starts, if a rule knows it."""
    for rule in rules:
        args = _matches(rule, argv)
        if args is None:
            continue
        options, operands = _options(rule, args)
        if rule.listen_flag and rule.listen_flag not in options:
            continue
        port = rule.default_port
        if rule.port_option and rule.port_option in options:
            port = _port(options[rule.port_option])
        elif rule.positional_port and operands:
            port = _port(operands[0])
        if port is None:
            continue
        foreground = rule.foreground_flag is None or rule.foreground_flag in options
        return Server(port=port, http=rule.http, foreground=foreground)
    return None


def _statements(text: str):
    """The simple commands of a script, as words, `exec`/`nohup`/`command` dropped."""
    if len(text) > MAX_SCRIPT:
        return
    for statement in re.split(r"[;&|\n]+|\b(?:then|do|else)\b", text):
        try:
            words = shlex.split(statement)
        except ValueError:
            continue
        while words and words[0] in ("exec", "nohup", "command"):
            words = words[1:]
        yield words


def document_root(
    rules: list[ServerRule], argv: list[str], script: str | None, port: int
) -> str | None:
    """The directory the static file server listening on `port` serves (as written; "."
    when its command names none), or None when no such server is started by `argv` or,
    for a shell, its `script`."""
    for words in _statements(script) if script is not None else [argv]:
        for rule in rules:
            args = _matches(rule, words)
            if args is None or not rule.root_options:
                continue
            found = recognise([rule], words)
            if found is None or found.port != port:
                continue
            options, _ = _options(rule, args)  # root options are among `valued`
            return next((options[o] for o in rule.root_options if options.get(o)), ".")
    return None


def in_script(rules: list[ServerRule], text: str) -> Server | None:
    """A server a shell script starts as one of its simple commands (`exec httpd -f -p
    8080`, `nc -lk -p 9000 &`); the first one found. A script run for real cannot open a
    port outside its sandbox (runbox.py), so its listening port is read from its text."""
    for words in _statements(text):
        if (found := recognise(rules, words)) is not None:
            # a server started inside a script stays up while the script goes on
            return Server(port=found.port, http=found.http, foreground=True)
    return None
