"""Reading and writing what an agent can write, as the hostile input it is.

Everything below a directory the sandbox binds writable (the scratch home, the protocol
request directory, a CLI agent's call log) is the agent's: it may be a symlink to a host file,
a FIFO that never answers, a device, a directory where a file belongs, 100 MB, or not UTF-8.
The harness touches those places only through this module:

- every path is walked from a directory file descriptor, one component at a time, with
  `openat(O_NOFOLLOW)`: a symlink anywhere in the path is refused, never followed;
- a file is opened only after `lstat` says it is a regular file, with `O_NONBLOCK` (a FIFO
  swapped in between cannot block the open) and checked again with `fstat` on the descriptor;
- reads stop at a size limit; text is strict UTF-8; JSON has no duplicate keys, NaN or
  Infinity and a bounded depth; YAML is `safe_load` with a bounded size, depth and alias
  expansion (a billion-laughs document is refused as kubectl refuses it);
- writes go to a fresh name (`O_CREAT|O_EXCL|O_NOFOLLOW`) renamed over the target, so a
  symlink planted at the target is replaced, never written through.

What the agent made wrong raises `HostileInput`: the agent's failure, never the harness's.
No kubeproof imports beyond errors: anything may use it.
"""

import errno
import json
import os
import secrets
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import yaml

from kubeproof.errors import KubeproofError

FILE_LIMIT = 1024 * 1024  # bytes: the default for a file the harness reads whole
LIST_LIMIT = 10_000  # entries the harness looks at in one agent-writable directory
JSON_DEPTH = 64
YAML_LIMIT = 4 * 1024 * 1024  # bytes of YAML text
YAML_DEPTH = 64
YAML_NODES = 100_000  # nodes after alias expansion (go-yaml refuses excessive aliasing too)

# errors of the machine, not of what the agent wrote
_HARNESS_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EIO})
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class HostileInput(KubeproofError):
    """Agent-written input the harness refuses. `planted` is true for what only an attack
    makes (a symlink, FIFO, device or directory where a file belongs); false for content
    that is merely wrong (too large, not UTF-8, not parseable)."""

    def __init__(self, message: str, *, planted: bool = False):
        super().__init__(message)
        self.planted = planted


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISLNK, "a symlink"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _refuse(what: str, exc: OSError) -> HostileInput:
    if exc.errno in _HARNESS_ERRNOS:
        raise exc
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EISDIR):
        return HostileInput(f"{what}: a symlink or a non-directory in its path", planted=True)
    return HostileInput(f"{what}: {os.strerror(exc.errno or 0) or exc}", planted=True)


def _parts(relative: str) -> list[str]:
    parts = [p for p in str(relative).split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"not a relative path below a directory: {relative!r}")
    return parts


@contextmanager
def _root(root: Path | int) -> Iterator[int]:
    """A descriptor for the trusted directory `root` (harness-made; only what is below it is
    the agent's). A descriptor passed in is used as is."""
    if isinstance(root, int):
        yield root
        return
    fd = os.open(root, _DIR_FLAGS)
    try:
        yield fd
    finally:
        os.close(fd)


@contextmanager
def _parent(root: Path | int, relative: str, create: bool = False) -> Iterator[tuple[int, str]]:
    """(descriptor of the directory holding the last component, that component's name),
    walking every component below `root` without following symlinks."""
    parts = _parts(relative)
    with _root(root) as base:
        opened: list[int] = []
        try:
            fd = base
            for i, name in enumerate(parts[:-1]):
                where = "/".join(parts[: i + 1])
                try:
                    fd = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    try:
                        os.mkdir(name, 0o755, dir_fd=fd)
                    except FileExistsError:
                        pass
                    except OSError as exc:
                        raise _refuse(where, exc) from None
                    fd = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise _refuse(where, exc) from None
                opened.append(fd)
            yield fd, parts[-1]
        finally:
            for fd in opened:
                os.close(fd)


