"""Verifying an evidence chain: is every entry intact, in order, and sealed by the key?

`verify_chain()` reads every segment and reports each problem with the entry it concerns (seq,
segment file and line): an entry whose content no longer matches its hash (modified), a seq
that appears twice (inserted), seqs that are missing (deleted), entries out of file order
(reordered), a successor that does not link to its predecessor's hash (broken_link), a chain
or segment that does not end with a checkpoint or a segment file that is missing (truncated),
a checkpoint whose signature does not verify (signature) or whose count, head or segment do
not match where it stands (checkpoint), and lines that are not entries at all (malformed,
version, not_canonical, unknown_type).

Which key? The `public_key` argument, else `public-key.pem` in the chain directory. That file
travels with the chain, so verifying against it proves only that the chain is consistent with
*some* key: whoever rewrote the chain could have re-signed it and replaced the file. Trust
comes from comparing the fingerprint with one you know (`expect_fingerprint`, or compare
`Report.fingerprint` yourself).
"""

import base64
import binascii
import itertools
from bisect import bisect_left
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from kubeproof.errors import KubeproofError
from kubeproof.evidence import keys
from kubeproof.evidence.chain import segment_files, segment_name
from kubeproof.evidence.entry import (
    ENTRY_TYPES,
    FORMAT_VERSION,
    GENESIS,
    MalformedEntry,
    envelope_problem,
    read_line,
)

PROBLEM_KINDS = (
    "key",
    "fingerprint",
    "malformed",
    "version",
    "not_canonical",
    "unknown_type",
    "modified",
    "inserted",
    "deleted",
    "reordered",
    "broken_link",
    "checkpoint",
    "signature",
    "truncated",
    "result",  # trial.json or run.json differs from what the chain signed (cli verify)
)


@dataclass(frozen=True)
class Problem:
    kind: str
    message: str
    seq: int | None = None
    segment: str | None = None  # the segment file's name
    line: int | None = None

    @property
    def where(self) -> str:
        if self.segment and self.line:
            return f"{self.segment}:{self.line}"
        return self.segment or ""


@dataclass
class Report:
    directory: str
    ok: bool = False
    entries: int = 0  # lines that parsed as entries
    checkpoints: int = 0  # checkpoints whose signature verified
    sealed: int = 0  # entries up to and including the last good checkpoint
    unsealed: int = 0  # entries after it
    final: bool = False  # ends with a good final checkpoint
    fingerprint: str | None = None
    key_source: str | None = None
    problems: list[Problem] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Record:
    """What the order and link checks need of one entry (not its payload)."""

    __slots__ = ("after_bad", "hash", "index", "line", "prev", "segment", "seq", "type")

    def __init__(self, entry: dict, segment: str, line: int, index: int, after_bad: int):
        self.seq: int = entry["seq"]
        self.prev: str = entry["prev"]
        self.hash: str = entry["hash"]
        self.type: str = entry["type"]
        self.segment = segment
        self.line = line
        self.index = index  # position among the records, in file order
        self.after_bad = after_bad  # unreadable lines just before it

    @property
    def where(self) -> str:
        return f"{self.segment}:{self.line}"


