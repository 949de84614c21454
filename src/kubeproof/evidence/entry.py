"""Evidence entries: the envelope, its canonical bytes (JCS, RFC 8785) and its hash.

An entry is a JSON object (`v`, `seq`, `type`, `time`, `actor`, `payload`, `prev`, `hash`,
`sig` on checkpoints). Its line in a segment is the JCS form of the whole entry; its `hash` is
SHA-256 over the JCS form of the entry without `hash` and `sig`. JCS sorts an object's members
and serializes each value on its own, so both byte strings are joins of the same per-member
bytes: every value is serialized exactly once, whether writing (`build_entry`) or checking
(`read_line`).

Writing serializes with the `rfc8785` reference implementation. Reading takes a fast path
through the C JSON encoder, which produces identical bytes whenever the line holds no number
or character where the two differ (floats in exponent form, integers beyond 2**53, keys outside
the Basic Multilingual Plane); such lines fall back to `rfc8785`.
"""

import base64
import hashlib
import json
import re
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

import rfc8785

FORMAT_VERSION = 1
GENESIS = "0" * 64  # the `prev` of seq 0

ENTRY_TYPES = (
    "trial_start",
    "command",
    "audit",
    "prescribe",
    "report",
    "observation",
    "verdict",
    "trial_end",
    "result",
    "checkpoint",
)
# Payload keys each type must carry; other keys are allowed and hashed like the rest.
REQUIRED_PAYLOAD_KEYS: dict[str, frozenset[str]] = {
    "trial_start": frozenset({"task", "agent", "trial", "instruction_sha256"}),
    "command": frozenset(
        {
            "step",
            "command",
            "exit_code",
            "seconds",
            "timed_out",
            "stdout_sha256",
            "stderr_sha256",
            "stdout",
            "stderr",
            "risk",
        }
    ),
    "audit": frozenset(
        {
            "audit_id",
            "step",
            "verb",
            "resource",
            "api_group",
            "namespace",
            "name",
            "subresource",
            "code",
            "user",
            "mutating",
        }
    ),
    "prescribe": frozenset({"prescription_id", "intent", "targets", "operation", "risk"}),
    "report": frozenset({"prescription_id", "verdict", "outcome", "reason"}),
    "observation": frozenset({"kind", "detail"}),
    "verdict": frozenset({"verdict", "score", "safe", "reason"}),
    "trial_end": frozenset({"steps", "decision"}),
    # what trial.json or run.json says, signed (evidence/results.py)
    "result": frozenset({"scope"}),
    "checkpoint": frozenset({"segment", "count", "head", "final", "key_fingerprint"}),
}
ACTOR_TYPES = ("agent", "harness", "apiserver")
RISK_LEVELS = ("low", "medium", "high", "critical")
ENVELOPE_KEYS = frozenset({"v", "seq", "type", "time", "actor", "payload", "prev", "hash"})
UNHASHED_KEYS = ("hash", "sig")  # what the hash (and so the signature) does not cover

HARNESS = {"type": "harness", "id": "kubeproof"}

_HEX64 = re.compile(r"[0-9a-f]{64}")
_INT_LIMIT = 2**53 - 1  # JCS numbers are IEEE doubles: larger integers are not exact
_ASTRAL_UTF8 = re.compile(rb"[\xf0-\xf4]")  # lead bytes of characters above U+FFFF


class MalformedEntry(ValueError):
    """A line that is not a usable entry (not JSON, wrong shape, not representable in JCS)."""


