"""Print the `tags:` rules of a shipped image (src/kubeproof/nodesim/images.yaml) from the
history of docker-library/official-images: every tag `library/NAME` ever listed, written
as brace patterns and checked to expand to exactly that set.

    .venv/bin/python scripts/image-tags.py PATH/TO/official-images nginx
"""

import re
import subprocess
import sys
from collections import defaultdict

from kubeproof.nodesim.catalog import expand

_VERSION = re.compile(r"\d+(?:\.\d+)*")
_OLD_FORMAT = re.compile(r"([A-Za-z0-9_.-]+):\s*(?:git|https?)://")  # before RFC 2822 files
_FIELDS = {"GitRepo", "GitFetch", "GitCommit", "Maintainers", "Directory", "Architectures"}


def published(repo: str, name: str) -> set[str]:
    path = f"library/{name}"
    log = ["git", "-C", repo, "log", "--format=%H", "--", path]
    tags: set[str] = set()
    for commit in subprocess.run(log, capture_output=True, text=True, check=True).stdout.split():
        show = ["git", "-C", repo, "show", f"{commit}:{path}"]
        for line in subprocess.run(show, capture_output=True, text=True).stdout.splitlines():
            line = line.strip()
            if line.startswith(("Tags:", "SharedTags:")):
                tags.update(t.strip() for t in line.split(":", 1)[1].split(",") if t.strip())
            elif (old := _OLD_FORMAT.match(line)) and old[1] not in _FIELDS:
                tags.add(old[1])
    return tags


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _ranges(prefix: str, numbers: list[int]) -> list[str]:
    numbers, out = sorted(numbers), []
    start = end = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == end + 1:
            end = n
            continue
        out.append(prefix + (str(start) if start == end else f"{{{start}..{end}}}"))
        if n is not None:
            start = end = n
    return out


def _versions(versions: set[str]) -> list[str]:
    """1.27.0 … 1.27.5 → 1.27.{0..5}."""
    by_prefix: dict[str, list[int]] = defaultdict(list)
    for v in versions:
        head, _, last = v.rpartition(".")
        by_prefix[head + "." if head else ""].append(int(last))
    return [t for p in sorted(by_prefix, key=lambda p: _key(p[:-1] or "0")) for t in
            _ranges(p, by_prefix[p])]  # fmt: skip


def _alt(items: list[str]) -> str:
    return items[0] if len(items) == 1 else "{" + ",".join(items) + "}"


def patterns(tags: set[str]) -> list[str]:
    variants: dict[str, set[str]] = defaultdict(set)  # "-alpine" → versions
    named: dict[str, set[str]] = defaultdict(set)  # "stable" → {"", "-alpine"}
    for tag in tags:
        head, dash, rest = tag.partition("-")
        (variants[dash + rest] if _VERSION.fullmatch(head) else named[head]).add(
            head if _VERSION.fullmatch(head) else dash + rest
        )
    by_token: dict[str, set[str]] = defaultdict(set)
    for variant, versions in variants.items():
        for token in _versions(versions):
            by_token[token].add(variant)
    grouped: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for token, variant_set in by_token.items():
        grouped[tuple(sorted(variant_set))].append(token)
    out = [_alt(tokens) + _alt(list(v)) for v, tokens in grouped.items()]
    names: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for head, suffixes in named.items():
        names[tuple(sorted(suffixes))].append(head)
    out += [_alt(sorted(heads)) + _alt(list(s)) for s, heads in names.items()]
    return sorted(out, key=lambda p: (not p.lstrip("{")[:1].isdigit(), len(p), p))


def main() -> None:
    repo, name = sys.argv[1:3]
    tags = published(repo, name)
    rules = patterns(tags)
    assert {t for rule in rules for t in expand(rule)} == tags, "patterns do not round-trip"
    print("    tags:")
    for rule in rules:
        print(f'      - "{rule}"')


if __name__ == "__main__":
    main()
