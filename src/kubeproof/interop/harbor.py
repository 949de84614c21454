"""`kubeproof tasks import harbor`: a Harbor task whose environment brings up Kubernetes
becomes a kubeproof task (docs/interop.md).

What maps to what:
- the compose file's k3s nodes → the embedded cluster's simulated nodes (nodes.yaml);
- the bootstrap service (its command, its mounts, the commands its Dockerfile copies) →
  environment/setup.sh, run as admin with those mounts (`setup_mounts`);
- the agent's ServiceAccount, whose token the bootstrap writes into the agent's kubeconfig
  (`prepare-kubeconfig`) → `agent_service_account`: the agent acts as that account;
- the agent image's commands and workspace → environment/bin/ and environment/workspace/
  at its WORKDIR;
- instruction.md, solution/solve.sh (the oracle) and tests/ (test.sh, the shell verifier)
  unchanged; task.toml's Harbor sections unchanged, with a [kubeproof] section added.
What cannot be rebuilt is refused with its reason (harbor_env.Refusal).
"""

import re
import shlex
import shutil
import tomllib
import uuid
from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from kubeproof.interop.harbor_env import BIN_DIRS, Environment, Image, Refusal, read_environment
from kubeproof.interop.harbor_manifests import (
    addons,
    agent_account,
    agent_deletions,
    agent_rbac,
    controllers,
    manifests,
    namespaces,
)
from kubeproof.interop.toml_out import kubeproof_section
from kubeproof.tasks.loader import discover

DIFFICULTIES = ("easy", "medium", "hard")
MAX_STEPS = 100  # Harbor counts no steps; room for a careful agent on a hard task


class Imported(BaseModel):
    """One Harbor task's import: where it went, or why it could not."""

    source: str = Field(description="The Harbor task directory.")
    name: str = Field(description="Its [task] name.")
    imported: bool
    out: str | None = Field(None, description="The kubeproof task directory written.")
    reason: str | None = Field(None, description="Why it was refused.")
    notes: list[str] = Field(default_factory=list, description="What was mapped loosely.")


class Summary(BaseModel):
    """Every task an import looked at, and the counts by outcome and reason."""

    imported: int
    refused: int
    reasons: dict[str, int] = Field(description="Refusals counted by reason.")
    tasks: list[Imported]


def _copy_tree(source: Path, target: Path, notes: list[str]) -> None:
    """Regular files and folders only; a symlink in a task is noted and left out."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        if path.is_symlink():
            notes.append(f"symlink {path.name} left out")
        elif path.is_dir():
            _copy_tree(path, target / path.name, notes)
        elif path.is_file():
            shutil.copy2(path, target / path.name)


def _image_files(image: Image, env_dir: Path, out: Path, notes: list[str]) -> None:
    """What an image's Dockerfile copies: commands into `out`/bin (bootstrap-bin), the
    workdir's content into `out`/workspace."""
    for copy in image.copies:
        target = copy.target.rstrip("/") or "/"
        for source in copy.sources:
            path = (env_dir / source).resolve()
            if not path.is_relative_to(env_dir.resolve()) or not path.exists():
                notes.append(f"COPY {source}: not in environment/")
                continue
            if target in BIN_DIRS or target.rsplit("/", 1)[0] in BIN_DIRS:
                dest = out / "bin"
                if path.is_dir():
                    _copy_tree(path, dest, notes)
                else:
                    name = path.name if target in BIN_DIRS else target.rsplit("/", 1)[1]
                    dest.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, dest / name)
            elif image.workdir and target == image.workdir.rstrip("/"):
                if path.is_dir():
                    _copy_tree(path, out / "workspace", notes)
                else:
                    (out / "workspace").mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, out / "workspace" / path.name)
            else:
                notes.append(f"COPY {source} {copy.target}: not given to the agent")
    for folder in (out / "bin",):
        for path in folder.glob("*") if folder.is_dir() else []:
            path.chmod(0o755)


def _copied_workdir(image: Image) -> str | None:
    """The image's WORKDIR when its Dockerfile copies files there (_image_files puts them
    in `workspace`)."""
    workdir = (image.workdir or "").rstrip("/")
    if workdir and any(c.target.rstrip("/") == workdir for c in image.copies):
        return workdir
    return None


