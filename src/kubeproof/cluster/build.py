"""`kubeproof setup`: build the control plane from the Go module proxy into the cache.

One `go build` per binary (they share Go's build cache, so later ones mostly link), each
with version ldflags so `--version` and `kubectl version` tell the truth. Go's module and
build caches are left where Go keeps them, so a second build takes seconds.
"""

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from kubeproof.cluster.binaries import (
    ETCD_BINARIES,
    KUBERNETES_BINARIES,
    STAMP,
    bin_dir,
    built_versions,
    version_dir,
)
from kubeproof.cluster.versions import Versions, controlplane_dir, versions
from kubeproof.errors import KubeproofError

MIN_GO = (1, 26)

PACKAGES = {
    "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
    "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
    "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
    "kubectl": "k8s.io/kubernetes/cmd/kubectl",
    "etcd": "go.etcd.io/etcd/server/v3",
    "etcdutl": "go.etcd.io/etcd/etcdutl/v3",
}


@dataclass(frozen=True)
class BuildStep:
    binary: str
    module_dir: Path
    package: str
    version: str
    ldflags: str


def go_version(go: str) -> tuple[int, int]:
    try:
        out = subprocess.run([go, "version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise KubeproofError(f"`{go} version` failed: {exc}") from exc
    match = re.search(r"go(\d+)\.(\d+)", out)
    if not match:
        raise KubeproofError(f"cannot read the Go version from: {out.strip()}")
    return int(match.group(1)), int(match.group(2))


def find_go() -> str:
    go = shutil.which("go")
    install = "install Go >= {}.{} (https://go.dev/doc/install or your package manager)".format(
        *MIN_GO
    )
    if not go:
        raise KubeproofError(
            "Go is not installed: the control plane is built from source", hint=install
        )
    if go_version(go) < MIN_GO:
        found = "{}.{}".format(*go_version(go))
        raise KubeproofError(f"Go {found} is too old to build the control plane", hint=install)
    return go


def _kubernetes_ldflags(v: Versions) -> str:
    flags = ["-s", "-w"]
    built = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for pkg in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        flags += [
            f"-X {pkg}.gitVersion={v.kubernetes}",
            f"-X {pkg}.gitMajor=1",
            f"-X {pkg}.gitMinor={v.kubernetes_minor}",
            f"-X {pkg}.gitTreeState=clean",
            f"-X {pkg}.buildDate={built}",
        ]
    return " ".join(flags)


def _etcd_ldflags(v: Versions) -> str:
    # etcd's version is a constant in its api module; only the commit is left to say
    return f"-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=module-{v.etcd}"


def plan(v: Versions, force: bool = False) -> list[BuildStep]:
    """The binaries still to build: everything when forced, else what the stamp lacks."""
    root = controlplane_dir()
    done = {} if force else built_versions(bin_dir(v))
    steps = []
    for name in KUBERNETES_BINARIES + ETCD_BINARIES:
        is_etcd = name in ETCD_BINARIES
        version = v.etcd if is_etcd else v.kubernetes
        if done.get(name) == version and (bin_dir(v) / name).is_file():
            continue
        steps.append(
            BuildStep(
                binary=name,
                module_dir=root / ("etcd" if is_etcd else "kubernetes"),
                package=PACKAGES[name],
                version=version,
                ldflags=_etcd_ldflags(v) if is_etcd else _kubernetes_ldflags(v),
            )
        )
    return steps


def _record(directory: Path, binary: str, version: str) -> None:
    stamp = built_versions(directory)
    stamp[binary] = version
    tmp = directory / (STAMP + ".tmp")
    tmp.write_text(json.dumps(stamp, indent=2, sort_keys=True))
    tmp.replace(directory / STAMP)


def build_log_path(v: Versions | None = None) -> Path:
    return version_dir(v) / "build.log"


def run_step(go: str, step: BuildStep, out_dir: Path, log: Path) -> None:
    env = os.environ | {"GOTOOLCHAIN": "local", "CGO_ENABLED": "0", "GOFLAGS": "-mod=readonly"}
    cmd = [go, "build", "-trimpath", "-ldflags", step.ldflags, "-o", str(out_dir / step.binary)]
    cmd.append(step.package)
    with log.open("a") as fh:
        fh.write(f"\n=== {datetime.now(UTC).isoformat()} {step.binary}: {' '.join(cmd)}\n")
        fh.flush()
        proc = subprocess.run(
            cmd, cwd=step.module_dir, env=env, stdout=fh, stderr=subprocess.STDOUT
        )
    if proc.returncode != 0:
        raise KubeproofError(
            f"building {step.binary} failed (go build exited {proc.returncode})", log=str(log)
        )


def build(
    force: bool = False,
    on_step: Callable[[BuildStep, int, int], None] | None = None,
    on_done: Callable[[BuildStep, float], None] | None = None,
) -> list[BuildStep]:
    """Build whatever is missing; returns the steps that ran."""
    v = versions()
    steps = plan(v, force)
    if not steps:
        return []
    go = find_go()
    out_dir = bin_dir(v)
    out_dir.mkdir(parents=True, exist_ok=True)
    log = build_log_path(v)
    for index, step in enumerate(steps, 1):
        if on_step:
            on_step(step, index, len(steps))
        started = time.monotonic()
        run_step(go, step, out_dir, log)
        _record(out_dir, step.binary, step.version)
        if on_done:
            on_done(step, time.monotonic() - started)
    return steps
