"""`kubeproof fidelity`: the fidelity suite, golden or live."""

from pathlib import Path

import typer
from rich.table import Table

from kubeproof.cli.output import Format, console, emit
from kubeproof.errors import KubeproofError

DIFFER = 1
BAD_INPUT = 2


def fidelity(
    kubeconfig: Path = typer.Option(
        None,
        "--kubeconfig",
        exists=True,
        dir_okay=False,
        help="Run the scenarios live against this cluster (through stock kubectl).",
    ),
    context: str = typer.Option(None, "--context", help="Kubeconfig context (with --kubeconfig)."),
    embedded: bool = typer.Option(
        False, "--embedded", help="Start an embedded cluster (one simulated node) and run live."
    ),
    scenario: list[str] = typer.Option(
        None, "--scenario", "-s", help="Run only this scenario (repeatable)."
    ),
    files: list[Path] = typer.Option(
        None,
        "--file",
        "-f",
        exists=True,
        dir_okay=False,
        help="Scenario file(s) to use instead of the shipped suite (repeatable).",
    ),
    timing: str = typer.Option(
        "real",
        "--timing",
        help="Timing profile: `real` or `fast` (every kubelet duration / 10). Golden: the "
        "simulator's; --embedded: the cluster's; --kubeconfig: the one that cluster runs "
        "(`real` for any real cluster).",
    ),
    parallel: int = typer.Option(
        8, "--parallel", "-p", min=1, help="Live scenarios run at once (one namespace each)."
    ),
    list_only: bool = typer.Option(False, "--list", help="List the scenarios and exit."),
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """Check the simulated kubelet against what a real v1.36 kubelet shows.

    Each scenario (a pod, how long to watch it, what a kubelet shows meanwhile, and the
    upstream source line it follows) is judged observable by observable: events in order,
    status fields at a time or at the end, the time a deleted pod is gone.

    **Modes.** Default: *golden* — the node simulator on a fake clock, no cluster, times
    exact. `--kubeconfig FILE`: *live* against that cluster (any cluster: run it against a
    real one to check us); each scenario gets a namespace `kpf-…` of its own, removed after.
    `--embedded`: *live* against an embedded kubeproof cluster started for the run. Live
    times are judged in a window of ±(2 s + 20 %).

    **Exit codes.** 0: every observable matched. 1: some observable differs (or a live
    run failed). 2: bad input (an invalid scenario file, an unknown scenario, bad options).
    """
    from kubeproof.fidelity import runner
    from kubeproof.fidelity.scenario import ScenarioError, load, select
    from kubeproof.nodesim.timing import profile

    try:
        chosen = select(load(files or None), scenario or [])
        timing_profile = profile(timing)
    except ScenarioError:
        raise
    except KubeproofError as exc:
        exc.exit_code = BAD_INPUT
        raise
    if kubeconfig and embedded:
        raise _bad("--kubeconfig and --embedded exclude each other")
    if context and not kubeconfig:
        raise _bad("--context needs --kubeconfig")
    if list_only:
        rows = [
            {"name": s.name, "source": s.source, "live": s.live, "file": s.file} for s in chosen
        ]
        if not emit(rows, output):
            for row in rows:
                live = "" if row["live"] else "  (golden only)"
                console.print(f"{row['name']}  {row['source']}{live}", highlight=False)
        return

    def progress(result) -> None:
        if output is Format.text:
            mark = "[green]✓[/]" if result.ok else "[dim]-[/]" if result.skipped else "[red]✗[/]"
            console.print(f"{mark} {result.scenario} {result.matched}/{result.total}")

    if kubeconfig or embedded:
        from kubeproof.fidelity.live import Kubectl, run_live

        def live(config: Path, ctx: str | None):
            kubectl = Kubectl(config, ctx)
            return runner.run_all(
                chosen, lambda s: run_live(s, kubectl, timing_profile), parallel, progress
            )

        if embedded:
            from kubeproof.cluster import EmbeddedCluster

            with EmbeddedCluster(nodes=1, timing=timing_profile.name) as cluster:
                results = live(cluster.admin_kubeconfig, None)
        else:
            results = live(kubeconfig, context)
        mode = "live"
    else:
        results = runner.run_all(chosen, lambda s: runner.run_golden(s, timing_profile), 1)
        mode = "golden"
    report = summary(results, mode, timing_profile.name)
    if not emit(report, output):
        print_report(results, report)
    if report["differ"]:
        raise typer.Exit(DIFFER)


def _bad(message: str) -> KubeproofError:
    exc = KubeproofError(message)
    exc.exit_code = BAD_INPUT
    return exc


def summary(results, mode: str, timing: str) -> dict:
    ran = [r for r in results if not r.skipped]
    matched = sum(r.matched for r in ran)
    total = sum(r.total for r in ran)
    return {
        "mode": mode,
        "timing": timing,
        "scenarios": len(ran),
        "skipped": len(results) - len(ran),
        "scenariosMatched": sum(r.ok for r in ran),
        "observables": total,
        "observablesMatched": matched,
        "share": round(matched / total, 4) if total else 1.0,
        "differ": [r.scenario for r in ran if not r.ok],
        "results": [r.to_json() for r in results],
    }


def print_report(results, report: dict) -> None:
    for r in results:
        if r.ok or r.skipped:
            continue
        console.print(f"\n[bold]{r.scenario}[/] ({r.source}) {r.matched}/{r.total}")
        if r.known:
            console.print(f"  known simulator difference: {r.known.strip()}", highlight=False)
        if r.error:
            console.print(f"  [red]error:[/] {r.error}", highlight=False)
        table = Table("", "observable", "expected", "observed", box=None, show_header=False)
        for c in r.checks:
            if not c.matched:
                table.add_row("[red]✗[/]", c.what, str(c.expected), str(c.observed))
        console.print(table)
    console.print(
        f"\n{report['mode']} ({report['timing']}): {report['scenariosMatched']}/"
        f"{report['scenarios']} scenarios match; observables {report['observablesMatched']}/"
        f"{report['observables']} ({report['share']:.1%})"
        + (f"; {report['skipped']} skipped" if report["skipped"] else ""),
        highlight=False,
    )