def setup_script(env: Environment) -> str:
    """environment/setup.sh: the bootstrap service's command with the bootstrap image's
    commands on the PATH and its environment (but never its KUBECONFIG: the sandbox's is
    the admin's)."""
    exports = "".join(
        f"export {k}={shlex.quote(v)}\n"
        for k, v in sorted(env.bootstrap_image.env.items())
        if k != "KUBECONFIG" and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)
    )
    workdir = _copied_workdir(env.bootstrap_image)  # its WORKDIR, mounted (setup_mounts)
    cd = f"cd {shlex.quote(workdir)}\n" if workdir else ""
    return (
        "#!/usr/bin/env bash\n"
        "# Imported from Harbor by `kubeproof tasks import harbor`: the compose file's\n"
        "# bootstrap service, run as the cluster admin with its mounts (setup_mounts).\n"
        "set -euo pipefail\n"
        'export PATH="/environment/bootstrap/bin:$PATH"\n'
        f"{exports}"
        f"{cd}"
        f"exec {shlex.join(env.bootstrap_command)}\n"
    )


# What k3s labels a server node with (ROLES control-plane,master in `kubectl get nodes`); it
# keeps no control-plane taint, so workloads run there as on the agents
K3S_SERVER_LABELS = {
    "node-role.kubernetes.io/control-plane": "true",
    "node-role.kubernetes.io/master": "true",
}


def nodes_profile(env: Environment) -> dict:
    """The compose file's k3s nodes, as they are: k3s runs its control plane inside the
    server's process, so there is no kubeadm control-plane node with static pods beside them
    (a bootstrap's `kubectl label node --all` or `items[0]` sees just these nodes)."""
    groups = []
    for node in env.nodes:
        group: dict = {"name": node.name}
        labels = (K3S_SERVER_LABELS if node.server else {}) | node.labels
        if labels:
            group["labels"] = labels
        if node.taints:
            group["taints"] = [_taint(t) for t in node.taints]
        groups.append(group)
    return {"nodes": groups, "control_plane": False}


def _taint(text: str) -> dict:
    key_value, _, effect = text.partition(":")
    key, _, value = key_value.partition("=")
    return {"key": key, "value": value or None, "effect": effect or "NoSchedule"}


def _canary(spec: dict, name: str) -> str:
    found = re.search(
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        str((spec.get("metadata") or {}).get("canary", "")),
    )
    return found.group(0) if found else str(uuid.uuid5(uuid.NAMESPACE_URL, f"harbor:{name}"))


def kubeproof_fields(
    spec: dict, env: Environment, account: str, ns: list[str], wanted: list[str], docs: list
) -> dict:
    task, meta = spec.get("task") or {}, spec.get("metadata") or {}
    keywords = [str(k) for k in task.get("keywords") or []]
    # infra-bench: keywords[0] is "kubernetes", keywords[1] the coverage area
    area = keywords[1] if len(keywords) > 1 else str(task.get("category") or "harbor")
    difficulty = str(meta.get("difficulty", "medium"))
    agent_sec = float((spec.get("agent") or {}).get("timeout_sec", 600))
    build_sec = float((spec.get("environment") or {}).get("build_timeout_sec", 600))
    tags = ["harbor", *(k for k in keywords if k != area)]
    if meta.get("scenario_type"):
        tags.append(str(meta["scenario_type"]))
    mounts = {
        inside: source if source == "scratch" else f"compose/{source}"
        for inside, source in env.bootstrap_mounts.items()
    }
    workdir = _copied_workdir(env.bootstrap_image)
    if workdir and workdir not in mounts:  # what its Dockerfile copied there (read-only)
        mounts[workdir] = "bootstrap/workspace"
    return {
        "title": str(task.get("description") or task.get("name"))[:200],
        "area": area,
        "difficulty": difficulty if difficulty in DIFFICULTIES else "medium",
        "tags": list(dict.fromkeys(tags)),
        "canary": _canary(spec, str(task.get("name"))),
        "max_steps": MAX_STEPS,
        "setup_timeout_sec": max(build_sec, 600.0),
        # Harbor cuts no single command: only the agent's whole turn
        "command_timeout_sec": min(agent_sec, 3600.0),
        "broken_by_setup": True,
        "agent_service_account": account,
        "namespaces": ns,
        "setup_mounts": mounts,
        "workdir": env.agent_image.workdir or "/app",
        # Harbor runs tests/ in the agent's container, with its kubeconfig (infra-bench's
        # agent ServiceAccount): a check such as `kubectl auth can-i delete pods` is the
        # agent's permission, never an admin's
        "verifier_credentials": "agent",
        "nodes": {"profile": "nodes.yaml"},
        "addons": wanted,
        "controllers": controllers(docs),
        "allowed_deletions": agent_deletions(docs, account),
    }


