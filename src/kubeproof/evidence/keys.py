"""Ed25519 keys for sealing evidence chains, and where the signing key comes from.

`load_signing_key()` resolves, in order: an explicit path; `KUBEPROOF_EVIDENCE_KEY` (base64 of
the 32-byte seed, for CI secrets); `KUBEPROOF_EVIDENCE_KEY_FILE`; else a persistent per-user key
at `$XDG_DATA_HOME/kubeproof/evidence/signing-key.pem`, created on first use. Never a key that
lives only as long as the process: a chain signed by a key nobody kept cannot be checked
against anything.

`KUBEPROOF_EVIDENCE_KEY` is read once — when this module is first imported, before the harness
starts any child — and taken out of the process's environment, so no child (cluster
components, node simulator workloads, the agent's sandbox) inherits it; the seed is held in
memory from then on.

A key is named by its fingerprint, "SHA256:" + hex SHA-256 of the 32 raw public key bytes.
"""

import base64
import binascii
import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from kubeproof.errors import KubeproofError

KEY_ENV = "KUBEPROOF_EVIDENCE_KEY"
KEY_FILE_ENV = "KUBEPROOF_EVIDENCE_KEY_FILE"
PRIVATE_KEY_NAME = "signing-key.pem"
PUBLIC_KEY_NAME = "public-key.pem"
_held: str | None = None  # $KUBEPROOF_EVIDENCE_KEY, once taken out of the environment


def _environment_seed() -> str | None:
    """$KUBEPROOF_EVIDENCE_KEY: taken out of os.environ the first time it is seen, then held."""
    global _held
    if value := os.environ.pop(KEY_ENV, None):
        _held = value
    return _held


def forget_environment_key() -> None:
    """Drop the seed taken from $KUBEPROOF_EVIDENCE_KEY (for tests)."""
    global _held
    _held = None


_environment_seed()  # at import, before any child process exists


def generate() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def default_key_path() -> Path:
    """The persistent per-user signing key."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "kubeproof" / "evidence" / PRIVATE_KEY_NAME


def private_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def public_pem(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """SubjectPublicKeyInfo PEM of the key (or of a private key's public half)."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def fingerprint(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "SHA256:" + hashlib.sha256(raw).hexdigest()


def save_private(key: Ed25519PrivateKey, path: Path, *, overwrite: bool = True) -> Path:
    """Write the key as PKCS#8 PEM readable by its owner only (0600). The file appears whole
    or not at all; with overwrite=False an existing file is kept (FileExistsError)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".signing-key-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(private_pem(key))
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if the path exists: two first uses cannot both win
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def save_public(key: Ed25519PrivateKey | Ed25519PublicKey, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(public_pem(key))
    return path


def load_private(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise KubeproofError(f"cannot read the evidence signing key {path}: {exc}") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise KubeproofError(f"{path} is not an Ed25519 private key")
    return key


def load_public(path: Path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (OSError, ValueError) as exc:
        raise KubeproofError(f"cannot read the public key {path}: {exc}") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise KubeproofError(f"{path} is not an Ed25519 public key")
    return key


def _from_seed(text: str) -> Ed25519PrivateKey:
    try:
        seed = base64.b64decode(text.strip(), validate=True)
    except binascii.Error as exc:
        raise KubeproofError(f"{KEY_ENV} is not base64: {exc}") from exc
    if len(seed) != 32:
        raise KubeproofError(
            f"{KEY_ENV} holds {len(seed)} bytes, not the 32-byte Ed25519 seed",
            hint="make one with: python -c 'import os,base64; print(base64.b64encode("
            "os.urandom(32)).decode())'",
        )
    return Ed25519PrivateKey.from_private_bytes(seed)


def key_source(path: Path | None = None) -> str:
    """Where load_signing_key(path) takes its key from, in words."""
    if path is not None:
        return str(path)
    if _environment_seed():
        return f"${KEY_ENV}"
    if os.environ.get(KEY_FILE_ENV):
        return os.environ[KEY_FILE_ENV]
    return str(default_key_path())


def load_signing_key(path: Path | None = None) -> Ed25519PrivateKey:
    """The signing key: `path`, else $KUBEPROOF_EVIDENCE_KEY, else $KUBEPROOF_EVIDENCE_KEY_FILE,
    else the per-user key (created on first use)."""
    if path is not None:
        return load_private(path)
    if seed := _environment_seed():
        try:
            return _from_seed(seed)
        except KubeproofError:
            forget_environment_key()  # a bad seed is reported once, not held
            raise
    if key_file := os.environ.get(KEY_FILE_ENV):
        return load_private(Path(key_file))
    default = default_key_path()
    if not default.exists():
        # if another process creates it first, use theirs
        with contextlib.suppress(FileExistsError):
            save_private(generate(), default, overwrite=False)
    return load_private(default)
