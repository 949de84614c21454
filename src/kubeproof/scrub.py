"""Scrubbing key material out of what the harness copies into results and evidence.

Agent and CLI output ends up in trial.json, trajectory.jsonl, transcript.json and the signed
evidence chain, which are meant to be published. Whatever the agent printed — because it found
a key, or to smuggle one out through the results — is scrubbed first:

- PEM private keys (any `-----BEGIN … PRIVATE KEY-----` block, cut short ones too) and
  base64 of PEM (`LS0tLS1CRUdJTi…`, as kubeconfigs embed it) that decodes to a private key;
- bearer tokens (`Authorization: Bearer …`, `--token=…`) and JSON Web Tokens (ServiceAccount
  tokens) wherever they appear;
- credential fields of a kubeconfig (`client-key-data`, `token`, `password`);
- API keys of the common providers (`sk-…`, `sk-ant-…`);
- and exact secrets the harness knows: the admin kubeconfig's client certificate, key and
  token (as PEM, as base64, as they appear), the evidence signing key, and the values of
  the harness's environment variables whose names say KEY, TOKEN, SECRET or PASSWORD.

Each is replaced by `[redacted: WHAT]`, so a reader sees that something was there.
No kubeproof imports: anything may use it.
"""

import base64
import binascii
import contextlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

MIN_SECRET = 12  # characters: shorter literal values are not scrubbed (too many false hits)

_PEM_PRIVATE = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----.*?(?:-----END \1PRIVATE KEY-----|\Z)",
    re.DOTALL,
)
_PEM_B64 = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/=\s\\n]{16,}")
_BEARER = re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}")
_TOKEN_FLAG = re.compile(r"(--token[=\s]+)[^\s'\"]{8,}")
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}")
_FIELDS = re.compile(
    r"""(?ix)
    (["']?\b(?:client-key-data|token|id-token|refresh-token|password|access-token)\b["']?
     \s*[:=]\s*["']?)
    (?!\[redacted)([^\s'",}]{8,})
    """
)
_API_KEY = re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}")
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)


def _redacted(what: str) -> str:
    return f"[redacted: {what}]"


def _pem_b64(match: re.Match) -> str:
    blob = match.group(0)
    compact = re.sub(r"\s|\\n", "", blob)
    try:
        decoded = base64.b64decode(compact + "=" * (-len(compact) % 4), validate=False)
    except (binascii.Error, ValueError):
        return blob
    if b"PRIVATE KEY" in decoded:
        return _redacted("private key")
    return blob


def _variants(secret: str) -> set[str]:
    """A secret as it may appear: itself, its base64, its lines (a PEM printed wrapped)."""
    out = {secret, secret.strip()}
    raw = secret.strip().encode()
    out.add(base64.b64encode(raw).decode())
    if "-----BEGIN" in secret:
        body = "".join(line for line in secret.strip().splitlines() if not line.startswith("-----"))
        out.add(body)
    return {v for v in out if len(v) >= MIN_SECRET}


class Scrubber:
    """Scrubs text (and JSON-like values) of key material; `secrets` are exact strings to
    remove besides the patterns."""

    def __init__(self, secrets: Iterable[str] = ()):
        found: set[str] = set()
        for s in secrets:
            if isinstance(s, str) and len(s.strip()) >= MIN_SECRET:
                found |= _variants(s)
        self.secrets = sorted(found, key=len, reverse=True)  # the longest first

    def add(self, *secrets: str) -> "Scrubber":
        return Scrubber([*self.secrets, *secrets])

    def text(self, text: str) -> str:
        if not text:
            return text
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, _redacted("secret"))
        text = _PEM_PRIVATE.sub(_redacted("private key"), text)
        text = _PEM_B64.sub(_pem_b64, text)
        text = _JWT.sub(_redacted("token"), text)
        text = _BEARER.sub(lambda m: m.group(1) + _redacted("token"), text)
        text = _TOKEN_FLAG.sub(lambda m: m.group(1) + _redacted("token"), text)
        text = _FIELDS.sub(lambda m: m.group(1) + _redacted("credential"), text)
        return _API_KEY.sub(_redacted("API key"), text)

    def value(self, value: Any) -> Any:
        """A JSON-like value with every string in it scrubbed (keys too)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                self.text(k) if isinstance(k, str) else k: self.value(v) for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    @classmethod
    def for_harness(cls, kubeconfigs: Iterable[Path] = (), extra: Iterable[str] = ()) -> "Scrubber":
        """The secrets this process knows: the credentials in `kubeconfigs` (the admin's),
        `extra` (the signing key's PEM) and secret-named environment variables."""
        secrets = [*extra, *environment_secrets()]
        for path in kubeconfigs:
            secrets += kubeconfig_secrets(path)
        return cls(secrets)


def environment_secrets(environ: dict[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    return [v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= MIN_SECRET]


def kubeconfig_secrets(path: Path) -> list[str]:
    """Client certificates, keys, tokens and passwords in a kubeconfig (embedded data as
    written and decoded; referenced files read)."""
    try:
        config = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError):
        return []
    found: list[str] = []
    for user in config.get("users") or []:
        entry = (user or {}).get("user") or {}
        for key in ("client-certificate-data", "client-key-data"):
            if isinstance(entry.get(key), str):
                found.append(entry[key])
                with contextlib.suppress(binascii.Error, ValueError):
                    found.append(base64.b64decode(entry[key]).decode())
        for key in ("client-certificate", "client-key"):
            if isinstance(entry.get(key), str):
                with contextlib.suppress(OSError):
                    found.append(Path(entry[key]).read_text())
        for key in ("token", "password"):
            if isinstance(entry.get(key), str):
                found.append(entry[key])
    return found


DEFAULT = Scrubber()


def scrub(text: str) -> str:
    """Patterns only (no known secrets)."""
    return DEFAULT.text(text)