def import_task(src: Path, out_root: Path) -> Imported:
    """One Harbor task into `out_root`/<its directory name>; never raises for the task's
    own faults (they are the refusal's reason)."""
    name = src.name
    try:
        spec = tomllib.loads((src / "task.toml").read_text())
        name = str((spec.get("task") or {}).get("name") or src.name)
        if "kubeproof" in spec:
            raise Refusal("already has a [kubeproof] section")
        for needed in ("instruction.md", "solution/solve.sh", "tests/test.sh"):
            if not (src / needed).is_file() or (src / needed).is_symlink():
                raise Refusal(f"no {needed}")
        gpus = int((spec.get("environment") or {}).get("gpus", 0) or 0)
        env = read_environment(src / "environment", gpus)
        env_dir = src / "environment"
        mounted = [env_dir / s for s in env.bootstrap_mounts.values() if s != "scratch"]
        docs = manifests(mounted)
        scripts = "".join(
            p.read_text(errors="replace")
            for c in env.bootstrap_image.copies
            for s in c.sources
            for p in ([env_dir / s] if (env_dir / s).is_file() else (env_dir / s).glob("*"))
            if p.is_file() and not p.is_symlink()
        )
        account = agent_account(docs, scripts)
        fields = kubeproof_fields(spec, env, account, namespaces(docs), addons(env, docs), docs)
    except Refusal as exc:
        return Imported(source=str(src), name=name, imported=False, reason=str(exc))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        reason = f"unreadable: {type(exc).__name__}: {str(exc)[:100]}"
        return Imported(source=str(src), name=name, imported=False, reason=reason)
    out = out_root / src.name
    notes = [agent_rbac(docs, account), *env.notes]
    if out.exists():
        shutil.rmtree(out)
    _write(src, out, spec, env, fields, notes)
    return Imported(source=str(src), name=name, imported=True, out=str(out), notes=notes)


def _write(src: Path, out: Path, spec: dict, env: Environment, fields: dict, notes: list):
    env_dir, target = src / "environment", out / "environment"
    _copy_tree(src / "solution", out / "solution", notes)
    _copy_tree(src / "tests", out / "tests", notes)
    shutil.copy2(src / "instruction.md", out / "instruction.md")
    for source in {s for s in env.bootstrap_mounts.values() if s != "scratch"}:
        _copy_tree(env_dir / source, target / "compose" / source, notes)
    _image_files(env.bootstrap_image, env_dir, target / "bootstrap", notes)
    _image_files(env.agent_image, env_dir, target, notes)
    (target / "workspace").mkdir(parents=True, exist_ok=True)
    (target / "setup.sh").write_text(setup_script(env))
    (target / "nodes.yaml").write_text(yaml.safe_dump(nodes_profile(env), sort_keys=False))
    text = (src / "task.toml").read_text()
    (out / "task.toml").write_text(text.rstrip("\n") + "\n\n" + kubeproof_section(fields))


def import_all(sources: list[Path], out_root: Path) -> Summary:
    """Every Harbor task at or below `sources` (a task, or a dataset of them)."""
    out_root.mkdir(parents=True, exist_ok=True)
    results = [import_task(src, out_root) for src in discover(sources)]
    reasons: dict[str, int] = {}
    for r in results:
        if r.reason:
            reasons[r.reason] = reasons.get(r.reason, 0) + 1
    ok = sum(r.imported for r in results)
    return Summary(imported=ok, refused=len(results) - ok, reasons=reasons, tasks=results)
