"""The reference tables of docs/verify.md, made from the registry's docstrings so the docs
say what the code does: `python -m kubeproof.verify.reference --write` updates them, and a
test fails when they are stale."""

import inspect
import re
import sys
from pathlib import Path

from kubeproof.verify.registry import Entry, load_builtins

DOC = Path(__file__).resolve().parents[3] / "docs" / "verify.md"
_SIGNATURE = re.compile(r"^`(\w+\(.*?\))`:\s*")


def _signature(entry: Entry) -> tuple[str, str]:
    """(the call as a verifier writes it, the description)."""
    doc = inspect.cleandoc(entry.fn.__doc__ or "").split("\n\n")[0].replace("\n", " ")
    found = _SIGNATURE.match(doc)
    if found:
        return found.group(1), doc[found.end() :]
    params = list(inspect.signature(entry.fn).parameters.values())[1:]  # the Context
    shown = []
    for p in params:
        if p.default is inspect.Parameter.empty:
            shown.append(p.name)
        elif p.default is not None and not isinstance(p.default, str | int | float | bool):
            shown.append(f"{p.name}=…")
        else:
            shown.append(f"{p.name}={p.default!r}")
    return f"{entry.name}({', '.join(shown)})", doc


def table(kind: str) -> str:
    rows = [
        "| call | " + ("passes when" if kind == "check" else "holds when") + " |",
        "| --- | --- |",
    ]
    for name in sorted(load_builtins()):
        entry = load_builtins()[name]
        if entry.kind != kind:
            continue
        call, doc = _signature(entry)
        needs = " *(after the agent's turn: compares with the baseline)*" if entry.baseline else ""
        cell = doc.replace("|", "\\|")
        rows.append(f"| `v.{call}` | {cell}{needs} |")
    return "\n".join(rows) + "\n"


def render(text: str) -> str:
    for kind in ("check", "contract"):
        begin, end = f"<!-- BEGIN {kind}s (generated) -->\n", f"<!-- END {kind}s -->"
        if begin not in text or end not in text:
            raise ValueError(f"{DOC}: no {begin.strip()} … {end} markers")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = head + begin + table(kind) + end + tail
    return text


def main(argv: list[str]) -> int:
    current = DOC.read_text()
    fresh = render(current)
    if "--write" in argv:
        DOC.write_text(fresh)
        return 0
    if fresh != current:
        print(f"{DOC} is stale: run python -m kubeproof.verify.reference --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
