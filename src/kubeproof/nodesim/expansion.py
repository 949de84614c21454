"""`$(VAR)` expansion as the kubelet applies it to env values, command and args: a port of
`third_party/forked/golang/expansion/expand.go` (k8s.io/kubernetes v1.36.3).

An unknown `$(X)` stays as written, `$$` is an escaped `$`, an unclosed `$(` stays."""

from collections.abc import Mapping


def expand(text: str, *contexts: Mapping[str, str]) -> str:
    """`Expand(input, MappingFuncFor(contexts...))` (expand.go:23-34, 39-74): the first
    context holding a name wins; a name none holds is written back as `$(name)`."""
    out: list[str] = []
    checkpoint = 0
    cursor = 0
    while cursor < len(text):
        if text[cursor] == "$" and cursor + 1 < len(text):
            out.append(text[checkpoint:cursor])
            read, is_var, advance = _read_name(text[cursor + 1 :])
            out.append(_lookup(read, contexts) if is_var else read)
            cursor += advance
            checkpoint = cursor + 1
        cursor += 1
    return "".join(out) + text[checkpoint:]


def _lookup(name: str, contexts: tuple[Mapping[str, str], ...]) -> str:
    for context in contexts:
        if name in context:
            return context[name]
    return f"$({name})"  # syntaxWrap, expand.go:15-17


def _read_name(rest: str) -> tuple[str, bool, int]:
    """tryReadVariableName (expand.go:82-105): (text read, is a name, characters consumed)."""
    first = rest[0]
    if first == "$":  # escaped operator
        return "$", False, 1
    if first == "(":
        close = rest.find(")", 1)
        if close != -1:
            return rest[1:close], True, close + 1
        return "$(", False, 1  # incomplete reference
    return "$" + first, False, 1


def command_and_args(container: dict, env: Mapping[str, str]) -> dict:
    """The container spec with command and args expanded against its final environment
    (`ExpandContainerCommandAndArgs`, pkg/kubelet/container/helpers.go:265-281)."""
    out = dict(container)
    for key in ("command", "args"):
        if container.get(key):
            out[key] = [expand(word, env) for word in container[key]]
    return out
