"""Harbor import (issue 16 item 7) on a Harbor-format task written for these tests
(harbor_fixtures/shop-web-endpoints: a k3s service, a bootstrap script over manifests that
makes the agent's ServiceAccount and writes its kubeconfig, a bash oracle, a shell
verifier): what maps to what, what is refused and why, the reward convention, and — on a
real embedded cluster — the oracle scoring 1 and a no-op 0 through tests/test.sh."""

import json
import os
import shutil
import tomllib
from pathlib import Path

import pytest
import yaml

from kubeproof.agents.builtin import interpreter
from kubeproof.interop.harbor import import_all, import_task
from kubeproof.nodesim.profile import NodeProfile
from kubeproof.runner.shell_verifier import reward
from kubeproof.tasks import load
from tests.conftest import run_cli

FIXTURE = Path(__file__).parent / "harbor_fixtures" / "shop-web-endpoints"
TRAEFIK = "      - --disable=traefik\n"  # the compose line that keeps k3s's traefik off


def _copy(tmp_path: Path) -> Path:
    src = tmp_path / "harbor" / FIXTURE.name
    shutil.copytree(FIXTURE, src)
    return src


def test_a_harbor_task_becomes_a_kubeproof_task(tmp_path):
    summary = import_all([FIXTURE], tmp_path / "out")
    assert (summary.imported, summary.refused) == (1, 0)
    # the access the bootstrap gives the agent, said in the summary
    assert summary.tasks[0].notes[0] == (
        "the agent acts as shop/shop-agent: Role shop-agent in shop (3 rules)"
    )
    task = load(tmp_path / "out" / FIXTURE.name)
    kp = task.spec.kubeproof
    # the agent acts as the ServiceAccount whose token the bootstrap put in its kubeconfig
    assert kp.agent_service_account == "shop/shop-agent" and kp.permissions == []
    assert kp.namespaces == ["shop"] and kp.broken_by_setup
    # the bootstrap's mounts: the manifests read-only, the shared volumes as scratch
    assert kp.setup_mounts == {
        "/kube": "scratch",
        "/admin-kube": "scratch",
        "/bootstrap": "compose/workspace/bootstrap",
    }
    assert kp.workdir == "/app" and (task.workspace / "README.md").is_file()
    assert (kp.area, kp.difficulty, kp.canary) == (
        "service-routing",
        "easy",
        "0b5e8f62-3a41-4c8e-9d0f-6a7b2c1d9e43",
    )
    assert "harbor" in kp.tags and "live_cluster_debug" in kp.tags
    # Harbor's sections load, untouched
    assert task.spec.agent.timeout_sec == 300 and task.spec.verifier.timeout_sec == 120
    assert task.spec.environment["cpus"] == 2
    assert task.spec.solution["env"] == {"KUBECONFIG": "/kube/kubeconfig.yaml"}
    assert task.shell_verifier.name == "test.sh" and task.verifier is None
    # the bootstrap image's commands run the setup; the agent image's are on every PATH
    setup = task.setup_script.read_text()
    assert "exec bootstrap-cluster" in setup and "export SHOP_NAMESPACE=shop" in setup
    assert "KUBECONFIG" not in setup  # the sandbox's is the admin's
    env = task.root / "environment"
    assert sorted(p.name for p in (env / "bootstrap" / "bin").iterdir()) == [
        "bootstrap-cluster",
        "prepare-kubeconfig",
    ]
    assert [p.name for p in task.bin.iterdir()] == ["prepare-kubeconfig"]
    assert os.access(task.bin / "prepare-kubeconfig", os.X_OK)
    nodes = yaml.safe_load((env / "nodes.yaml").read_text())
    # k3s's server node as k3s labels it, and no kubeadm control-plane node beside it: a
    # bootstrap's `kubectl label node --all` or `get nodes -o jsonpath={.items[0]...}` sees
    # the one node a k3s cluster has
    server_roles = {
        "node-role.kubernetes.io/control-plane": "true",
        "node-role.kubernetes.io/master": "true",
    }
    assert nodes == {
        "nodes": [{"name": "shop-node", "labels": server_roles | {"shop.example/pool": "web"}}],
        "control_plane": False,
    }
    assert [n.name for n in NodeProfile.model_validate(nodes).expand()] == ["shop-node"]
    # tests/ and the oracle are copied as they are
    assert task.solution.read_bytes() == (FIXTURE / "solution" / "solve.sh").read_bytes()
    text = (task.root / "task.toml").read_text()
    assert text.startswith((FIXTURE / "task.toml").read_text().rstrip("\n"))


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (
            lambda src: (
                _sub(src / "environment/docker-compose.yaml", TRAEFIK, ""),
                (src / "environment/workspace/bootstrap/route.yaml").write_text(
                    "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\n"
                    "metadata: {name: web, namespace: shop}\n"
                ),
            ),
            "needs Traefik's custom resources (IngressRoute, Middleware, …)",
        ),
        (
            lambda src: _sub(src / "task.toml", "gpus = 0", "gpus = 1"),
            "needs a GPU ([environment] gpus > 0)",
        ),
        (
            lambda src: (src / "environment/docker-compose.yaml").unlink(),
            "no docker-compose.yaml: its environment is a plain container",
        ),
        (
            lambda src: _sub(src / "environment/docker-compose.yaml", "rancher/k3s", "redis"),
            "no Kubernetes in its environment (no k3s or kind service)",
        ),
        (
            lambda src: (src / "tests/test.sh").unlink(),
            "no tests/test.sh",
        ),
        (
            lambda src: _sub(
                src / "environment/workspace/bootstrap/agent.yaml",
                "type: kubernetes.io/service-account-token",
                "type: Opaque",
            ),
            "no agent ServiceAccount: the bootstrap hands the agent no token Secret kubeproof "
            "can map (0 found)",
        ),
    ],
)
def test_what_cannot_be_imported_is_refused_with_its_reason(tmp_path, edit, reason):
    src = _copy(tmp_path)
    edit(src)
    result = import_task(src, tmp_path / "out")
    assert (result.imported, result.reason) == (False, reason)
    assert not (tmp_path / "out" / src.name).exists()