@contextmanager
def directory(root: Path | int, relative: str = ".", *, what: str | None = None) -> Iterator[int]:
    """A descriptor of the directory `relative` below `root` (`.`: root itself), held open for
    the block: every component walked without following symlinks, as every read here walks
    them. Pass it as `root` to read the files in it: one `openat` each instead of a walk of
    the whole path per file (a run of 10,000 trials). HostileInput if a component is a
    symlink or not a directory, FileNotFoundError if there is none; `what`: how messages
    name it (default: `relative`)."""
    if relative in (".", ""):
        with _root(root) as fd:
            yield fd
        return
    with _parent(root, relative) as (parent, name):
        fd = _openat(parent, name, _DIR_FLAGS, what or str(relative))
        try:
            yield fd
        finally:
            os.close(fd)


def _openat(directory: int, name: str, flags: int, what: str) -> int:
    try:
        return os.open(name, flags, dir_fd=directory)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _refuse(what, exc) from None


def _open_regular(directory: int, name: str, what: str) -> int:
    """A read descriptor for the regular file `name` in `directory`; FileNotFoundError when
    there is none."""
    try:
        before = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _refuse(what, exc) from None
    if not stat.S_ISREG(before.st_mode):
        raise HostileInput(f"{what} is {_kind(before.st_mode)}, not a regular file", planted=True)
    fd = _openat(directory, name, _READ_FLAGS, what)
    now = os.fstat(fd)
    if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (
        before.st_dev,
        before.st_ino,
    ):
        os.close(fd)
        raise HostileInput(f"{what} was swapped while it was opened", planted=True)
    return fd


def _read_fd(fd: int, limit: int, what: str) -> bytes:
    size = os.fstat(fd).st_size
    if size > limit:
        raise HostileInput(f"{what} is {size} bytes, over the limit of {limit}")
    chunks, total = [], 0
    while True:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:  # it grew after the fstat
            raise HostileInput(f"{what} is over the limit of {limit} bytes")
    return b"".join(chunks)


def read_bytes(
    root: Path | int, relative: str, limit: int = FILE_LIMIT, *, what: str | None = None
) -> bytes | None:
    """The bytes of the regular file `relative` below `root`; None if there is none.
    `what`: how messages name the file (default: `relative`)."""
    what = what or str(relative)
    try:
        if isinstance(root, int) and _plain(relative):  # a name in a directory held open
            return _read_regular(root, relative, limit, what)
        with _parent(root, relative) as (directory, name):
            return _read_regular(directory, name, limit, what)
    except FileNotFoundError:
        return None


def _plain(relative: str) -> bool:
    """Whether `relative` is one name, nothing to walk: read below a directory held open,
    it needs no walk (a trial page reads several files so, 10,000 times in a large report)."""
    return isinstance(relative, str) and "/" not in relative and relative not in ("", ".", "..")


def _read_regular(directory: int, name: str, limit: int, what: str) -> bytes:
    fd = _open_regular(directory, name, what)
    try:
        return _read_fd(fd, limit, what)
    finally:
        os.close(fd)


def read_ends(root: Path | int, relative: str, keep: int) -> tuple[bytes, bytes, int] | None:
    """A file that may be large (a program's output): (its first keep/2 bytes, its last
    keep/2 bytes or b"" when it fits whole in the first part, its size); None if none."""
    what = str(relative)
    try:
        if isinstance(root, int) and _plain(relative):
            return _ends(root, relative, keep, what)
        with _parent(root, relative) as (directory, name):
            return _ends(directory, name, keep, what)
    except FileNotFoundError:
        return None


def _ends(directory: int, name: str, keep: int, what: str) -> tuple[bytes, bytes, int]:
    fd = _open_regular(directory, name, what)
    try:
        size = os.fstat(fd).st_size
        if size <= keep:
            return _read_fd(fd, keep, what), b"", size
        half = keep // 2
        return os.pread(fd, half, 0), os.pread(fd, half, size - half), size
    finally:
        os.close(fd)


