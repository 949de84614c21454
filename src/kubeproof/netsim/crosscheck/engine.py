"""netpolcheck, the independent NetworkPolicy evaluator: controlplane/netpolcheck, a small Go
`main` around cyclonus's policy matcher (the project the Kubernetes network-policy-api's
policy-assistant grew from) behind the apiserver's own defaulting and validation. Built from
the Go module proxy like the control plane, into the cache, keyed by its sources."""

import hashlib
import json
import os
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from kubeproof.cluster.build import find_go
from kubeproof.cluster.versions import controlplane_dir
from kubeproof.errors import KubeproofError
from kubeproof.paths import cache_root

ENGINE_MODULE = "github.com/mattfenwick/cyclonus"
SOURCES = ("go.mod", "go.sum", "main.go")
# an answer line is one case's verdicts; a case has a few dozen probes
MAX_ANSWER_BYTES = 1 << 20


def module_dir() -> Path:
    return controlplane_dir() / "netpolcheck"


def engine_version() -> str:
    """The cyclonus release go.mod requires, e.g. v0.5.6."""
    text = (module_dir() / "go.mod").read_text()
    match = re.search(rf"^\s*{re.escape(ENGINE_MODULE)}\s+(v\S+)", text, re.M)
    if not match:
        raise KubeproofError(f"{module_dir() / 'go.mod'}: no `require {ENGINE_MODULE}` line")
    return match.group(1)


def binary_path() -> Path:
    """Where the build for these exact sources lives: a changed main.go or go.sum is a
    different binary, so a stale one is never run."""
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update((module_dir() / name).read_bytes())
    return (
        cache_root()
        / "netpolcheck"
        / f"{engine_version()}-{digest.hexdigest()[:12]}"
        / "netpolcheck"
    )


def built() -> Path | None:
    path = binary_path()
    return path if path.is_file() else None


def build() -> Path:
    """`go build` the module into the cache (seconds when Go's caches are warm from the control
    plane build; minutes on a fresh machine). Returns the binary."""
    path = binary_path()
    if path.is_file():
        return path
    go = find_go()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    log = path.parent / "build.log"
    env = os.environ | {"GOTOOLCHAIN": "local", "CGO_ENABLED": "0", "GOFLAGS": "-mod=readonly"}
    cmd = [go, "build", "-trimpath", "-ldflags", "-s -w", "-o", str(partial), "."]
    with log.open("a") as fh:
        fh.write(f"\n=== {datetime.now(UTC).isoformat()} netpolcheck: {' '.join(cmd)}\n")
        fh.flush()
        proc = subprocess.run(cmd, cwd=module_dir(), env=env, stdout=fh, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        raise KubeproofError(
            f"building netpolcheck failed (go build exited {proc.returncode})", log=str(log)
        )
    partial.replace(path)
    return path


def judge(binary: Path, cases: list[dict], timeout: float = 600.0) -> list[dict]:
    """One answer per case, in order: {"verdicts": [...]} or {"error": "..."}."""
    stdin = "".join(json.dumps(case, separators=(",", ":")) + "\n" for case in cases)
    proc = subprocess.run(
        [str(binary)], input=stdin, capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        raise KubeproofError(f"netpolcheck exited {proc.returncode}: {proc.stderr.strip()[:2000]}")
    lines = proc.stdout.splitlines()
    if len(lines) != len(cases):
        raise KubeproofError(f"netpolcheck answered {len(lines)} of {len(cases)} cases")
    answers = []
    for line in lines:
        if len(line) > MAX_ANSWER_BYTES:
            raise KubeproofError("netpolcheck: an answer is larger than 1 MiB")
        answer = json.loads(line)
        if not isinstance(answer, dict):
            raise KubeproofError(f"netpolcheck: not an answer: {line[:200]}")
        answers.append(answer)
    return answers
