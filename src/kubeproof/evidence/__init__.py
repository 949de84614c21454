"""The flight recorder: an append-only, hash-linked evidence chain of what happened in a
trial, sealed by Ed25519-signed checkpoints, and its verifier. See docs/evidence.md.

    from kubeproof.evidence import Recorder, load_signing_key, verify_chain

    with Recorder(trial_dir / "evidence", load_signing_key()) as rec:
        rec.append("command", {...}, actor={"type": "agent", "id": "oracle"})
    assert verify_chain(trial_dir / "evidence").ok
"""

from kubeproof.evidence.chain import ChainError, Recorder, read_entries
from kubeproof.evidence.entry import (
    ENTRY_TYPES,
    FORMAT_VERSION,
    REQUIRED_PAYLOAD_KEYS,
    RISK_LEVELS,
    entry_hash,
)
from kubeproof.evidence.keys import fingerprint, generate, load_public, load_signing_key
from kubeproof.evidence.verify import Problem, Report, verify_chain

__all__ = [
    "ENTRY_TYPES",
    "FORMAT_VERSION",
    "REQUIRED_PAYLOAD_KEYS",
    "RISK_LEVELS",
    "ChainError",
    "Problem",
    "Recorder",
    "Report",
    "entry_hash",
    "fingerprint",
    "generate",
    "load_public",
    "load_signing_key",
    "read_entries",
    "verify_chain",
]
