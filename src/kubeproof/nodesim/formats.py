"""Config files a behaviour model parses at start (`requires: [{file: …, format: …}]`): a
file that is there but does not parse stops the process with the parser's own message, and
start-up lines may quote the file (`{sha512:/path}`: the SHA-512 CoreDNS logs for it). A
format may also be re-read while the process runs (a Corefile with `reload`)."""

import re
import time

from kubeproof.netsim import corefile
from kubeproof.nodesim.corefilereload import CorefileReload
from kubeproof.nodesim.timing import Timing

# format name -> check(text, path): None when it parses, else the line the program exits with
FORMATS = {"corefile": corefile.check}
_SHA512 = re.compile(r"\{sha512:([^}]+)\}")


def error(need, files: dict[str, str]) -> str | None:
    """The parse error of the required file, None when it parses (or is not there: a
    missing file is the requirement's own message)."""
    if not need.format or not need.file or need.file not in files:
        return None
    return FORMATS[need.format](files[need.file], need.file)


def render(lines: list[str], files: dict[str, str]) -> list[str]:
    return [_SHA512.sub(lambda m: corefile.sha512(files.get(m[1], "")), line) for line in lines]


def stamp(line: str, at: float) -> str:
    """`{rfc3339}` in a log line: the time it is written, as Go's time.RFC3339 prints a UTC
    time (`2006-01-02T15:04:05Z`), for programs whose log writer prefixes it (zerolog's
    ConsoleWriter, Traefik)."""
    if "{rfc3339}" not in line:
        return line
    return line.replace("{rfc3339}", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at)))


def reloader(model, files, at: float, timing: Timing, seed: str) -> CorefileReload | None:
    """The live re-reading of the model's Corefile, if it requires one (CoreDNS)."""
    for need in model.requires if model is not None else []:
        if need.format == "corefile" and need.file:
            text = files.read_at(need.file, at) if hasattr(files, "read_at") else None
            if text is not None:
                return CorefileReload(need.file, text, at, timing, seed)
    return None
