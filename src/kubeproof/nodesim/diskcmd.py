"""The busybox commands that fill a disk — `dd if=/dev/zero of=FILE bs=1M count=N` and
`fallocate -l SIZE FILE` — as the container's own script (process.py) and `kubectl exec`
(shell.py) run them: how many bytes land in which file, and what dd prints."""

# busybox coreutils/dd.c dd_suffixes
_DD_SUFFIXES = {
    "c": 1, "w": 2, "b": 512, "kB": 1000, "kD": 1000, "k": 1024, "K": 1024,
    "MB": 1000**2, "MD": 1000**2, "M": 2**20, "GB": 1000**3, "GD": 1000**3, "G": 2**30,
}  # fmt: skip
# busybox libbb kmg_i_suffixes (fallocate -l)
_KMG = {"k": 2**10, "K": 2**10, "m": 2**20, "M": 2**20, "g": 2**30, "G": 2**30}
SOURCES = ("/dev/zero", "/dev/urandom", "/dev/random")


def _number(text: str, suffixes: dict[str, int]) -> int | None:
    for suffix in sorted(suffixes, key=len, reverse=True):
        if text.endswith(suffix) and text[: -len(suffix)].isdigit():
            return int(text[: -len(suffix)]) * suffixes[suffix]
    return int(text) if text.isdigit() else None


def parse(words: list[str]) -> tuple[str, int, int] | None:
    """(file, bytes, dd records) a `dd` or `fallocate` command writes; None when it writes
    no file this model knows the size of (dd to stdout, or from a file, or without count)."""
    name = words[0].rsplit("/", 1)[-1] if words else ""
    if name == "dd":
        args = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        size = _number(args.get("bs", "512"), _DD_SUFFIXES)
        count = _number(args.get("count", ""), _DD_SUFFIXES)
        if "of" not in args or args.get("if") not in SOURCES or size is None or count is None:
            return None
        return args["of"], size * count, count
    if name == "fallocate":
        files, size, rest = [], None, iter(words[1:])
        for word in rest:
            if word in ("-l", "-o"):
                value = next(rest, "")
                size = _number(value, _KMG) if word == "-l" else size
            elif not word.startswith("-"):
                files.append(word)
        return (files[-1], size, 0) if size is not None and files else None
    return None


def _human(n: float) -> str:
    """busybox make_human_readable_str(n, 1, 0): one decimal below 10 units and a unit."""
    for unit in ("", "K", "M", "G", "T"):
        if n < 1024 or unit == "T":
            return f"{n:.1f}{unit}" if unit else f"{int(n)}"
        n /= 1024
    return ""


def dd_report(records: int, written: int) -> str:
    """What busybox dd prints on stderr when done (coreutils/dd.c dd_output_status); the
    time is a nominal 1 GiB/s."""
    seconds = max(written / 2**30, 1e-6)
    out = f"{records}+0 records in\n{records}+0 records out\n"
    return out + (
        f"{written} bytes ({_human(written)}B) copied, {seconds:f} seconds, "
        f"{_human(written / seconds)}B/s\n"
    )