class _Verifier:
    def __init__(self, directory: Path, key: Ed25519PublicKey | None, allow_open: bool):
        self.directory = directory
        self.key = key
        self.fingerprint = keys.fingerprint(key) if key else None
        self.allow_open = allow_open
        self.problems: list[Problem] = []
        self.records: list[_Record] = []
        self.good_checkpoints: list[int] = []  # record indexes of checkpoints that verified
        self.final_at: list[int] = []  # record indexes of final checkpoints
        self.unreadable = 0  # lines since the last record that were not entries

    def problem(self, kind: str, message: str, at: _Record | None = None, **where: Any) -> None:
        if at is not None:
            where = {"seq": at.seq, "segment": at.segment, "line": at.line}
        self.problems.append(Problem(kind, message, **where))

    # reading

    def read(self) -> None:
        segments = segment_files(self.directory)
        if not segments:
            self.problem("truncated", f"no segment files in {self.directory}")
            return
        expected = 1
        for number, path in segments:
            if number != expected:
                missing = [segment_name(n) for n in range(expected, number)]
                self.problem(
                    "truncated",
                    f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing: "
                    f"{self._truncated_after()}",
                    segment=missing[0],
                )
            expected = number + 1
            self.read_segment(number, path, last=number == segments[-1][0])

    def _truncated_after(self) -> str:
        if not self.records:
            return "the start of the chain is missing"
        last = self.records[-1]
        return f"the chain is truncated after seq {last.seq} ({last.where})"

    def read_segment(self, number: int, path: Path, *, last: bool) -> None:
        name = path.name
        lines = path.read_bytes().split(b"\n")
        cut_short = lines[-1] != b""  # the last line has no newline: a write was cut short
        if not cut_short:
            lines.pop()
        closing: _Record | None = None
        for lineno, raw in enumerate(lines, 1):
            closing = self.read_entry(number, name, lineno, raw, self.unreadable)
            self.unreadable = 0 if closing else self.unreadable + 1
        if cut_short and lines:
            self.problem(
                "malformed",
                f"the last line of {name} has no newline (a write was cut short)",
                segment=name,
                line=len(lines),
            )
        if last:
            return  # the end of the chain is judged in finish()
        if closing is None or closing.type != "checkpoint":
            self.problem(
                "truncated",
                f"{name} does not end with a checkpoint: {self._truncated_after()}"
                if self.records
                else f"{name} holds no entries",
                segment=name,
                line=len(lines) or None,
            )

    def read_entry(
        self, number: int, name: str, lineno: int, raw: bytes, bad: int
    ) -> _Record | None:
        where = {"segment": name, "line": lineno}
        try:
            entry, canonical, computed = read_line(raw)
        except MalformedEntry as exc:
            self.problem("malformed", f"{name}:{lineno}: {exc}", **where)
            return None
        wrong = envelope_problem(entry)
        if wrong:
            seq = entry.get("seq") if isinstance(entry.get("seq"), int) else None
            version = entry.get("v")
            known = version == FORMAT_VERSION and not isinstance(version, bool)
            kind = "malformed" if known else "version"
            self.problem(kind, f"entry at {name}:{lineno}: {wrong}", seq=seq, **where)
            return None
        record = _Record(entry, name, lineno, len(self.records), bad)
        self.records.append(record)
        label = f"entry seq {record.seq} at {record.where}"
        if not canonical:
            self.problem(
                "not_canonical",
                f"{label} is not in canonical JSON (RFC 8785) form",
                record,
            )
        if computed != record.hash:
            self.problem(
                "modified",
                f"{label} was modified: its content does not match its hash",
                record,
            )
        if record.type not in ENTRY_TYPES:
            self.problem("unknown_type", f"{label} has unknown type {record.type!r}", record)
        if record.type == "checkpoint":
            self.check_checkpoint(entry, record, number, sound=computed == record.hash)
        return record

    def check_checkpoint(self, entry: dict, record: _Record, number: int, *, sound: bool) -> None:
        label = f"checkpoint seq {record.seq} at {record.where}"
        payload = entry["payload"]
        expected = {"segment": number, "count": record.seq, "head": record.prev}
        wrong = [
            f"{key} {payload.get(key)!r} (expected {value!r})"
            for key, value in expected.items()
            if payload.get(key) != value or isinstance(payload.get(key), bool)
        ]
        if not isinstance(payload.get("final"), bool):
            wrong.append(f"final {payload.get('final')!r} (expected true or false)")
        if wrong:
            self.problem("checkpoint", f"{label} has {', '.join(wrong)}", record)
        if payload.get("final") is True:
            self.final_at.append(record.index)
        if self.key is None:
            return
        signed = self._signature_holds(entry, record)
        if signed and sound and not wrong:
            self.good_checkpoints.append(record.index)

    def _signature_holds(self, entry: dict, record: _Record) -> bool:
        label = f"checkpoint seq {record.seq} at {record.where}"
        if "sig" not in entry:
            self.problem("signature", f"{label} is not signed", record)
            return False
        try:
            assert self.key is not None
            self.key.verify(
                base64.b64decode(entry["sig"], validate=True), bytes.fromhex(record.hash)
            )
            return True
        except (InvalidSignature, binascii.Error, TypeError, ValueError):
            named = entry["payload"].get("key_fingerprint")
            by = f" (it names key {named})" if named and named != self.fingerprint else ""
            self.problem(
                "signature",
                f"{label}: the signature does not verify with key {self.fingerprint}{by}",
                record,
            )
            return False

    # order and links

    def check_order(self) -> None:
        records = self.records
        intruders = self.find_insertions()
        kept = [r for r in records if r.index not in intruders]
        by_seq = {r.seq: r for r in kept}
        self.find_reorders(kept, by_seq)
        self.find_deletions(kept, by_seq)
        self.check_links(kept, by_seq)

    def find_insertions(self) -> set[int]:
        """Seqs held by more than one entry: the one the chain does not continue from (no
        successor names its hash) was inserted."""
        holders: dict[int, list[_Record]] = {}
        for r in self.records:
            holders.setdefault(r.seq, []).append(r)
        intruders: set[int] = set()
        for seq, same in holders.items():
            if len(same) == 1:
                continue
            successors = holders.get(seq + 1, [])
            linked = [r for r in same if any(s.prev == r.hash for s in successors)]
            keeper = linked[0] if len(linked) == 1 else same[0]
            for r in same:
                if r is not keeper:
                    intruders.add(r.index)
                    self.problem(
                        "inserted",
                        f"entry seq {r.seq} at {r.where} was inserted: seq {seq} is also at "
                        f"{keeper.where}, the entry the chain continues from",
                        r,
                    )
        return intruders

    def find_reorders(self, kept: list[_Record], by_seq: dict[int, _Record]) -> None:
        """Entries out of file order: those outside the longest run of increasing seqs."""
        in_order = _longest_increasing(kept)
        previous: _Record | None = None
        for r in kept:
            if r.index not in in_order:
                expected = previous.seq + 1 if previous else 0
                before = by_seq.get(r.seq - 1)
                if r.seq == 0:
                    belongs = "seq 0 belongs first"
                else:
                    at = f", which is at {before.where}" if before else ""
                    belongs = f"seq {r.seq} belongs after seq {r.seq - 1}{at}"
                self.problem(
                    "reordered",
                    f"entry seq {r.seq} at {r.where}: expected seq {expected} (the entries were "
                    f"reordered: {belongs})",
                    r,
                )
            previous = r

    def find_deletions(self, kept: list[_Record], by_seq: dict[int, _Record]) -> None:
        seqs = sorted(by_seq)
        if not seqs:
            return
        gaps = [(-1, seqs[0])] if seqs[0] != 0 else []
        gaps += [(a, b) for a, b in itertools.pairwise(seqs) if b != a + 1]
        position = {r.index: i for i, r in enumerate(kept)}
        for before, after in gaps:
            r = by_seq[after]
            missing = after - before - 1
            follows = kept[position[r.index] - 1] if position[r.index] else None
            if follows is by_seq.get(before) and r.after_bad >= missing:
                continue  # the unreadable lines in between are those entries
            gone = (
                f"an entry was deleted: seq {before + 1} is missing"
                if missing == 1
                else f"entries were deleted: seqs {before + 1}..{after - 1} are missing"
            )
            self.problem(
                "deleted", f"entry seq {after} at {r.where}: expected seq {before + 1} ({gone})", r
            )

    def check_links(self, kept: list[_Record], by_seq: dict[int, _Record]) -> None:
        for r in kept:
            if r.seq == 0:
                if r.prev != GENESIS:
                    self.problem("broken_link", f"entry seq 0 at {r.where}: prev is not zeros", r)
                continue
            before = by_seq.get(r.seq - 1)
            if before is not None and r.prev != before.hash:
                self.problem(
                    "broken_link",
                    f"entry seq {r.seq} at {r.where} does not link to seq {before.seq} at "
                    f"{before.where}: its prev is not that entry's hash (one of them was "
                    "replaced or rewritten)",
                    r,
                )

    # the end of the chain

    def finish(self, report: Report) -> None:
        records = self.records
        if not records:
            return
        last = records[-1]
        for index in self.final_at:
            if index != last.index:
                extra = len(records) - index - 1
                r = records[index + 1]
                self.problem(
                    "inserted",
                    f"entry seq {r.seq} at {r.where} follows the final checkpoint "
                    f"(seq {records[index].seq} at {records[index].where}): {extra} "
                    f"{'entry was' if extra == 1 else 'entries were'} appended after the "
                    "chain was closed",
                    r,
                )
        good = self.good_checkpoints[-1] if self.good_checkpoints else -1
        report.sealed = good + 1
        report.unsealed = len(records) - good - 1
        report.final = good == last.index and good in self.final_at
        if self.allow_open or report.final:
            return
        if last.type != "checkpoint":
            unsealed = f"{report.unsealed} {'entry' if report.unsealed == 1 else 'entries'}"
            why = f"it does not end with a final checkpoint ({unsealed} after the last good one)"
        elif last.index not in self.final_at:
            why = "its last checkpoint is not final, so later entries or segments are missing"
        else:
            return  # a final checkpoint that failed its checks: reported already
        self.problem(
            "truncated", f"the chain is truncated after seq {last.seq} ({last.where}): {why}", last
        )


