"""`kubeproof tasks prove`: generated tasks proven valid on a live cluster (docs/generate.md,
"Proving tasks"): the reference passes S0-S4, an empty answer fails S0, each mutant fails at
the stage it targets. Exit 1 on any generator bug or judge failure."""

import sys
from collections.abc import Callable
from pathlib import Path

import typer
from rich.table import Table

from kubeproof.cli.output import Format, console, emit, stderr
from kubeproof.cluster.base import Cluster
from kubeproof.errors import KubeproofError
from kubeproof.generate import store, suites
from kubeproof.generate.live.judge import LiveJudgement
from kubeproof.generate.live.prove import outcome, prove_offline
from kubeproof.generate.live.prove import prove as prove_tasks
from kubeproof.generate.live.workers import embedded, nodes_for
from kubeproof.generate.model import GeneratedTask
from kubeproof.generate.task import generate as make_task
from kubeproof.generate.task import parse_id

SHOWN_BUGS = 20


def select_tasks(
    suite: str, seed: int, limit: int | None, ids: list[str], folder: Path | None
) -> list[GeneratedTask]:
    if folder is not None:
        index = store.load_index(folder)
        chosen = [store.load(folder / i) for i in index["tasks"]]
        return chosen[:limit] if limit else chosen
    if ids:
        return [make_task(t, tier, s, op) for t, tier, op, s in map(parse_id, ids)]
    return list(suites.tasks(suite, seed, limit))


def judge_clusters(
    cluster: str, jobs: int, tasks: list[GeneratedTask]
) -> tuple[Callable[[], Cluster] | None, Cluster | None, int]:
    """How judge sessions get their clusters: (start one, or the one given; workers). An
    embedded one gets simulated nodes when the tasks carry runtime checks."""
    if cluster == "embedded":
        return embedded(nodes_for(tasks)), None, jobs
    if cluster.startswith("kubeconfig:"):
        from kubeproof.cluster import ExternalCluster

        path, _, context = cluster.removeprefix("kubeconfig:").partition("#")
        return None, ExternalCluster(Path(path), context or None).start(), 1
    raise KubeproofError(
        f"unknown cluster {cluster!r}", hint="use `embedded` or `kubeconfig:PATH[#CONTEXT]`"
    )


# the options `tasks prove` and `generate run` choose tasks and clusters with
SUITE = typer.Option(
    "kubebench-810", "--suite", help="Suite of the tasks (see `kubeproof tasks suites`)."
)
SEED = typer.Option(0, "--seed", min=0, help="Suite seed.")
LIMIT = typer.Option(
    None, "--limit", min=1, help="Only the first N tasks (spread over every type and tier)."
)
IDS = typer.Option([], "--id", help="These task ids instead (repeatable).")
TASKS_DIR = typer.Option(
    None, "--tasks", help="The tasks written by `kubeproof tasks generate --out DIR`."
)
JOBS = typer.Option(1, "--jobs", "-j", min=1, help="Workers, each with its own cluster.")
RECYCLE = typer.Option(
    500, "--recycle-every", min=0, help="Answers a cluster judges before it is replaced."
)
CLUSTER = typer.Option(
    "embedded",
    "--cluster",
    help="`embedded` (each worker starts its own) or `kubeconfig:PATH[#CONTEXT]` (one "
    "existing cluster, one worker; nothing recycled).",
)


def prove(
    suite: str = SUITE,
    seed: int = SEED,
    limit: int | None = LIMIT,
    ids: list[str] = IDS,
    folder: Path | None = TASKS_DIR,
    jobs: int = JOBS,
    recycle_every: int = RECYCLE,
    cluster: str = CLUSTER,
    offline: bool = typer.Option(
        False, "--offline", help="Judge with the offline judge, no cluster (S2 emulated only)."
    ),
    journal: Path | None = typer.Option(
        None,
        "--journal",
        help="Append each judgement to this file (JSON lines) as it is made. Run the same "
        "proof again with the same file and only the tasks it does not hold whole are "
        "judged: a long proof that is stopped loses nothing.",
    ),
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """Prove generated tasks on a live apiserver: the reference passes every stage, an empty
    answer fails S0 and every mutant fails at the stage it targets (exit 1 otherwise).
    Progress goes to stderr: a counter on a terminal, else a line every 100 answers and one
    for every answer judged otherwise than wanted."""
    tasks = select_tasks(suite, seed, limit, ids, folder)
    if offline:
        proof = prove_offline(tasks)
        if not emit(proof.model_dump(mode="json") | {"valid": proof.valid}, output):
            _print(proof)
        if not proof.valid:
            raise typer.Exit(1)
        return
    start, external, jobs = judge_clusters(cluster, jobs, tasks)
    total = sum(2 + len(t.mutants) for t in tasks)
    seen = 0

    tasks_by_id = {t.id: t for t in tasks}

    def progress(j: LiveJudgement) -> None:
        nonlocal seen
        seen += 1  # (on stderr with -o json too: a proof of hours must show it goes on)
        if sys.stderr.isatty():
            stderr.print(f"{seen}/{total} {j.task_id} {j.label}", end="\r")
            return
        found = outcome(tasks_by_id[j.task_id], j)
        if found.got != found.want or found.error:
            want = found.want.value if found.want else "pass"
            got = found.got.value if found.got else "pass"
            stderr.print(f"not as wanted: {j.task_id} {j.label}: want {want}, got {got}")
        if seen % 100 == 0:
            stderr.print(f"{seen} answers judged ({total} in the proof)")

    proof = prove_tasks(
        tasks,
        jobs,
        start=start,
        cluster=external,
        recycle_every=recycle_every,
        progress=progress,
        journal=journal,
    )
    if not emit(proof.model_dump(mode="json") | {"valid": proof.valid}, output):
        _print(proof)
    if not proof.valid:
        raise typer.Exit(1)


def _print(proof) -> None:
    table = Table("WHAT", "COUNT", box=None)
    table.add_row("tasks", str(proof.tasks))
    table.add_row("answers judged", str(proof.answers))
    table.add_row("references passing S0-S4", f"{proof.references_passed}/{proof.tasks}")
    table.add_row("empty answers failing S0", f"{proof.empties_failed_s0}/{proof.tasks}")
    table.add_row("mutants failing where they aim", f"{proof.mutants_caught}/{proof.mutants}")
    if proof.live_only:
        table.add_row("mutants only runtime truth catches (not judged)", str(proof.live_only))
    table.add_row("judge errors", str(proof.errors))
    console.print(table)
    ops = Table("OPERATOR", "CAUGHT", "MADE", box=None)
    for name, (caught, made) in proof.by_operator.items():
        ops.add_row(name, str(caught), str(made))
    console.print(ops)
    stages = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in proof.stage_seconds.items())
    who = f"{proof.workers} worker(s)" if proof.workers else "offline judge"
    console.print(f"{who}, {proof.seconds:.1f} s; per answer: {stages}")
    for bug in proof.bugs[:SHOWN_BUGS]:
        console.print(
            f"[red]BUG[/] {bug.task_id} {bug.label}: want {bug.want or 'pass'}, "
            f"got {bug.got or 'pass'}: {bug.reason}"
        )
    if len(proof.bugs) > SHOWN_BUGS:
        console.print(f"... and {len(proof.bugs) - SHOWN_BUGS} more (-o json lists all)")
    console.print("[green]valid[/]" if proof.valid else "[red]not valid[/]")
