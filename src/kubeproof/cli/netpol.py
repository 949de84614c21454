"""`kubeproof netpol`: the network-policy track (docs/netpol.md) — a generated task shown,
and agents run on generated tasks on a live embedded cluster, into a run directory that
`kubeproof runs` and `kubeproof report` read."""

from pathlib import Path

import typer
from rich.markup import escape

from kubeproof.cli import report
from kubeproof.cli.output import Format, console, emit, stderr
from kubeproof.cli.run import ERRORED, MARK, default_out, summary_errors, warn
from kubeproof.cli.track_tables import netpol_table
from kubeproof.errors import KubeproofError
from kubeproof.evidence import keys
from kubeproof.results import TrialResult

app = typer.Typer(
    help="The netpol track: seeded NetworkPolicy faults on real topologies, a mismatch "
    "report after every command, correctness, two safeties, iterations (docs/netpol.md).",
    no_args_is_help=True,
)
OUTPUT = typer.Option(Format.text, "--output", "-o", help="Output format.")


def _ids(suite: str | None, ids: list[str], per_type: int, seed: int) -> list[str]:
    from kubeproof.netpol import tasks

    if ids and suite:
        raise KubeproofError("give --suite or --id, not both")
    if ids:
        for task_id in ids:
            tasks.parse_id(task_id)
        return ids
    try:
        return tasks.suite(suite or "netarena-k8s", per_type, seed)
    except KeyError as exc:
        raise KubeproofError(str(exc.args[0]), hint=f"suites: {', '.join(tasks.SUITES)}") from exc


@app.command("task")
def task(
    task_id: str = typer.Argument(
        ..., help="netpol/v1/<topology>/<variant>/<profile>/<kind>[+<kind>]/<seed>"
    ),
    output: Format = OUTPUT,
) -> None:
    """Generate a task from its id and show it: its faults with their root causes, the
    intent the agent reads, the broken state's mismatch report and the oracle's commands."""
    from kubeproof.netpol import materialize, report, tasks, topology

    try:
        t = tasks.generate(task_id)
    except ValueError as exc:
        raise KubeproofError(str(exc)) from exc
    if emit(t.model_dump(mode="json"), output):
        return
    tp = topology.load(t.topology)
    broken = report.compute(tp, materialize.materialize(t.objects), t.profile)  # type: ignore[arg-type]
    lines = [f"[bold]{t.id}[/]"]
    for f in t.faults:
        causes = ", ".join(
            f"{c.kind}/{c.namespace or ''}/{c.name} {c.field}" for c in f.root_causes
        )
        lines.append(f"fault {f.kind}: {escape(f.description)} (root cause: {escape(causes)})")
    lines += ["", escape(t.intent), escape(broken.text()), "oracle:"]
    lines += [f"  {escape(c)}" for c in t.fix.commands]
    console.print("\n".join(lines), highlight=False, soft_wrap=True)