def _sub(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_the_cli_counts_imports_and_refusals(tmp_path):
    dataset = tmp_path / "harbor"
    src = _copy(tmp_path)
    refused = dataset / "needs-gpu"
    shutil.copytree(src, refused)
    _sub(refused / "task.toml", "gpus = 0", "gpus = 1")
    out = tmp_path / "out"
    result = run_cli("tasks", "import", "harbor", str(dataset), "--out", str(out), "-o", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["imported"], data["refused"]) == (1, 1)
    assert data["reasons"] == {"needs a GPU ([environment] gpus > 0)": 1}
    text = run_cli("tasks", "import", "harbor", str(dataset), "--out", str(out)).stdout
    assert "1 of 2 imported, 1 refused" in text and "1: needs a GPU" in text
    lint = run_cli("tasks", "lint", str(out / src.name))
    assert lint.returncode == 0, lint.stdout + lint.stderr
    # validated from a directory with no task library of its own
    plan = run_cli("tasks", "validate", str(out), "--dry-run", "-o", "json", cwd=tmp_path)
    assert plan.returncode == 0, plan.stderr
    assert [(r["task"], r["selected"]) for r in json.loads(plan.stdout)] == [(src.name, "named")]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"reward.txt": "1\n"}, (1.0, "reward.txt")),
        ({"reward.txt": "0"}, (0.0, "reward.txt")),
        ({"reward.json": '{"reward": 0.5, "checks": 3}'}, (0.5, "reward.json")),
        ({"reward.json": '{"score": 1}'}, (1.0, "reward.json")),
        ({"reward.txt": "pass"}, (None, "reward.txt holds no reward: could not convert")),
        ({"reward.txt": "nan"}, (None, "reward.txt holds no finite number")),
        ({"reward.json": '{"reward": true}'}, (None, "reward.json holds no reward: no numeric")),
        ({}, (None, "wrote no /logs/verifier/reward.txt or reward.json")),
    ],
)
def test_harbor_reward_files(tmp_path, files, expected):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    value, why = reward(tmp_path)
    assert value == expected[0] and why.startswith(expected[1])


