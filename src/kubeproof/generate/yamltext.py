"""Block-style YAML for JSON-like data (dicts, lists, strings, numbers, booleans, None), the
way people write manifests. PyYAML's representer is most of the generator's time; this one
is several times faster and its output loads back to the same data (tested over every
reference and mutant). A string is plain only when no YAML 1.1 resolver could read it as
anything else; otherwise it is a JSON string, which is a valid YAML double-quoted scalar."""

import json
import re
from typing import Any

_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9._/@-]*$")
# words YAML 1.1 reads as booleans or null, whatever their case
_RESERVED = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text, ensure_ascii=False)


def _lines(value: Any, indent: str, out: list[str]) -> None:
    """`value` (a non-empty dict or list) as lines indented by `indent`."""
    if isinstance(value, dict):
        for key, item in value.items():
            head = f"{indent}{_scalar(key)}:"
            if isinstance(item, dict | list) and item:
                out.append(head)
                # a list under a key sits at the key's indentation, as kubectl prints it
                _lines(item, indent if isinstance(item, list) else indent + "  ", out)
            else:
                out.append(f"{head} {_inline(item)}")
        return
    for item in value:
        if isinstance(item, dict | list) and item:
            nested: list[str] = []
            _lines(item, indent + "  ", nested)
            out.append(f"{indent}- {nested[0][len(indent) + 2 :]}")
            out.extend(nested[1:])
        else:
            out.append(f"{indent}- {_inline(item)}")


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def dump_all(documents: list[Any]) -> str:
    """The documents separated by `---`."""
    parts = []
    for doc in documents:
        lines: list[str] = []
        if isinstance(doc, dict | list) and doc:
            _lines(doc, "", lines)
        else:
            lines.append(_inline(doc))
        parts.append("\n".join(lines) + "\n")
    return "---\n".join(parts)
