"""Reading one shell command line, as an agent would type it, into the kubectl calls it makes
and the manifests it feeds them. Text only: no shell runs and no cluster is asked, so the same
line always reads the same way. What the calls are worth is `risk.py`'s job.

What it understands:

- `shlex` tokens split into simple commands on `|`, `|&`, `&&`, `||`, `;`, `&` and newlines;
  a backslash-newline joins lines; comments are dropped only where bash sees them (a `#` that
  starts a word outside quotes), so `--field-selector='x#y'` keeps its `#`.
- heredocs (`<<EOF`, `<<-EOF`, `<<'EOF'`) feed their body to the command's stdin, directly or
  through `cat <<EOF |`; `< f`, `cat f |`, `echo ... |` and `printf '...' |` feed what they
  plainly write. `cat > f.yaml <<EOF` and `| tee f.yaml` are remembered for a later
  `-f f.yaml` in the same line.
- `$(...)` and backticks are read as command lines of their own, then put back as written in
  the arguments around them.
- `bash|sh|zsh|dash -c`, `eval`, variable assignments, the keywords of `if`/`while`/`until`,
  and wrappers (sudo, env, timeout, watch, xargs, nice, nohup, time, command, exec) are looked
  through.
- `kubectl`, `k` and `kubectl.exe` are kubectl: verb, subcommand, objects (resource plural,
  namespace, name; aliases such as `po`, `deploy` and `deployment.apps/web` are resolved),
  long, short and bundled flags (`-n app`, `--namespace=app`, `-it`), and the manifests named
  by `-f` (`-` is stdin; a directory is every file under it).
- helm install/upgrade/rollback/uninstall and curl with a write method against an `/api/` or
  `/apis/` URL; every other command is a read.

Operation of a kubectl call: get, describe, logs, top, explain, api-resources, api-versions,
auth (but auth reconcile), version, events, cluster-info, config, diff, wait, kustomize, rollout
status|history, and exec/attach/port-forward/proxy (diagnostics; what they do inside a
container never reaches the API as a write) -> read; delete, drain, replace|apply --force ->
destroy; apply, create, patch, edit, label, annotate, scale, set, rollout (restart, undo,
pause, resume), expose, cordon, uncordon, taint, autoscale, run, replace, debug, certificate,
cp into a pod, and unknown verbs (plugins) -> mutate. `--dry-run` (other than `=none`) makes
any call a read.

What it cannot read:

- names computed at run time: `xargs kubectl delete`, `delete pod $(...)`, `$NAME`, loops.
  The call is seen, its objects are not; the audit log counts them (signals.py,
  blast_radius).
- control flow: every branch of an `if` and every loop body is read once, as if it ran once.
- files it is not given and that the line does not write first, `-f` URLs and `-k`
  directories: such a `-f` on a writing call gets the `manifests` text passed in, once.
- arithmetic `$((...))`, process substitution `<(...)`, functions, aliases and `case`.
  Unbalanced quotes fall back to a split on whitespace.
"""

import os.path
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from kubeproof.evidence.kubectl_words import (
    BOOLEAN_SHORTS,
    CLUSTER_SCOPED,
    DESTROY_VERBS,
    KUBECTL_NAMES,
    MUTATE_VERBS,
    NAME_FIRST_VERBS,
    READ_VERBS,
    RESOURCE_ALIASES,
    SHORT_FLAGS,
    SUBCOMMAND_VERBS,
    VALUE_FLAGS,
)
from kubeproof.evidence.manifests import as_dict, as_text, load_objects, object_namespace, plural_of