def decode(data: bytes, what: str) -> str:
    """Strict UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HostileInput(f"{what} is not UTF-8 (byte {exc.start})") from None


def read_text(root: Path | int, relative: str, limit: int = FILE_LIMIT) -> str | None:
    """The text (strict UTF-8) of the regular file `relative` below `root`; None if none."""
    data = read_bytes(root, relative, limit)
    return None if data is None else decode(data, str(relative))


def lexists(root: Path | int, relative: str) -> bool:
    """Whether anything (of any type, a dangling symlink too) is at `relative`."""
    try:
        with _parent(root, relative) as (directory, name):
            os.stat(name, dir_fd=directory, follow_symlinks=False)
            return True
    except FileNotFoundError:
        return False


def is_file(root: Path | int, relative: str) -> bool:
    """Whether a regular file (not a symlink to one) is at `relative`."""
    try:
        with _parent(root, relative) as (directory, name):
            return stat.S_ISREG(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return False


def list_dir(
    root: Path | int, relative: str = ".", limit: int = LIST_LIMIT, *, what: str | None = None
) -> list[str]:
    """The names in the directory `relative` below `root` (`.`: root itself), sorted, at most
    `limit` of them (more is refused). A symlink in its place is refused. `what`: how
    messages name the directory (default: `relative`)."""
    what = what or str(relative)
    try:
        if relative in (".", ""):
            with _root(root) as fd:
                names = os.listdir(fd)
        else:
            with _parent(root, relative) as (directory, name):
                fd = _openat(directory, name, _DIR_FLAGS, what)
                try:
                    names = os.listdir(fd)
                finally:
                    os.close(fd)
    except FileNotFoundError:
        raise HostileInput(f"{what} is gone (the agent removed it)", planted=True) from None
    if len(names) > limit:
        raise HostileInput(f"{what} holds {len(names)} entries, over the limit of {limit}")
    return sorted(names)


def write(root: Path | int, relative: str, data: bytes | str, mode: int = 0o644) -> None:
    """Write `relative` below `root` (making missing directories) through a fresh file
    renamed over it: whatever the agent planted there is replaced, never written through."""
    body = data.encode() if isinstance(data, str) else data
    what = str(relative)
    with _parent(root, relative, create=True) as (directory, name):
        temporary = f".{name}.kubeproof-{secrets.token_hex(6)}"
        try:
            fd = os.open(temporary, _CREATE_FLAGS, mode, dir_fd=directory)
        except OSError as exc:
            raise _refuse(what, exc) from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(body)
            os.rename(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
        except OSError as exc:
            with suppress(OSError):
                os.unlink(temporary, dir_fd=directory)
            raise _refuse(what, exc) from None


def touch(root: Path | int, relative: str) -> None:
    """Create an empty file at `relative` unless something is there already (never through
    a symlink: `O_EXCL` does not follow one)."""
    with _parent(root, relative) as (directory, name):
        try:
            os.close(os.open(name, _CREATE_FLAGS, 0o644, dir_fd=directory))
        except FileExistsError:
            pass
        except OSError as exc:
            raise _refuse(str(relative), exc) from None


def unlink(root: Path | int, relative: str) -> None:
    """Remove the entry at `relative` (a symlink itself, never its target); a directory or
    nothing there is left alone."""
    try:
        with _parent(root, relative) as (directory, name):
            os.unlink(name, dir_fd=directory)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        pass
    except HostileInput:
        pass
    except OSError as exc:
        if exc.errno in _HARNESS_ERRNOS:
            raise


# parsing


def _pairs(pairs: list[tuple[str, Any]]) -> dict:
    out = dict(pairs)
    if len(out) < len(pairs):  # the rare case: say which key
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODERS = threading.local()


def _decoder() -> json.JSONDecoder:
    """This thread's strict decoder, made once: json.loads with hooks builds a decoder at
    every call, and a report reads tens of thousands of JSON lines (a decoder's scanner
    keeps state while it runs a hook, so threads do not share one)."""
    found = getattr(_DECODERS, "decoder", None)
    if found is None:
        found = _DECODERS.decoder = json.JSONDecoder(
            object_pairs_hook=_pairs, parse_constant=_constant
        )
    return found


def loads_json(text: str | bytes, what: str = "JSON", depth: int = JSON_DEPTH) -> Any:
    """Strict JSON: UTF-8, no duplicate keys, no NaN/Infinity, at most `depth` levels."""
    if isinstance(text, bytes):
        text = decode(text, what)
    # The value nests no deeper than the text's brackets outside strings: a text with at
    # most `depth` brackets, or whose bracket depth is at most `depth`, parses to a value
    # within it, so the depth is checked here on the text only, never again on the value.
    if text.count("[") + text.count("{") > depth and json_depth(text) > depth:
        raise HostileInput(f"{what} is nested deeper than {depth} levels")
    try:
        return _decoder().decode(text)
    except (ValueError, RecursionError) as exc:
        raise HostileInput(f"{what} is not strict JSON: {exc}") from None


def json_depth(text: str) -> int:
    """The bracket depth of a JSON text, ignoring strings (to refuse deep nesting before the
    recursive parser sees it)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """safe_load, composed first so that depth and alias expansion are checked before any
    Python object is built (by libyaml when PyYAML has it: ten times faster)."""


