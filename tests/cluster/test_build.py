import json
import os

import pytest

from kubeproof.cluster import build
from kubeproof.cluster.binaries import ETCD_BINARIES, KUBERNETES_BINARIES, STAMP
from kubeproof.cluster.versions import versions
from kubeproof.errors import KubeproofError


def test_versions_come_from_the_go_wrapper_modules():
    v = versions()
    assert v.kubernetes.startswith("v1.")
    assert v.etcd.startswith("v3.6.")


def test_plan_skips_binaries_already_built_at_the_right_version(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBEPROOF_CACHE_DIR", str(tmp_path))
    v = versions()
    bin_dir = tmp_path / v.kubernetes / "bin"
    bin_dir.mkdir(parents=True)
    stamp = {name: v.kubernetes for name in KUBERNETES_BINARIES}
    stamp |= {"etcd": "v3.0.0"}  # an outdated etcd must be rebuilt
    for name in stamp:
        (bin_dir / name).write_text("")
    (bin_dir / STAMP).write_text(json.dumps(stamp))

    todo = [step.binary for step in build.plan(v)]
    assert todo == list(ETCD_BINARIES)
    assert len(build.plan(v, force=True)) == len(KUBERNETES_BINARIES + ETCD_BINARIES)


def test_kubernetes_binaries_get_truthful_version_ldflags():
    v = versions()
    step = next(s for s in build.plan(v, force=True) if s.binary == "kubectl")
    assert f"k8s.io/component-base/version.gitVersion={v.kubernetes}" in step.ldflags
    assert f"k8s.io/client-go/pkg/version.gitVersion={v.kubernetes}" in step.ldflags


def test_missing_go_is_one_clear_sentence(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(KubeproofError, match="Go is not installed") as info:
        build.find_go()
    assert "install Go >= 1.26" in str(info.value)


def test_too_old_go_names_the_version(monkeypatch, tmp_path):
    fake = tmp_path / "go"
    fake.write_text("#!/bin/sh\necho 'go version go1.21.4 linux/amd64'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ["PATH"])
    with pytest.raises(KubeproofError, match=r"Go 1\.21 is too old"):
        build.find_go()


def test_build_failure_names_the_step_and_the_log(monkeypatch, tmp_path):
    fake = tmp_path / "go"
    fake.write_text("#!/bin/sh\necho 'compile error: something broke' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("KUBEPROOF_CACHE_DIR", str(tmp_path / "cache"))
    v = versions()
    step = build.plan(v, force=True)[0]
    log = tmp_path / "build.log"
    with pytest.raises(KubeproofError, match=f"building {step.binary} failed") as info:
        build.run_step(str(fake), step, tmp_path, log)
    assert info.value.log == str(log)
    assert "compile error: something broke" in log.read_text()