def _longest_increasing(records: list[_Record]) -> set[int]:
    """Indexes of a longest strictly increasing run (by seq) of the records, keeping the
    earliest entries where there is a choice (patience sorting)."""
    tails: list[int] = []  # seq at the end of the best run of each length
    tail_at: list[int] = []  # position in `records` of that entry
    parent = [-1] * len(records)
    for pos, r in enumerate(records):
        k = bisect_left(tails, r.seq)
        if k == len(tails):
            tails.append(r.seq)
            tail_at.append(pos)
        else:
            tails[k] = r.seq
            tail_at[k] = pos
        parent[pos] = tail_at[k - 1] if k else -1
    chosen: set[int] = set()
    pos = tail_at[-1] if tail_at else -1
    while pos != -1:
        chosen.add(records[pos].index)
        pos = parent[pos]
    return chosen


def _resolve_key(
    directory: Path, public_key: Ed25519PublicKey | Path | str | None
) -> tuple[Ed25519PublicKey | None, str | None, str | None]:
    """(key, where it came from, why there is none)."""
    if isinstance(public_key, Ed25519PublicKey):
        return public_key, "argument", None
    path = Path(public_key) if public_key is not None else directory / keys.PUBLIC_KEY_NAME
    if not path.is_file():
        return None, None, f"no public key: {path} does not exist"
    try:
        return keys.load_public(path), str(path), None
    except KubeproofError as exc:
        return None, None, str(exc)