@app.command("run")
def run(
    suite: str = typer.Option(
        None, "--suite", help="A suite of task ids (default netarena-k8s: NetArena's 15 types)."
    ),
    ids: list[str] = typer.Option([], "--id", help="These task ids instead (repeatable)."),
    per_type: int = typer.Option(1, "--per-type", min=1, help="Suite: tasks per fault type."),
    seed: int = typer.Option(0, "--seed", min=0, help="Suite: the first seed."),
    agents: list[str] = typer.Option(
        ["oracle"],
        "--agent",
        "-a",
        help="Agent spec, repeatable: oracle (the faults' inverse), noop, allow-all (a "
        "correct-but-unsafe shortcut), or any agent spec (`kubeproof agents`): an agent program "
        "(`cli`, `human`) gets the report after each of its kubectl calls, in operator mode.",
    ),
    mode: str = typer.Option(
        "operator",
        "--mode",
        help="`operator` (any kubectl the agent's RBAC allows) or `netarena` (NetArena's "
        "block-list, 10 commands, 10 s each).",
    ),
    cap: int = typer.Option(
        None, "--cap", min=1, help="Iteration cap (default: 30 operator, 10 netarena)."
    ),
    explain: bool = typer.Option(
        None,
        "--explain/--no-explain",
        help="Give each mismatch netsim's reason (default: on in operator mode, off in "
        "netarena mode, as NetArena's report has none).",
    ),
    prompt: str = typer.Option(
        "zeroshot_base",
        "--prompt",
        help="The first turn's variant, as NetArena names its four: zeroshot_base, "
        "zeroshot_cot (asked to reason before each command), fewshot_base (a worked fix on "
        "another application), fewshot_cot (both).",
    ),
    time_budget: float = typer.Option(900, "--time-budget", min=1, help="Seconds per turn."),
    out: Path = typer.Option(None, "--out", help="Run directory (default runs/netpol-<UTC>)."),
    evidence_key: Path = typer.Option(
        None, "--evidence-key", help="Ed25519 key (PEM) that signs the run's summary."
    ),
    output: Format = OUTPUT,
) -> None:
    """Run each agent on each task, one after another on one embedded cluster: the task's
    broken objects applied, the intent and the current mismatch report on the first turn,
    a report from the live objects after every command, until the matrix equals the intent,
    the agent submits or the cap. Writes run.json and per trial trial.json (with `netpol`:
    correctness, both safeties, iterations), trajectory.jsonl and verifier.log (every
    report). Prints per agent and fault type correctness, NetArena's safety, ours and
    iterations, agents in NetArena's leaderboard order (`-o json`: run.json's content and
    these rows as `netpol_summary`). Exits 1 if any trial ended in `error`."""
    from kubeproof.netpol import agents as reference
    from kubeproof.netpol import run as netpol_run
    from kubeproof.netpol.loop import MODES
    from kubeproof.netpol.prompts import VARIANTS
    from kubeproof.netpol.trial import Settings
    from kubeproof.runner.run import write_run

    if mode not in MODES:
        raise KubeproofError(f"--mode {mode!r}", hint=f"use {', '.join(MODES)}")
    task_ids = _ids(suite, ids, per_type, seed)
    specs = [reference.spec(a) for a in agents]
    for s in specs:
        reference.refuse_in_mode(s, mode)
    if prompt not in VARIANTS:
        raise KubeproofError(f"--prompt {prompt!r}", hint=f"use {', '.join(VARIANTS)}")
    settings = Settings(
        mode=mode,  # type: ignore[arg-type]
        cap=cap,
        explain=explain,
        time_budget=time_budget,
        prompt=prompt,  # type: ignore[arg-type]
    )
    out = out or default_out("netpol-")
    out.mkdir(parents=True, exist_ok=True)
    key = keys.load_signing_key(evidence_key)
    meta = netpol_run.meta(task_ids, agents, out, "embedded")
    quiet = output is not Format.text

    def done(result: TrialResult) -> None:
        if not quiet:
            mark = MARK.get(result.verdict or "", "[yellow]![/]")
            stderr.print(
                f"{mark} {result.task} {result.agent}: {escape(result.reason or '')}",
                highlight=False,
            )

    records = netpol_run.run(task_ids, specs, out, settings, on_done=done)
    result = write_run(out, meta, records, key)
    report.after_run(out, warn)
    from kubeproof.netpol.summary import summarize

    summary = [r.model_dump(mode="json") for r in summarize(records)]
    if not emit(result.record() | {"netpol_summary": summary}, output):
        _print(records)
        console.print(f"run directory: {out}", highlight=False)
    if summary_errors(result):
        raise typer.Exit(ERRORED)


def _print(records: list[TrialResult]) -> None:
    """Per agent (NetArena's leaderboard order) and per fault type: the rows the report
    shows (results/stats/netpol_track.py)."""
    from kubeproof.netpol.summary import summarize

    console.print(netpol_table(summarize(records)))
