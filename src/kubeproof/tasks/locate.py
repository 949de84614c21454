"""Line numbers for problems found in TOML files, so every error reads
`path:line: message`."""

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"]+)\s*\]\]?")
_KEY = re.compile(r"^\s*\"?([A-Za-z0-9_\-]+)\"?\s*=")


def toml_line(text: str, loc: tuple) -> int:
    """The line of the key at `loc` (a pydantic error location such as
    `("kubeproof", "permissions", 0, "verbs")`), else of its table's header, else 1."""
    *path, last = loc or ("",)
    table = [str(p) for p in path if not isinstance(p, int)]
    index = next((p for p in path if isinstance(p, int)), 0)
    key = None if isinstance(last, int) else str(last)
    current: list[str] = []
    seen = -1  # occurrences of the wanted [[array table]] so far
    header_line = 1
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            current = header.group(2).replace('"', "").split(".")
            if current == table:
                seen += 1
                if header.group(1) == "[" or seen == index:
                    header_line = number
            continue
        match = _KEY.match(line)
        in_place = current == table and seen in (-1, index)
        if match and key and in_place and match.group(1) == key:
            return number
    return header_line


def toml_error_line(message: str) -> int:
    """tomllib reports `(at line N, column M)`."""
    match = re.search(r"line (\d+)", message)
    return int(match.group(1)) if match else 1
