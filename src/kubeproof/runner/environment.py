"""Setting a task's stage as admin: the healthy system, then the break."""

import os
import subprocess

from kubeproof.cluster.base import Cluster, kubectl_binary
from kubeproof.errors import KubeproofError
from kubeproof.tasks import Task


def _kubectl_apply(cluster: Cluster, path, step: str) -> None:
    result = cluster.kubectl(
        "apply",
        "--server-side",
        "--force-conflicts",
        "--field-manager=kubeproof-setup",
        "-f",
        str(path),
        check=False,
    )
    if result.returncode != 0:
        raise KubeproofError(f"task setup failed at {step} ({path}): {result.stderr.strip()}")


def apply_environment(cluster: Cluster, task: Task) -> None:
    """Apply environment/setup/*.yaml, then the break (manifests or break.sh), as admin."""
    for manifest in task.setup:
        _kubectl_apply(cluster, manifest, "setup")
    for step in task.breaks:
        if step.suffix == ".sh":
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
        else:
            _kubectl_apply(cluster, step, "break")
