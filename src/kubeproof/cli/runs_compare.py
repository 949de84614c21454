"""`kubeproof runs compare A B`: is agent B really better than agent A?"""

from pathlib import Path

import typer
from rich.table import Table

from kubeproof.cli.output import Format, console, emit
from kubeproof.cli.runs_store import DB, RUN_HELP, RUNS_DIR, named, store_for
from kubeproof.errors import KubeproofError
from kubeproof.results.db import Store
from kubeproof.results.stats import Outcome
from kubeproof.results.stats import compare as paired_compare


def _agent(store: Store, name: str, agent: str | None, which: str) -> tuple[str, list[Outcome]]:
    outcomes = [Outcome.from_row(t) for t in store.trials(name)]
    agents = sorted({o.agent for o in outcomes})
    if agent is None:
        if len(agents) != 1:
            raise KubeproofError(
                f"run {name} has {len(agents)} agents ({', '.join(agents) or 'none'}): "
                f"name one with --agent-{which}"
            )
        agent = agents[0]
    if agent not in agents:
        raise KubeproofError(f"run {name} has no agent {agent!r} (it has {', '.join(agents)})")
    return f"{name}/{agent}", [o for o in outcomes if o.agent == agent]


def compare(
    a: str = typer.Argument(..., help="Run A, the baseline. " + RUN_HELP),
    b: str = typer.Argument(..., help="Run B (may be A again, with other agents)."),
    agent_a: str = typer.Option(None, "--agent-a", help="A's agent label, if A has several."),
    agent_b: str = typer.Option(None, "--agent-b", help="B's agent label, if B has several."),
    seed: int = typer.Option(0, "--seed", help="The bootstrap's random seed."),
    db: str = DB,
    runs_dir: Path = RUNS_DIR,
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """Compare agent B with agent A on the tasks both were judged on.

    Prints how many tasks each solved, McNemar's exact test on the tasks where they
    disagree (is the split a coin's?), a paired bootstrap 95 % interval of the difference
    in mean score B - A, and the same per track, area, difficulty and tag with Holm's
    correction, then a verdict in one sentence. Trust it when both ran the same task
    versions with the same timing profile (warnings say when not) and when enough tasks
    differ: with fewer than 6 disagreements no result can reach p < 0.05. docs/results.md,
    "Statistics". Exit codes: 0 compared (whatever the verdict), 1 a run or agent not
    found."""
    store = store_for(db, runs_dir, a, b)
    run_a, run_b = named(store, a), named(store, b)
    a_name, a_out = _agent(store, run_a, agent_a, "a")
    b_name, b_out = _agent(store, run_b, agent_b, "b")
    result = paired_compare(a_name, a_out, b_name, b_out, seed=seed)
    timing = store.run(run_a)["timing"], store.run(run_b)["timing"]
    if None not in timing and timing[0] != timing[1]:
        result.warnings.insert(
            0,
            f"the runs used different timing profiles ({timing[0]} vs {timing[1]}): "
            "their results are not comparable",
        )
    if emit(result.model_dump(), output):
        return
    t = Table(
        "SLICE",
        "TASKS",
        "A",
        "B",
        "ONLY A",
        "ONLY B",
        "B - A [95% CI]",
        "p",
        "p (Holm)",
        box=None,
        title=f"A = {a_name}, B = {b_name}",
    )
    for p in [result.overall, *result.slices]:
        ci = "" if p.ci_low is None else f" [{p.ci_low:+.2f}, {p.ci_high:+.2f}]"
        t.add_row(
            "all" if p.slice == "all" else f"{p.slice}={p.value}",
            str(p.tasks),
            str(p.a_passed),
            str(p.b_passed),
            str(p.only_a),
            str(p.only_b),
            ("-" if p.difference is None else f"{p.difference:+.2f}") + ci,
            f"{p.p_value:.3g}",
            "" if p.p_holm is None else f"{p.p_holm:.3g}",
        )
    console.print(t)
    for w in result.warnings:
        console.print(f"[yellow]warning:[/] {w}", highlight=False)
    if result.only_in_a or result.only_in_b:
        console.print(
            f"left out: {len(result.only_in_a)} task(s) judged for A only, "
            f"{len(result.only_in_b)} for B only",
            highlight=False,
        )
    console.print(f"[bold]{result.verdict}[/]", highlight=False)