_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_SHELL_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"})
_SHELL_ENDS = frozenset({"fi", "done", "esac"})
_WRAPPERS = frozenset(
    {"sudo", "nohup", "time", "command", "exec", "env", "timeout", "watch", "xargs", "nice"}
)
_WRAPPER_VALUE_OPTS = {
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "watch": {"-n", "--interval", "-d"},
    "xargs": {"-I", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--max-args", "--max-procs"},
    "env": {"-u", "--unset", "-C", "--chdir"},
    "sudo": {"-u", "-g", "--user", "--group"},
    "nice": {"-n", "--adjustment"},
}
_HEREDOC = re.compile(r"(?<!<)<<(?!<)(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
_FD_BEFORE_REDIRECT = re.compile(r"(?<![\w=-])\d+(?=[<>])")
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_PUNCTUATION = ";&|()<>\n"
_COMMENT_AFTER = " \t\n;&|()"  # bash starts a comment only at a `#` that begins a word
_HEREDOC_MARK = "__KP_HEREDOC_{}__"
_SUBST_MARK = "__KP_SUBST_{}__"


# ---------------------------------------------------------------------------------------------
# what a command line is read into


@dataclass
class KubectlCall:
    """One kubectl invocation found in a command line, as far as its text tells."""

    verb: str
    sub: str | None
    operation: str  # read, mutate or destroy (module docstring)
    namespace: str  # from -n, else the default namespace given, else "" (unknown)
    namespaces: list[str]  # every namespace it acts in ("" for an unknown one)
    all_namespaces: bool
    objects: list[tuple[str, str | None, str | None]]  # (resource plural, namespace, name)
    args: list[str]  # positional arguments after the verb
    flags: dict[str, list[str]]
    manifests: list[dict] = field(default_factory=list)
    piped: bool = False  # its stdin is the output of the command before it in a pipeline
    pipeline: str = ""  # the words of the whole pipeline it is part of

    def targets(self) -> list[tuple[str, str | None, str | None]]:
        """Objects it addresses: named on the command line or in the manifests it carries."""
        out = list(self.objects)
        for obj in self.manifests:
            kind = as_text(obj.get("kind"))
            if kind:
                resource = plural_of(kind)
                scoped = resource not in CLUSTER_SCOPED
                namespace = object_namespace(obj, self.namespace or None) if scoped else None
                out.append((resource, namespace, as_text(as_dict(obj.get("metadata")).get("name"))))
        return out

    def key(self) -> str:
        """Verb and object arguments, flags left out: the 'same target' of two calls."""
        parts = [self.verb, *([self.sub] if self.sub else []), *self.args]
        return " ".join(parts)

    def flag(self, name: str) -> str | None:
        """The value of flag `name` (kubectl keeps the last one given), or None."""
        return _flag(self.flags, name)

    def bool_flag(self, name: str) -> bool:
        """Whether boolean flag `name` is on (`--x`, `--x=true`; not `--x=false`)."""
        return _bool_flag(self.flags, name)

    def flag_values(self, name: str) -> list[str]:
        """Every comma-separated value of every `--name` given (`--verb=get,list --verb=*`)."""
        return [
            v.strip() for value in self.flags.get(name, []) for v in value.split(",") if v.strip()
        ]


@dataclass
class Command:
    """A simple command other than kubectl, with what its text says it does to the cluster:
    helm and curl-to-the-API writes; anything else is a read in no namespace."""

    argv: list[str]
    operation: str = "read"
    namespaces: list[str] = field(default_factory=list)


@dataclass
class Script:
    """One command text (the line itself, a `$(...)`, a `bash -c` script) in the order the
    shell would meet its parts: the substitutions first, then each simple command, with
    scripts nested where `bash -c` or `eval` runs them. Shell keywords, `bash -c` and `eval`
    themselves are left out."""

    parts: list["Script | KubectlCall | Command"] = field(default_factory=list)


def parse_command_line(
    command: str,
    manifests: str | None = None,
    files: dict[str, str] | None = None,
    *,
    namespace: str | None = None,
) -> Script:
    """Read one shell command line into its kubectl calls and other commands.

    `manifests`: the manifest text a `-f` argument of a writing call refers to when the line
    does not carry it (a heredoc or a known file wins); it is used once. `files`: path ->
    content for files the line names (`-f path`, `< path`, `cat path |`); a directory path
    takes every file under it. `namespace`: the kubeconfig's default namespace, for kubectl
    calls without -n."""
    return _parse(command, _Context(manifests, dict(files or {}), namespace))


class _Context:
    """What reading one command line knows besides the text, shared by its nested scripts."""

    def __init__(self, manifests: str | None, files: dict[str, str], namespace: str | None):
        self.manifests = manifests
        self.files = files  # grows with the files the line writes
        self.namespace = namespace
        self.manifests_used = False
        self.heredocs: list[str] = []  # every body cut out so far, so placeholders stay unique


@dataclass
class _Simple:
    """One simple command of a pipeline."""

    argv: list[str]
    stdin: str | None = None  # text known to reach its stdin
    piped: bool = False  # stdin comes from the previous command of the pipeline
    stdout_path: str | None = None  # file its stdout is redirected to
    pipeline: int = 0  # index of its pipeline in the command line


def _parse(text: str, ctx: _Context) -> Script:
    script = Script()
    text = _extract_heredocs(text, ctx.heredocs)
    text = text.replace("\\\n", " ")
    text, substitutions = _extract_substitutions(text)
    # before the split: a substitution may write a file that a `<` of this text reads
    script.parts.extend(_parse(inner, ctx) for inner in substitutions)
    simples = _split(text, ctx.heredocs, ctx.files)
    pipelines: dict[int, str] = {}
    for simple in simples:
        # put substitutions back as written, so names and keys read like the command line
        simple.argv = [_restore(arg, substitutions) for arg in simple.argv]
        pipelines[simple.pipeline] = (
            pipelines.get(simple.pipeline, "") + " " + " ".join(simple.argv)
        )
    previous: _Simple | None = None
    for simple in simples:
        if simple.piped and simple.stdin is None and previous is not None:
            simple.stdin = _stdout_of(previous, ctx.files)
        previous = simple
        argv = _unwrap(simple.argv)
        if not argv or argv[0] in _SHELL_ENDS:
            continue
        name = os.path.basename(argv[0])
        _remember_written_file(simple, argv, ctx)
        if name in _SHELLS and "-c" in argv[1:]:
            script_at = argv.index("-c") + 1
            if script_at < len(argv):
                script.parts.append(_parse(argv[script_at], ctx))
        elif name == "eval":
            script.parts.append(_parse(" ".join(argv[1:]), ctx))
        elif name in KUBECTL_NAMES:
            script.parts.append(_kubectl(simple, argv, ctx, pipelines[simple.pipeline]))
        else:
            script.parts.append(_other_command(argv))
    return script


# ---------------------------------------------------------------------------------------------
# shell text

# Called at each position outside escapes and comments with the quote it sits in ("", "'" or
# '"'): the text that replaces a construct starting there and where to go on, or None.
_Cutter = Callable[[int, str], tuple[str, int] | None]


def _scan(text: str, cut: _Cutter, keep_comments: bool) -> str:
    """Copy `text`, letting `cut` replace the constructs it recognizes. Escapes, quotes and
    comments are followed as bash does, so a `<<` or `$(` in single quotes or in a comment is
    never taken for one."""
    out: list[str] = []
    i, quote = 0, ""
    while i < len(text):
        ch = text[i]
        if ch == "\\" and quote != "'":
            out.append(text[i : i + 2])
            i += 2
            continue
        if ch in "'\"" and quote in ("", ch):
            quote = "" if quote else ch
        elif ch == "#" and not quote and (i == 0 or text[i - 1] in _COMMENT_AFTER):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            if keep_comments:
                out.append(text[i:end])
            i = end
            continue
        elif (replaced := cut(i, quote)) is not None:
            replacement, i = replaced
            out.append(replacement)
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _extract_heredocs(text: str, bodies: list[str]) -> str:
    """Replace each heredoc operator outside quotes by a placeholder and cut its body out,
    appending it to `bodies`. Comments are kept: until backslash-newlines are joined, their
    extent is not final, and the substitution pass drops them."""
    pending: list[tuple[str, bool]] = []  # (delimiter, strip leading tabs)

    def cut(i: int, quote: str) -> tuple[str, int] | None:
        if quote:
            return None
        if match := _HEREDOC.match(text, i):
            pending.append((match.group(3), match.group(1) == "-"))
            return " " + _HEREDOC_MARK.format(len(bodies) + len(pending) - 1) + " ", match.end()
        if text[i] != "\n" or not pending:
            return None
        i += 1
        for delimiter, strip_tabs in pending:
            body: list[str] = []
            while i < len(text):
                end = text.find("\n", i)
                end = len(text) if end < 0 else end
                line = text[i:end].lstrip("\t") if strip_tabs else text[i:end]
                i = end + 1
                if line.strip() == delimiter:
                    break
                body.append(line)
            bodies.append("\n".join(body) + "\n")
        pending.clear()
        return "\n", i

    out = _scan(text, cut, keep_comments=True)
    bodies.extend("" for _ in pending)  # delimited by end of text: bash warns, body is empty
    return out


def _extract_substitutions(text: str) -> tuple[str, list[str]]:
    """Replace $(...) and `...` (outside single quotes) by placeholders and drop comments;
    return the inner command texts."""
    inner: list[str] = []

    def cut(i: int, quote: str) -> tuple[str, int] | None:
        if quote == "'":
            return None
        if text.startswith("$(", i) and not text.startswith("$((", i):
            depth, j = 1, i + 2
            while j < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            inner.append(text[i + 2 : j - 1])
            return _SUBST_MARK.format(len(inner) - 1), j
        if text[i] == "`":
            j = text.find("`", i + 1)
            j = len(text) if j < 0 else j
            inner.append(text[i + 1 : j])
            return _SUBST_MARK.format(len(inner) - 1), j + 1
        return None

    return _scan(text, cut, keep_comments=False), inner


def _restore(arg: str, substitutions: list[str]) -> str:
    def back(match: re.Match[str]) -> str:
        index = int(match[1])
        return f"$({substitutions[index]})" if index < len(substitutions) else match[0]

    return re.sub(r"__KP_SUBST_(\d+)__", back, arg)


def _tokens(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=_PUNCTUATION)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""  # comments are stripped beforehand, only where bash sees them
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: a rough split beats giving up
        return text.replace("\n", " ; ").split()


def _is_operator(token: str) -> bool:
    return bool(token) and all(c in _PUNCTUATION for c in token)


def _split(text: str, heredocs: list[str], files: dict[str, str]) -> list[_Simple]:
    """Simple commands of a command line (heredoc markers already replaced)."""
    simples: list[_Simple] = []
    current = _Simple([])
    pipeline = 0
    tokens = _tokens(_FD_BEFORE_REDIRECT.sub("", text))
    i = 0

    def close(piped_next: bool) -> None:
        nonlocal current, pipeline
        if current.argv:
            current.pipeline = pipeline
            simples.append(current)
        if not piped_next:
            pipeline += 1
        current = _Simple([], piped=piped_next)

    while i < len(tokens):
        token = tokens[i]
        i += 1
        if not _is_operator(token):
            heredoc = re.fullmatch(r"__KP_HEREDOC_(\d+)__", token)
            if heredoc and int(heredoc.group(1)) < len(heredocs):
                current.stdin = heredocs[int(heredoc.group(1))]
            else:
                current.argv.append(token)
            continue
        op = token.replace("\n", "")
        if op in ("|", "|&"):
            close(piped_next=True)
        elif op and set(op) <= set("<>&") and ("<" in op or ">" in op):
            target = tokens[i] if i < len(tokens) and not _is_operator(tokens[i]) else None
            if target is not None:
                i += 1
                if op == "<":
                    current.stdin = _lookup(files, target)
                elif op in (">", ">>", ">|"):
                    current.stdout_path = target
        elif op == "(":
            continue
        else:
            close(piped_next=False)
    close(piped_next=False)
    return simples


def _lookup(files: dict[str, str], path: str) -> str | None:
    if path in files:
        return files[path]
    norm = os.path.normpath(path)
    for name, content in files.items():
        if os.path.normpath(name) == norm:
            return content
    inside = [c for n, c in sorted(files.items()) if os.path.normpath(n).startswith(norm + "/")]
    return "\n---\n".join(inside) if inside else None


def _unwrap(argv: list[str]) -> list[str]:
    """Strip assignments, shell keywords and wrappers (sudo, env, timeout, xargs, ...)."""
    argv = list(argv)
    while argv:
        head = argv[0]
        if head in _SHELL_KEYWORDS or _ASSIGNMENT.match(head):
            argv.pop(0)
            continue
        if os.path.basename(head) in _WRAPPERS:
            name = os.path.basename(argv.pop(0))
            value_opts = _WRAPPER_VALUE_OPTS.get(name, set())
            while argv and (argv[0].startswith("-") or _ASSIGNMENT.match(argv[0])):
                opt = argv.pop(0)
                if opt in value_opts and argv:
                    argv.pop(0)
            if name == "timeout" and argv and re.match(r"^\d", argv[0]):
                argv.pop(0)  # the duration
            continue
        break
    return argv


def _stdout_of(simple: _Simple, files: dict[str, str]) -> str | None:
    """What a simple command writes to stdout, when that is plain from its text."""
    argv = _unwrap(simple.argv)
    if not argv:
        return None
    name = os.path.basename(argv[0])
    if name == "cat":
        if len(argv) == 1 or argv[1:] == ["-"]:
            return simple.stdin
        parts = [_lookup(files, a) for a in argv[1:] if not a.startswith("-")]
        return None if None in parts else "\n---\n".join(p for p in parts if p is not None)
    if name == "echo":
        return " ".join(a for a in argv[1:] if a not in ("-n", "-e")) + "\n"
    if name == "printf" and len(argv) == 2:
        return argv[1].replace("\\n", "\n")
    return None


def _remember_written_file(simple: _Simple, argv: list[str], ctx: _Context) -> None:
    """`cat > f.yaml <<EOF` and `... | tee f.yaml` write a file a later `-f f.yaml` reads."""
    if simple.stdout_path:
        content = _stdout_of(simple, ctx.files)
        if content is not None:
            ctx.files[simple.stdout_path] = content
    if os.path.basename(argv[0]) == "tee" and simple.stdin is not None:
        for path in argv[1:]:
            if not path.startswith("-"):
                ctx.files[path] = simple.stdin


# ---------------------------------------------------------------------------------------------
# kubectl and other commands


def _canonical_resource(token: str) -> str:
    base = token.lower().split(".", 1)[0]
    return RESOURCE_ALIASES.get(base, base)


def _parse_flags(argv: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    positionals: list[str] = []
    flags: dict[str, list[str]] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "--":
            flags.setdefault("--", []).extend(argv[i:])
            break
        if token.startswith("--") and len(token) > 2:
            name, eq, value = token[2:].partition("=")
            if not eq and name in VALUE_FLAGS and i < len(argv):
                value, i = argv[i], i + 1
            flags.setdefault(name, []).append(value if (eq or name in VALUE_FLAGS) else "true")
        elif token.startswith("-") and len(token) > 1 and not re.match(r"^-\d", token):
            letter, rest = token[1], token[2:].removeprefix("=")
            name = SHORT_FLAGS.get(letter, letter)
            verb = positionals[0] if positionals else ""
            takes_value = name in VALUE_FLAGS and letter not in BOOLEAN_SHORTS.get(verb, "")
            if takes_value:
                if not rest and i < len(argv):
                    rest, i = argv[i], i + 1
                flags.setdefault(name, []).append(rest)
            else:  # a bundle of boolean letters such as -it
                for ch in token[1:]:
                    flags.setdefault(SHORT_FLAGS.get(ch, ch), []).append("true")
        else:
            positionals.append(token)
    return positionals, flags


def _flag(flags: dict[str, list[str]], name: str) -> str | None:
    values = flags.get(name)
    return values[-1] if values else None


def _bool_flag(flags: dict[str, list[str]], name: str) -> bool:
    value = _flag(flags, name)
    return value is not None and value.lower() not in ("false", "0")


def _operation_of(verb: str, sub: str | None, args: list[str], flags: dict) -> str:
    dry_run = _flag(flags, "dry-run")
    if dry_run is not None and dry_run.lower() != "none":
        return "read"
    if verb in ("replace", "apply") and _bool_flag(flags, "force"):
        return "destroy"  # --force deletes and re-creates
    if verb == "rollout":
        return "read" if sub in ("status", "history") else "mutate"
    if verb == "auth":
        return "mutate" if sub == "reconcile" else "read"
    if verb == "apply" and sub in ("view-last-applied",):
        return "read"
    if verb == "cp":
        return "mutate" if args and ":" in args[-1] else "read"
    if not verb or verb in READ_VERBS:
        return "read"
    if verb in DESTROY_VERBS:
        return "destroy"
    return "mutate"  # MUTATE_VERBS and anything unknown (plugins): assume it writes


def _objects_of(
    verb: str, sub: str | None, args: list[str], namespace: str
) -> list[tuple[str, str | None, str | None]]:
    def obj(resource: str, name: str | None) -> tuple[str, str | None, str | None]:
        if resource == "namespaces":
            return (resource, None, name)
        return (resource, None if resource in CLUSTER_SCOPED else namespace, name)

    if verb == "create" and sub:
        rest = args[1:] if sub != "secret" else args[2:]
        return [obj(_canonical_resource(sub), rest[0] if rest else None)]
    if verb in NAME_FIRST_VERBS:
        out = []
        for arg in args if verb in ("cordon", "uncordon", "drain") else args[:1]:
            resource, slash, name = arg.partition("/")
            if slash:
                out.append(obj(_canonical_resource(resource), name))
            else:
                out.append(obj(NAME_FIRST_VERBS[verb], arg))
        return out
    if verb in ("label", "annotate", "set", "taint"):
        # label/annotation/env/image/taint specs are not object names
        args = [a for a in args if "=" not in a and ":" not in a and not a.endswith("-")]
    if not args or verb not in MUTATE_VERBS | DESTROY_VERBS | READ_VERBS:
        return []
    if "/" in args[0]:
        out = []
        for arg in args:
            resource, _, name = arg.partition("/")
            out.append(obj(_canonical_resource(resource), name or None))
        return out
    types = [_canonical_resource(t) for t in args[0].split(",") if t]
    names = args[1:] or [None]
    return [obj(t, n) for t in types for n in names]


def _manifest_text(path: str, simple: _Simple, ctx: _Context, writes: bool) -> str | None:
    if path == "-":
        if simple.stdin is not None:
            return simple.stdin
    else:
        content = _lookup(ctx.files, path)
        if content is not None:
            return content
    # the manifests given separately are what the agent proposed to write, not read
    if writes and ctx.manifests is not None and not ctx.manifests_used:
        ctx.manifests_used = True
        return ctx.manifests
    return None


def _kubectl(simple: _Simple, argv: list[str], ctx: _Context, pipeline: str) -> KubectlCall:
    positionals, flags = _parse_flags(argv[1:])
    verb = positionals[0] if positionals else ""
    args = positionals[1:]
    sub = None
    if verb in SUBCOMMAND_VERBS and args:
        sub = args[0]
        if verb != "create":  # create keeps [kind, name, ...] until the objects are read
            args = args[1:]
    elif verb == "apply" and args and args[0].endswith("-last-applied"):
        sub, args = args[0], args[1:]
    operation = _operation_of(verb, sub, args, flags)
    namespace = _flag(flags, "namespace") or ctx.namespace or ""
    all_ns = _bool_flag(flags, "all-namespaces")
    objects = _objects_of(verb, sub, args, namespace)
    if verb == "create" and sub:
        args = args[1:]
    manifests: list[dict] = []
    for path in flags.get("filename", []):
        text = _manifest_text(path, simple, ctx, operation != "read")
        if text is not None:
            manifests.extend(load_objects(text))
    spaces = {namespace} if _flag(flags, "namespace") or not (objects or manifests) else set()
    for resource, ns, name in objects:
        spaces.add((name or "") if resource == "namespaces" else (ns or ""))
    for obj in manifests:
        spaces.add(object_namespace(obj, namespace) or "")
    return KubectlCall(
        verb,
        sub,
        operation,
        namespace,
        sorted(spaces),
        all_ns,
        objects,
        args,
        flags,
        manifests,
        piped=simple.piped,
        pipeline=pipeline,
    )


def _other_command(argv: list[str]) -> Command:
    """helm and curl-to-the-API writes; every other command is a read."""
    name = os.path.basename(argv[0])
    if name == "helm":
        positionals, flags = _parse_flags(argv[1:])
        verb = positionals[0] if positionals else ""
        namespace = _flag(flags, "namespace") or ""
        if verb in ("install", "upgrade", "rollback"):
            return Command(argv, "mutate", [namespace])
        if verb in ("uninstall", "delete", "del", "un"):
            return Command(argv, "destroy", [namespace])
    elif name == "curl":
        method = ""
        for i, arg in enumerate(argv):
            if arg in ("-X", "--request") and i + 1 < len(argv):
                method = argv[i + 1].upper()
            elif arg.startswith(("-X", "--request=")) and len(arg) > 2:
                method = arg.removeprefix("--request=").removeprefix("-X").upper()
        urls = [a for a in argv if re.search(r"/apis?/", a)]
        if urls and method in ("POST", "PUT", "PATCH", "DELETE"):
            match = re.search(r"/namespaces/([^/?]+)", urls[0])
            operation = "destroy" if method == "DELETE" else "mutate"
            return Command(argv, operation, [match.group(1) if match else ""])
    return Command(argv)