def test_a_reward_file_is_never_read_through_a_symlink(tmp_path):
    (tmp_path / "elsewhere").write_text("1")
    (tmp_path / "reward.txt").symlink_to(tmp_path / "elsewhere")
    value, why = reward(tmp_path)
    assert value is None and why.startswith("unreadable reward file")


@pytest.mark.parametrize(
    ("first", "default", "shell"),
    [
        ("#!/usr/bin/env bash", "/bin/sh", "/bin/bash"),
        ("#!/bin/bash -e", "/bin/sh", "/bin/bash"),
        ("#!/bin/sh", "/bin/bash", "/bin/sh"),
        ("kubectl get pods", "/bin/bash", "/bin/bash"),
        ("#!", "/bin/sh", "/bin/sh"),
        ("#!/usr/bin/python3", "/bin/sh", "/bin/sh"),
    ],
)
def test_scripts_run_under_the_shell_they_name(first, default, shell):
    assert interpreter(f"{first}\necho hi\n", default) == shell


@pytest.mark.cluster
@pytest.mark.timeout(900)
def test_an_imported_task_runs_on_an_embedded_cluster(tmp_path):
    """The bootstrap runs as admin and leaves the Service broken; the bash oracle, as the
    task's own ServiceAccount, fixes it and writes its note in /app; tests/test.sh, as the
    agent's ServiceAccount too (Harbor's agent container), reads both and rewards 1 — its
    own requests are not the agent's: none is in the evidence chain. A no-op gets reward
    0 from the same verifier."""
    import_all([FIXTURE], tmp_path / "tasks")
    task = tmp_path / "tasks" / FIXTURE.name
    out = tmp_path / "run"
    args = ["run", "--tasks", str(task), "--agent", "oracle", "--agent", "noop", "-j", "1"]
    result = run_cli(*args, "--out", str(out), "-o", "json", timeout=840)
    records = {
        r["agent"]: r
        for r in (json.loads(p.read_text()) for p in (out / "trials").rglob("trial.json"))
    }
    assert set(records) == {"oracle", "noop"}, result.stdout[-2000:] + result.stderr[-2000:]
    oracle, noop = records["oracle"], records["noop"]
    assert (oracle["verdict"], oracle["score"]) == ("resolved", 1), oracle["reason"]
    verifier = {r["name"]: r for r in oracle["results"]}["shell verifier"]
    assert verifier["passed"] and verifier["reason"].startswith("reward 1 (reward.txt")
    assert all(r["passed"] for r in oracle["safety"])
    assert (noop["verdict"], noop["score"]) == ("failed", 0)
    assert "reward 0" in noop["reason"]
    trials = out / "trials" / FIXTURE.name
    log = (trials / "oracle" / "1" / "verifier.log").read_text()
    assert "PASS" in log and "== /logs/verifier/test.log" in log
    assert "FAIL: selector is" in (trials / "noop" / "1" / "verifier.log").read_text()
    # the note the oracle wrote in its workspace, kept with the trial
    note = trials / "oracle" / "1" / "home" / "workspace" / "NOTES.txt"
    assert note.read_text().startswith("web Service selector")
    kubeproof = tomllib.loads((task / "task.toml").read_text())["kubeproof"]
    assert (kubeproof["workdir"], kubeproof["verifier_credentials"]) == ("/app", "agent")
    for agent in ("oracle", "noop"):
        chain = (trials / agent / "1" / "evidence").glob("segment-*.jsonl")
        assert not any("verifier-marker" in p.read_text() for p in chain), agent


CLAIM = """---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: cache, namespace: shop}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
"""