def _expanded(node: yaml.Node, depth: int, limits: tuple[int, int], memo: dict[int, int]) -> int:
    """Nodes under `node` with every alias expanded (memoized per node: shared subtrees count
    each time they are referenced, as a consumer walking the result would see them)."""
    max_depth, max_nodes = limits
    if depth > max_depth:
        raise HostileInput(f"YAML nested deeper than {max_depth} levels")
    key = id(node)
    if key in memo:
        if memo[key] < 0:
            raise HostileInput("YAML with a recursive alias")
        return memo[key]
    memo[key] = -1
    total = 1
    if isinstance(node, yaml.SequenceNode):
        for child in node.value:
            total += _expanded(child, depth + 1, limits, memo)
            if total > max_nodes:
                break
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            total += _expanded(k, depth + 1, limits, memo) + _expanded(v, depth + 1, limits, memo)
            if total > max_nodes:
                break
    if total > max_nodes:
        raise HostileInput(f"YAML expands to over {max_nodes} nodes (excessive aliasing)")
    memo[key] = total
    return total


def load_yaml_all(
    text: str,
    what: str = "YAML",
    *,
    limit: int = YAML_LIMIT,
    depth: int = YAML_DEPTH,
    nodes: int = YAML_NODES,
) -> list[Any]:
    """Every document of a YAML (or JSON) text, safely: at most `limit` bytes, `depth`
    levels and `nodes` nodes after alias expansion (across all documents). Raises
    HostileInput for text over those limits or that does not parse."""
    if len(text) > limit:
        raise HostileInput(f"{what} is {len(text)} characters, over the limit of {limit}")
    if text.count("[") + text.count("{") > 4 * depth and json_depth(text) > 4 * depth:
        # flow collections nested this deep are no manifest: refused before the (slow,
        # recursive) scanner sees them; block nesting is bounded by the composer below
        raise HostileInput(f"{what} has flow collections nested deeper than {4 * depth} levels")
    loader = _Loader(text)
    docs: list[Any] = []
    total = 0
    try:
        while loader.check_node():
            node = loader.get_node()
            total += _expanded(node, 0, (depth, nodes - total), {})
            docs.append(loader.construct_document(node))
    except yaml.YAMLError as exc:
        raise HostileInput(f"{what} does not parse: {exc}") from None
    except RecursionError:
        raise HostileInput(f"{what} nested too deeply to parse") from None
    finally:
        loader.dispose()
    return docs


def load_yaml(text: str, what: str = "YAML", **limits: int) -> Any:
    """The one document of a YAML text (None if empty), with `load_yaml_all`'s limits."""
    docs = load_yaml_all(text, what, **limits)
    if len(docs) > 1:
        raise HostileInput(f"{what} holds {len(docs)} documents, not one")
    return docs[0] if docs else None
