"""`kubeproof setup`: build the control plane and prepare warm starts."""

import time

import typer
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from kubeproof.cli.output import Format, console, emit
from kubeproof.cluster import build, snapshot
from kubeproof.cluster.binaries import bin_dir, missing_binaries
from kubeproof.cluster.versions import versions


def setup(
    force: bool = typer.Option(False, "--force", help="Rebuild even what is already built."),
    warm: bool = typer.Option(
        True,
        "--snapshot/--no-snapshot",
        help="Boot one cluster to save the golden snapshot that makes later starts warm.",
    ),
) -> None:
    """Build the control plane into the cache and save a warm-start snapshot.

    Builds etcd, etcdutl, kube-apiserver, kube-controller-manager, kube-scheduler and a
    version-matched kubectl from the Go module proxy.

    Needs Go >= 1.26. The first build takes 15-30 minutes on 2 cores; Go's module and
    build caches are kept, so later builds take seconds. Already-built binaries of the
    right version are skipped.
    """
    v = versions()
    console.print(f"Kubernetes {v.kubernetes}, etcd {v.etcd} -> {bin_dir()}")
    started = time.monotonic()
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task("checking", total=None)

        def on_step(step: build.BuildStep, index: int, total: int) -> None:
            progress.update(
                task,
                description=f"building {step.binary} {step.version}",
                total=total,
                completed=index - 1,
            )

        def on_done(step: build.BuildStep, seconds: float) -> None:
            progress.console.print(f"  built {step.binary} in {seconds:.0f}s")
            progress.advance(task)

        steps = build.build(force=force, on_step=on_step, on_done=on_done)
        progress.update(task, description="binaries ready", total=1, completed=1)
    if not steps:
        console.print("all binaries already built at the right version")
    if warm and (force or not snapshot.usable()):
        from kubeproof.cluster import EmbeddedCluster

        if force:
            snapshot.discard()
        name = f"setup-{int(time.time())}"
        with (
            console.status("booting a cluster for the golden snapshot"),
            EmbeddedCluster(name=name, warm=False),
        ):
            pass
        console.print("golden snapshot saved: clusters now start warm")
    console.print(f"setup done in {time.monotonic() - started:.0f}s")


def version(
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """Print kubeproof's version, the control-plane versions and where the binaries are."""
    from kubeproof import __version__

    v = versions()
    data = {
        "kubeproof": __version__,
        "kubernetes": v.kubernetes,
        "etcd": v.etcd,
        "binDir": str(bin_dir()),
        "built": not missing_binaries(),
        "warmSnapshot": snapshot.usable(),
    }
    if not emit(data, output):
        for key, value in data.items():
            console.print(f"{key}: {value}", highlight=False)
