"""The recorder: appends entries to a hash-linked, checkpoint-sealed chain on disk.

Each entry names the hash of the one before it; every `checkpoint_every` entries, at the end of
every segment and on `close()`, the recorder appends a checkpoint whose Ed25519 signature covers
its hash and so, through the links, every entry before it (like a Certificate Transparency
signed tree head). One signature per checkpoint rather than per entry keeps appends cheap.

Appends are serialized by one lock around building and writing, so no two entries can claim
the same predecessor. Each line is flushed to the OS as it is written (a crash of the process
loses nothing already appended); segments are fsynced when they are sealed and on close.
"""

import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from kubeproof.errors import KubeproofError
from kubeproof.evidence import keys
from kubeproof.evidence.entry import (
    GENESIS,
    HARNESS,
    MalformedEntry,
    build_entry,
    check_envelope,
    read_line,
)

SEGMENT_PATTERN = re.compile(r"segment-(\d+)\.jsonl")


class ChainError(KubeproofError):
    """A chain that cannot be written or read as asked."""


def segment_name(number: int) -> str:
    return f"segment-{number:06d}.jsonl"


def segment_files(directory: Path) -> list[tuple[int, Path]]:
    """The chain's segment files as (number, path), in order."""
    found = []
    for path in Path(directory).glob("segment-*.jsonl"):
        if match := SEGMENT_PATTERN.fullmatch(path.name):
            found.append((int(match.group(1)), path))
    return sorted(found)


class Recorder:
    """Writes one evidence chain into `directory` (which must not hold one already).

    `append()` is thread-safe. Segments hold at most `segment_entries` lines and end with a
    checkpoint; the last one ends with the final checkpoint written by `close()`.
    """

    def __init__(
        self,
        directory: Path,
        signing_key: Ed25519PrivateKey | None = None,
        *,
        checkpoint_every: int = 256,
        segment_entries: int = 10_000,
    ):
        if checkpoint_every < 1:
            raise ValueError("checkpoint_every must be at least 1")
        if segment_entries < 2:
            raise ValueError("segment_entries must be at least 2 (an entry and its checkpoint)")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        if segment_files(self.directory):
            raise ChainError(f"{self.directory} already holds an evidence chain")
        self._key = signing_key if signing_key is not None else keys.load_signing_key()
        self.fingerprint = keys.fingerprint(self._key)
        self.checkpoint_every = checkpoint_every
        self.segment_entries = segment_entries
        keys.save_public(self._key, self.directory / keys.PUBLIC_KEY_NAME)
        self._lock = threading.Lock()
        self._seq = 0
        self._head = GENESIS
        self._segment = 0
        self._segment_lines = 0
        self._since_checkpoint = 0  # entries since the last checkpoint
        self._last_was_checkpoint = False
        self._file: IO[bytes] | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def seq(self) -> int:
        """The seq the next entry will get (= entries written so far)."""
        return self._seq

    @property
    def head(self) -> str:
        """The hash of the last entry written (64 zeros before the first)."""
        return self._head

    def append(
        self,
        entry_type: str,
        payload: Mapping[str, Any],
        *,
        actor: Mapping[str, Any] = HARNESS,
        time: str | None = None,
    ) -> dict[str, Any]:
        """Append one entry and return it (with its seq and hash). Checkpoints are the
        recorder's own: use `seal()` to force one."""
        if entry_type == "checkpoint":
            raise ValueError("checkpoints are written by the recorder: call seal()")
        check_envelope(entry_type, payload, actor)
        with self._lock:
            self._check_open()
            if self._segment == 0:
                self._rotate()
            elif self._segment_lines >= self.segment_entries - 1:
                # the last slot of a segment is kept for the checkpoint that closes it, which
                # is written only now so that close() can make it the final one instead
                if not self._last_was_checkpoint:
                    self._checkpoint(final=False)
                self._rotate()
            entry = self._write(entry_type, payload, actor, time)
            self._since_checkpoint += 1
            room = self._segment_lines < self.segment_entries - 1
            if room and self._since_checkpoint >= self.checkpoint_every:
                self._checkpoint(final=False)
            return entry

    def seal(self) -> dict[str, Any] | None:
        """Write a checkpoint now if any entry is unsealed; return it (None if none was)."""
        with self._lock:
            self._check_open()
            if self._since_checkpoint == 0:
                return None
            return self._checkpoint(final=False)

    def close(self) -> None:
        """Write the final checkpoint and close the file. Idempotent."""
        with self._lock:
            if self._closed:
                return
            if self._segment == 0 or self._segment_lines >= self.segment_entries:
                self._rotate()
            self._checkpoint(final=True)
            assert self._file is not None
            self._file.close()
            self._file = None
            self._closed = True

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # everything below runs under the lock

    def _check_open(self) -> None:
        if self._closed:
            raise ChainError(f"the evidence chain in {self.directory} is closed")

    def _rotate(self) -> None:
        if self._file is not None:
            self._sync()
            self._file.close()
        self._segment += 1
        self._segment_lines = 0
        path = self.directory / segment_name(self._segment)
        self._file = open(path, "xb")  # noqa: SIM115 - kept open across appends

    def _sync(self) -> None:
        assert self._file is not None
        self._file.flush()
        os.fsync(self._file.fileno())

    def _write(
        self,
        entry_type: str,
        payload: Mapping[str, Any],
        actor: Mapping[str, Any],
        time: str | None = None,
        *,
        sign: bool = False,
    ) -> dict[str, Any]:
        entry, line = build_entry(
            seq=self._seq,
            entry_type=entry_type,
            payload=payload,
            actor=actor,
            prev=self._head,
            time=time,
            signer=self._key.sign if sign else None,
        )
        assert self._file is not None
        self._file.write(line + b"\n")
        self._file.flush()
        self._seq += 1
        self._head = entry["hash"]
        self._segment_lines += 1
        self._last_was_checkpoint = sign
        return entry

    def _checkpoint(self, *, final: bool) -> dict[str, Any]:
        payload = {
            "segment": self._segment,
            "count": self._seq,
            "head": self._head,
            "final": final,
            "key_fingerprint": self.fingerprint,
        }
        entry = self._write("checkpoint", payload, HARNESS, sign=True)
        self._since_checkpoint = 0
        if final or self._segment_lines >= self.segment_entries - 1:
            self._sync()  # the segment is sealed: make it durable
        return entry


def read_entries(directory: Path) -> list[dict[str, Any]]:
    """Every entry of the chain in `directory`, segment by segment, in file order. Raises
    ChainError on a line that is not JSON (`kubeproof evidence verify` says more)."""
    entries = []
    for _, path in segment_files(Path(directory)):
        with open(path, "rb") as fh:
            for number, raw in enumerate(fh, 1):
                try:
                    entries.append(read_line(raw.rstrip(b"\n"))[0])
                except MalformedEntry as exc:
                    raise ChainError(f"{path}:{number}: {exc}") from exc
    return entries