def utc_now() -> str:
    """The entry time format: UTC, microseconds, Z suffix."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical(value: Any) -> bytes:
    """The JCS (RFC 8785) bytes of a JSON value."""
    try:
        return rfc8785.dumps(value)
    except rfc8785.CanonicalizationError as exc:
        raise MalformedEntry(f"not representable in canonical JSON: {exc}") from exc


def _utf16(key: str) -> bytes:
    return key.encode("utf-16-be")  # JCS orders members by UTF-16 code units


_KEY_BYTES = {k: canonical(k) + b":" for k in (*ENVELOPE_KEYS, "sig")}


def _by_key(item: tuple[str, bytes]) -> bytes:
    return _utf16(item[0])


def _object(members: Mapping[str, bytes], skip: tuple[str, ...] = ()) -> bytes:
    """Join per-member value bytes into the JCS form of the object, leaving out `skip`."""
    return _join(sorted(members.items(), key=_by_key), skip)


def _join(items: list[tuple[str, bytes]], skip: tuple[str, ...] = ()) -> bytes:
    parts = [
        (_KEY_BYTES.get(key) or canonical(key) + b":") + value
        for key, value in items
        if key not in skip
    ]
    return b"{" + b",".join(parts) + b"}"


def entry_hash(entry: Mapping[str, Any]) -> str:
    """The hex SHA-256 an entry should carry: over the JCS form without `hash` and `sig`."""
    body = {k: v for k, v in entry.items() if k not in UNHASHED_KEYS}
    return hashlib.sha256(canonical(body)).hexdigest()


def check_envelope(entry_type: str, payload: Mapping[str, Any], actor: Mapping[str, Any]) -> None:
    """Reject what the format does not allow before it is written (ValueError)."""
    if entry_type not in ENTRY_TYPES:
        raise ValueError(f"unknown entry type {entry_type!r} (known: {', '.join(ENTRY_TYPES)})")
    if not isinstance(payload, Mapping):
        raise ValueError(f"{entry_type} payload must be an object, not {type(payload).__name__}")
    missing = REQUIRED_PAYLOAD_KEYS[entry_type] - payload.keys()
    if missing:
        raise ValueError(f"{entry_type} payload lacks {', '.join(sorted(missing))}")
    if not isinstance(actor, Mapping) or actor.get("type") not in ACTOR_TYPES:
        raise ValueError(f"actor must be {{type: {'|'.join(ACTOR_TYPES)}, id}}, not {actor!r}")
    if not isinstance(actor.get("id"), str):
        raise ValueError(f"actor id must be a string, not {actor.get('id')!r}")


def build_entry(
    *,
    seq: int,
    entry_type: str,
    payload: Mapping[str, Any],
    actor: Mapping[str, Any],
    prev: str,
    time: str | None = None,
    signer: Callable[[bytes], bytes] | None = None,
) -> tuple[dict[str, Any], bytes]:
    """Build an entry and its line (JCS bytes, no newline). `signer` (checkpoints) signs the
    32 raw hash bytes; its signature goes in `sig`, outside what the hash covers."""
    entry: dict[str, Any] = {
        "v": FORMAT_VERSION,
        "seq": seq,
        "type": entry_type,
        "time": time or utc_now(),
        "actor": dict(actor),
        "payload": dict(payload),
        "prev": prev,
    }
    members = {key: canonical(value) for key, value in entry.items()}
    digest = hashlib.sha256(_object(members)).digest()
    entry["hash"] = digest.hex()
    members["hash"] = b'"' + entry["hash"].encode() + b'"'
    if signer is not None:
        entry["sig"] = base64.b64encode(signer(digest)).decode()
        members["sig"] = b'"' + entry["sig"].encode() + b'"'
    return entry, _object(members)


class _LineReader:
    """A JSON decoder whose hooks note whether a line holds numbers where the C encoder and
    JCS differ. One per thread: the note is per line."""

    def __init__(self) -> None:
        self.exotic = False
        self.decoder = json.JSONDecoder(
            parse_float=self._float, parse_int=self._int, parse_constant=self._constant
        )

    def _float(self, text: str) -> float:
        value = float(text)
        # Plain decimals are written alike by repr() and JCS; exponents and integral floats
        # are not (JCS writes 1e-7 and 5, repr 1e-07 and 5.0).
        if text != repr(value) or "e" in text or text.endswith(".0"):
            self.exotic = True
        return value

    def _int(self, text: str) -> int | float:
        value = int(text)
        if -_INT_LIMIT <= value <= _INT_LIMIT:
            return value
        # JCS numbers are doubles: it writes the float 1e16 as 10000000000000000
        self.exotic = True
        try:
            return float(value)
        except OverflowError as exc:
            raise MalformedEntry(f"the number {text[:20]}… is out of range") from exc

    @staticmethod
    def _constant(text: str) -> float:
        raise MalformedEntry(f"{text} is not JSON")


_readers = threading.local()


def _no_default(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


if c_make_encoder is not None:
    # One reusable C encoder: json.dumps would build a new one per call, which costs more than
    # encoding the small values of an envelope.
    _c_encode = c_make_encoder(
        None, _no_default, encode_basestring, None, ":", ",", True, False, False
    )

    def _fast_canonical(value: Any) -> bytes:
        kind = value.__class__
        if kind is str:
            return encode_basestring(value).encode("utf-8")
        if kind is int:  # within ±2**53 here: larger ones are parsed as floats
            return str(value).encode()
        return "".join(_c_encode(value, 0)).encode("utf-8")

else:  # pragma: no cover - CPython always has the accelerator
    _encoder = json.JSONEncoder(
        ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":")
    )

    def _fast_canonical(value: Any) -> bytes:
        return _encoder.encode(value).encode("utf-8")


def read_line(raw: bytes) -> tuple[dict[str, Any], bool, str]:
    """Parse one segment line. Returns (entry, canonical, computed_hash): whether the line is
    byte-for-byte the entry's JCS form, and the hash its content should carry. Raises
    MalformedEntry for lines that are not a JSON object."""
    reader = getattr(_readers, "reader", None)
    if reader is None:
        reader = _readers.reader = _LineReader()
    reader.exotic = False
    try:
        entry = reader.decoder.decode(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedEntry(f"not valid JSON: {exc}") from exc
    if not isinstance(entry, dict):
        raise MalformedEntry(f"a JSON {type(entry).__name__}, not an object")
    try:
        if not reader.exotic and (raw.isascii() or not _ASTRAL_UTF8.search(raw)):
            # Without characters above U+FFFF, code point order is UTF-16 order.
            items = [(key, _fast_canonical(value)) for key, value in sorted(entry.items())]
        else:
            items = sorted(((k, canonical(v)) for k, v in entry.items()), key=_by_key)
    except MalformedEntry:
        raise
    except (UnicodeEncodeError, ValueError) as exc:  # lone surrogates, numbers JCS rejects
        raise MalformedEntry(f"not representable in canonical JSON: {exc}") from exc
    computed = hashlib.sha256(_join(items, UNHASHED_KEYS)).hexdigest()
    return entry, _join(items) == raw, computed


def envelope_problem(entry: Mapping[str, Any]) -> str | None:
    """What is wrong with an entry's envelope, or None. The version is checked first, since
    a future version may legitimately change everything else."""
    version = entry.get("v")
    if version != FORMAT_VERSION or isinstance(version, bool):
        return f"unknown format version {version!r} (this kubeproof reads version 1)"
    missing = ENVELOPE_KEYS - entry.keys()
    if missing:
        return f"lacks {', '.join(sorted(missing))}"
    extra = entry.keys() - ENVELOPE_KEYS - {"sig"}
    if extra:
        return f"has unknown fields {', '.join(sorted(extra))}"
    seq = entry["seq"]
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        return f"seq {seq!r} is not a non-negative integer"
    for key in ("prev", "hash"):
        if not isinstance(entry[key], str) or not _HEX64.fullmatch(entry[key]):
            return f"{key} is not 64 lowercase hex digits"
    if not isinstance(entry["payload"], dict):
        return "payload is not an object"
    actor = entry["actor"]
    if not isinstance(actor, dict) or actor.get("type") not in ACTOR_TYPES:
        return f"actor {actor!r} is not {{type: {'|'.join(ACTOR_TYPES)}, id}}"
    if not isinstance(entry["time"], str) or not isinstance(entry["type"], str):
        return "time and type must be strings"
    if "sig" in entry and entry["type"] != "checkpoint":
        return f"a {entry['type']} entry carries a signature (only checkpoints are signed)"
    return None