@pytest.mark.parametrize(
    ("claim", "disable", "expected"),
    [
        ("", False, []),  # no claim: no provisioner
        (CLAIM, False, ["local-path"]),  # k3s's default StorageClass provisions it
        (CLAIM.replace("spec:\n", 'spec:\n  storageClassName: ""\n'), False, []),  # static
        (CLAIM, True, []),  # the server ran without k3s's local-path provisioner
    ],
)
def test_k3s_local_path_provisioner_becomes_an_addon_when_a_claim_needs_it(
    tmp_path, claim, disable, expected
):
    src = _copy(tmp_path)
    manifest = src / "environment/workspace/bootstrap/shop.yaml"
    manifest.write_text(manifest.read_text() + claim)
    if disable:
        _sub(
            src / "environment/docker-compose.yaml",
            TRAEFIK,
            TRAEFIK + TRAEFIK.replace("traefik", "local-storage"),
        )
    result = import_task(src, tmp_path / "out")
    assert load(Path(result.out)).spec.kubeproof.addons == expected


def test_k3s_traefik_becomes_an_addon_unless_disabled(tmp_path):
    src = _copy(tmp_path)
    assert load(Path(import_task(src, tmp_path / "out").out)).spec.kubeproof.addons == []
    _sub(src / "environment/docker-compose.yaml", TRAEFIK, "")
    result = import_task(src, tmp_path / "out")
    assert load(Path(result.out)).spec.kubeproof.addons == ["traefik"]


def test_a_kubectl_loop_with_its_own_account_is_a_task_controller(tmp_path):
    src = _copy(tmp_path)
    manifest = src / "environment/workspace/bootstrap/shop.yaml"
    manifest.write_text(
        manifest.read_text()
        + """---
apiVersion: apps/v1
kind: Deployment
metadata: {name: widget-controller, namespace: shop}
spec:
  selector: {matchLabels: {app: widget-controller}}
  template:
    metadata: {labels: {app: widget-controller}}
    spec:
      serviceAccountName: widget-controller
      containers:
        - name: reconcile
          image: alpine/k8s:1.30.6
          command: [sh, -c, "while true; do kubectl get widgets; sleep 5; done"]
"""
    )
    result = import_task(src, tmp_path / "out")
    assert load(Path(result.out)).spec.kubeproof.controllers == ["shop/widget-controller"]


def test_what_the_agents_rbac_lets_it_delete_is_an_allowed_deletion(tmp_path):
    src = _copy(tmp_path)
    assert load(Path(import_task(src, tmp_path / "out").out)).spec.kubeproof.allowed_deletions == []
    agent = src / "environment/workspace/bootstrap/agent.yaml"
    _sub(
        agent,
        "    verbs: [patch, update]\n",
        "    verbs: [patch, update]\n"
        "  - apiGroups: [batch]\n    resources: [jobs]\n    verbs: [get, create, delete]\n"
        '  - apiGroups: [""]\n    resources: [configmaps, pods/log]\n'
        '    resourceNames: [settings]\n    verbs: ["*"]\n',
    )
    # a ClusterRole bound elsewhere to another account grants the agent nothing
    agent.write_text(
        agent.read_text()
        + """---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: janitor}
rules: [{apiGroups: [""], resources: [services], verbs: [delete]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: janitor}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: janitor}
subjects: [{kind: ServiceAccount, name: janitor, namespace: shop}]
"""
    )
    result = import_task(src, tmp_path / "out")
    assert load(Path(result.out)).spec.kubeproof.allowed_deletions == [
        "ConfigMap/shop/settings",
        "Job/shop/*",
    ]


def test_what_the_bootstrap_image_copies_to_its_workdir_is_mounted_there(tmp_path):
    src = _copy(tmp_path)
    _sub(
        src / "environment/Dockerfile.bootstrap",
        "COPY scripts/ /usr/local/bin/",
        "COPY workspace/app/ /app/\nCOPY scripts/ /usr/local/bin/",
    )
    task = load(Path(import_task(src, tmp_path / "out").out))
    assert task.spec.kubeproof.setup_mounts["/app"] == "bootstrap/workspace"
    workspace = task.root / "environment" / "bootstrap" / "workspace"
    app = src / "environment" / "workspace" / "app"
    assert sorted(p.name for p in workspace.iterdir()) == sorted(p.name for p in app.iterdir())
    assert "\ncd /app\nexec bootstrap-cluster" in task.setup_script.read_text()