def _normal_fingerprint(text: str) -> str:
    text = text.strip()
    digest = text[7:] if text.upper().startswith("SHA256:") else text
    return "SHA256:" + digest.lower()


def verify_chain(
    directory: Path,
    public_key: Ed25519PublicKey | Path | str | None = None,
    *,
    expect_fingerprint: str | None = None,
    allow_open: bool = False,
) -> Report:
    """Verify the chain in `directory`. `allow_open` accepts a chain that is still being
    written (or whose writer died): it need not end with a final checkpoint, and the entries
    after its last checkpoint are reported as unsealed rather than as a problem."""
    directory = Path(directory)
    report = Report(directory=str(directory))
    key, source, missing = _resolve_key(directory, public_key)
    verifier = _Verifier(directory, key, allow_open)
    report.fingerprint, report.key_source = verifier.fingerprint, source
    if missing:
        verifier.problem("key", f"{missing}; checkpoint signatures were not checked")
    if expect_fingerprint and report.fingerprint:
        wanted = _normal_fingerprint(expect_fingerprint)
        if wanted != report.fingerprint:
            verifier.problem(
                "fingerprint",
                f"the chain is signed by key {report.fingerprint}, not the expected {wanted}",
            )
    verifier.read()
    verifier.check_order()
    verifier.finish(report)
    report.entries = len(verifier.records)
    report.checkpoints = len(verifier.good_checkpoints)
    report.problems = sorted(
        verifier.problems, key=lambda p: (p.segment or "", p.line or 0, p.kind)
    )
    report.ok = not report.problems
    return report
