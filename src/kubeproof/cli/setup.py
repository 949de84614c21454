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
    _sandbox_line()


def _sandbox_line() -> None:
    from kubeproof.agents import preflight

    failed = [c for c in preflight.checks() if c.required and not c.ok]
    if failed:
        console.print(
            "[red]the agent sandbox cannot run here[/red] (no trial will): "
            + "; ".join(f"{c.name}: {c.detail}" for c in failed)
            + " — see `kubeproof doctor`",
            highlight=False,
        )
    else:
        console.print("agent sandbox: ready (`kubeproof doctor` for details)")


def doctor(
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """Check that this machine gives the agent sandbox what it needs.

    The sandbox needs root (the harness makes its network namespace and gives the agent a
    host uid of its own), bubblewrap and util-linux, user namespaces, seccomp, and a probe
    command that sees uid 1000, no capabilities, no_new_privs, a seccomp filter and no
    route. cgroups (memory, pids) are used where writable, rlimits otherwise. Exits 1 when
    something required is missing: trials then refuse to run rather than run unsafely.
    """
    from kubeproof.agents import preflight

    found = preflight.checks()
    data = [
        {"check": c.name, "ok": c.ok, "required": c.required, "detail": c.detail} for c in found
    ]
    if not emit(data, output):
        for c in found:
            mark = (
                "[green]ok[/green]"
                if c.ok
                else ("[red]no[/red]" if c.required else "[yellow]--[/yellow]")
            )
            console.print(f"{mark}  {c.name}: {c.detail}", highlight=False)
    if any(c.required and not c.ok for c in found):
        raise typer.Exit(1)


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
