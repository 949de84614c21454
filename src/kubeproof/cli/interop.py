"""`kubeproof tasks import`: tasks of other benchmarks as kubeproof tasks (docs/interop.md)."""

from pathlib import Path

import typer

from kubeproof.cli.output import Format, console, emit
from kubeproof.errors import KubeproofError

app = typer.Typer(
    help="Import tasks written for other harnesses as kubeproof tasks.", no_args_is_help=True
)

HARBOR_HELP = """Import Harbor tasks whose environment brings up Kubernetes (a k3s service in
docker-compose.yaml and a bootstrap service running a script over manifests).

Each becomes a kubeproof task in OUT/NAME: the bootstrap runs as admin on the embedded
cluster (environment/setup.sh), the agent acts as the ServiceAccount the bootstrap made
for it, instruction.md is kept, solution/solve.sh is the oracle and tests/test.sh the shell
verifier (Harbor's reward file). Harbor's task.toml sections are kept as they are, with a
[kubeproof] section added. A task that cannot be imported is listed with its reason
(needs traefik, a GPU, ...), never dropped. Exit 1 if none was imported."""


@app.command("harbor", help=HARBOR_HELP)
def harbor(
    sources: list[Path] = typer.Argument(
        ..., help="Harbor task directories, or folders holding them (a dataset)."
    ),
    out: Path = typer.Option(..., "--out", help="Where the kubeproof tasks are written."),
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    from kubeproof.interop.harbor import import_all

    for source in sources:
        if not source.exists():
            raise KubeproofError(f"{source}: no such task or directory")
    summary = import_all(sources, out)
    if not emit(summary.model_dump(), output):
        for task in summary.tasks:
            if task.imported:
                console.print(f"[green]imported[/] {task.name} → {task.out}", highlight=False)
                for note in task.notes:
                    console.print(f"  note: {note}", highlight=False)
            else:
                console.print(f"[red]refused[/]  {task.name}: {task.reason}", highlight=False)
        total = summary.imported + summary.refused
        console.print(f"{summary.imported} of {total} imported, {summary.refused} refused")
        for reason, count in sorted(summary.reasons.items(), key=lambda kv: -kv[1]):
            console.print(f"  {count}: {reason}", highlight=False)
    if summary.imported == 0:
        raise typer.Exit(1)
