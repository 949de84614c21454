"""Setting a task's stage as admin: the healthy system, then the break.

Manifests are applied server-side from this process (no kubectl start-up per file), in
file order, with one field manager, so a break manifest takes over the fields it names.
Kinds the client library does not know (CRDs on external clusters) go through kubectl.
"""

import os
import subprocess
from pathlib import Path

from lightkube import ApiError, Client
from lightkube.codecs import load_all_yaml
from lightkube.core.exceptions import LoadResourceError

from kubeproof.cluster.addons import optional as optional_addon
from kubeproof.cluster.base import Cluster, kubectl_binary
from kubeproof.errors import KubeproofError
from kubeproof.tasks import Task

FIELD_MANAGER = "kubeproof-setup"


def apply_text(cluster: Cluster, client: Client, text: str, where: str) -> None:
    try:
        objects = load_all_yaml(text)
    except LoadResourceError:
        result = cluster.kubectl(
            "apply",
            "--server-side",
            "--force-conflicts",
            f"--field-manager={FIELD_MANAGER}",
            "-f",
            "-",
            input=text,
            check=False,
        )
        if result.returncode != 0:
            raise KubeproofError(f"{where}: {result.stderr.strip()}") from None
        return
    for obj in objects:
        try:
            client.apply(obj, field_manager=FIELD_MANAGER, force=True)
        except ApiError as exc:
            name = f"{obj.kind} {obj.metadata.name}"
            raise KubeproofError(f"{where}: {name}: {exc.status.message}") from exc


def _break_script(cluster: Cluster, task: Task, step: Path) -> None:
    env = os.environ | {
        "KUBECONFIG": str(cluster.admin_kubeconfig),
        "PATH": f"{os.path.dirname(kubectl_binary())}:{os.environ.get('PATH', '')}",
    }
    result = subprocess.run(
        ["bash", str(step.resolve())],
        cwd=task.root.resolve(),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode != 0:
        raise KubeproofError(
            f"task setup failed at break ({step}): "
            f"{(result.stderr or result.stdout).strip()[-500:]}"
        )


def apply_environment(cluster: Cluster, task: Task, client: Client | None = None) -> None:
    """Install the task's addons, apply environment/setup/*.yaml, run
    environment/setup.sh, then the break (manifests or break.sh), all as admin."""
    from kubeproof.runner.admin_shell import run_setup_script

    client = client or cluster.client()
    for addon in task.spec.kubeproof.addons:  # before the manifests that rely on them
        optional_addon(addon).install(client)
    for manifest in task.setup:
        apply_text(cluster, client, manifest.read_text(), f"task setup failed at {manifest}")
    run_setup_script(cluster, task)
    for step in task.breaks:
        if step.suffix == ".sh":
            _break_script(cluster, task, step)
        else:
            apply_text(cluster, client, step.read_text(), f"task break failed at {step}")
