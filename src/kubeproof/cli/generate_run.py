"""`kubeproof generate run`: single-shot agents on generated tasks, judged S0-S4 on a live
apiserver, into a run directory that `kubeproof runs` and `kubeproof report` read
(docs/generate.md, "Agents and scores")."""

from datetime import UTC, datetime
from pathlib import Path

import typer
from rich.markup import escape

from kubeproof.agents.spec import AgentsFile, parse
from kubeproof.cli import report
from kubeproof.cli.output import Format, console, emit, stderr
from kubeproof.cli.run import ERRORED, MARK, default_out, summary_errors, warn
from kubeproof.cli.tasks_prove import (
    CLUSTER,
    IDS,
    JOBS,
    LIMIT,
    RECYCLE,
    SEED,
    SUITE,
    TASKS_DIR,
    judge_clusters,
    select_tasks,
)
from kubeproof.cli.track_tables import generate_table
from kubeproof.errors import KubeproofError
from kubeproof.evidence import keys
from kubeproof.generate import agentic as agentic_agent
from kubeproof.generate import single_shot, trials
from kubeproof.generate.judge_cache import JudgeCache
from kubeproof.generate.llm_judge import PROMPT_VERSION, LLMJudge
from kubeproof.generate.task import GENERATOR_VERSION
from kubeproof.results import GenerateRun, RunPaths, RunResult, TrialResult, Weights
from kubeproof.results.db import ENV as DB_ENV
from kubeproof.results.db import Landing
from kubeproof.results.stats.generate_track import GenerateTables, tables
from kubeproof.runner.run import write_run

app = typer.Typer(
    help="The generate track: agents write manifests for generated tasks, judged in stages "
    "on a live apiserver (docs/generate.md). Tasks: `kubeproof tasks generate|suites|prove`.",
    no_args_is_help=True,
)


def _weights(text: str) -> Weights:
    try:
        ev, ov, tu = (float(x) for x in text.split(","))
        return Weights(ev=ev, ov=ov, tu=tu)
    except ValueError as exc:
        raise KubeproofError(
            f"--weights {text!r}: expected three numbers W1,W2,W3 >= 0", hint="e.g. 0.4,0.3,0.3"
        ) from exc


@app.command("run")
def run(
    suite: str = SUITE,
    seed: int = SEED,
    limit: int | None = LIMIT,
    ids: list[str] = IDS,
    folder: Path | None = TASKS_DIR,
    agents: list[str] = typer.Option(
        ["oracle"],
        "--agent",
        "-a",
        help=f"Agent spec, repeatable: {', '.join(single_shot.KINDS)} or a model agent of "
        "the agents file. `oracle` answers with the reference, `noop` with nothing.",
    ),
    agents_file: Path = typer.Option(
        None,
        "--agents-file",
        help="TOML file of named agents and prices (default: ./kubeproof-agents.toml if "
        "present). API keys come only from the environment.",
    ),
    prompt: str = typer.Option(
        "full",
        "--prompt",
        help="Prompt variant: `full` (with the scenario), `simplified` or `terse` (operator "
        "shorthand).",
    ),
    agentic: bool = typer.Option(
        False,
        "--agentic",
        help="Model agents explore before they answer: as the evaluation identity, on the "
        "judge cluster with the task's fixtures, they may run kubectl commands that read and "
        "try manifests with a server-side dry run (nothing changes), then submit, within "
        "their max_turns (default 8). Oracle and noop answer as usual.",
    ),
    weights: str = typer.Option(
        "1,1,1",
        "--weights",
        help="W1,W2,W3 of the composite P = w1*Ev + w2*Ov + w3*Tu (KubeBench's shape); P is "
        "over the terms present: Tu is absent, never imputed, when no judge gave a score.",
    ),
    judge: str = typer.Option(
        None,
        "--judge",
        help="S5: a model agent spec (llm:URL#MODEL, llm:openai/MODEL, anthropic:MODEL, "
        "local:MODEL or the agents file's) that reviews every answer passing S0 and gives "
        "flags and a quality Tu in [0, 1], at temperature 0. It never changes a stage's "
        "verdict or strict pass; its tokens and cost are recorded apart from the agent's.",
    ),
    judge_cache: Path = typer.Option(
        None,
        "--judge-cache",
        help="The judge's verdicts by content hash, so a re-run asks nothing again (default: "
        "cache/generate-judge beside the run directory).",
    ),
    jobs: int = JOBS,
    recycle_every: int = RECYCLE,
    cluster: str = CLUSTER,
    out: Path = typer.Option(None, "--out", help="Run directory (default runs/gen-<UTC time>)."),
    evidence_key: Path = typer.Option(
        None, "--evidence-key", help="Ed25519 key (PEM) that signs the run's summary."
    ),
    db: str = typer.Option(
        None,
        "--db",
        help=f"Results database: a PostgreSQL URL or an SQLite file. Default: ${DB_ENV}, "
        "else kubeproof.db beside the run directory.",
    ),
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """Ask each agent once per task for the manifests (one prompt variant) and judge every
    answer S0-S4 on a live apiserver: S0 extract, S1 schema, S2 apply as the evaluation
    identity (Ev), S3 expected objects (Ov), S4 typed checks and permission matrices (Acc).
    A trial scores 1 on a strict pass (S2, S3 and S4). Writes run.json and, per trial,
    trial.json, answer.txt, verifier.log and, for model agents, transcript.json and
    turns.jsonl; lands in the results database. Prints the track's leaderboard (`-o json`:
    run.json's content and the track's tables as `generate_summary`, as the report shows
    them). Exits 1 if any trial ended in `error`."""
    if prompt not in single_shot.VARIANTS:
        raise KubeproofError(f"--prompt {prompt!r}", hint=f"use {', '.join(single_shot.VARIANTS)}")
    scores = _weights(weights)
    named = AgentsFile.load(agents_file)
    specs = trials.distinct_labels([parse(a, named) for a in agents])
    answerers = {
        s.label: agentic_agent.answerer(s, prompt) if agentic else single_shot.answerer(s)
        for s in specs
    }
    quiet = output is not Format.text
    tasks = select_tasks(suite, seed, limit, ids, folder)
    if not tasks:
        raise KubeproofError("no tasks selected")
    out = out or default_out("gen-")
    cache = JudgeCache(judge_cache or out.parent / "cache" / "generate-judge")
    llm_judge = LLMJudge(parse(judge, named), cache) if judge else None
    out.mkdir(parents=True, exist_ok=True)
    key = keys.load_signing_key(evidence_key)
    start, given, workers = judge_clusters(cluster, jobs, tasks)
    meta = {
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "agents": agents,
        "agents_file": str(named.path) if named.path else None,
        "tasks": [t.id for t in tasks],
        "repeats": 1,
        "jobs": workers,
        "cluster": cluster,
        "dir": str(out),
        "generate": GenerateRun(
            prompt=prompt,
            suite=None if ids or folder else suite,
            seed=None if ids or folder else seed,
            generator_version=GENERATOR_VERSION,
            weights=scores,
            judge=judge,
            mode="agentic" if agentic else "single-shot",
            judge_prompt_version=PROMPT_VERSION if judge else None,
        ).record(),
        "evidence": {
            "fingerprint": keys.fingerprint(key),
            "public_key": keys.public_pem(key).decode(),
            "key_source": keys.key_source(evidence_key),
        },
    }
    planned = RunResult.model_validate(meta)
    planned.write(RunPaths(out).plan)
    landing = Landing.open(db, out, planned, warn)
    if not quiet:  # a model's answers are asked for before any judging: say how far
        answerers = {k: _announced(k, a, len(tasks)) for k, a in answerers.items()}

    def done(result: TrialResult) -> None:
        if not quiet:
            mark = MARK.get(result.verdict or "", "[yellow]![/]")
            stderr.print(
                f"{mark} {result.task} {result.agent}: {result.verdict} — "
                f"{escape(result.reason or '')}",
                highlight=False,
            )
        if landing is not None:
            landing.trial(result)

    plan = trials.Plan(
        tasks, specs, prompt, out, scores, workers, start, given, recycle_every, llm_judge
    )
    try:
        records = trials.run(plan, answerers, done)
    finally:
        from kubeproof.agents.llm import local

        local.stop_all()  # a `local:` model's server ends with the run
        if given is not None:
            given.stop()
    result = write_run(out, meta, records, key)
    if landing is not None:
        landing.finish(result)
    report.after_run(out, warn)
    summary = tables((r.agent, r) for r in records)
    figures = {"generate_summary": summary.model_dump(mode="json") if summary else None}
    if not emit(result.record() | figures, output):
        _print(result, records, summary)
    if summary_errors(result):
        raise typer.Exit(ERRORED)


def _announced(label: str, answerer, total: int):
    """The answerer, printing a line per answer a model gave (asking them all comes first
    and takes minutes); oracle, noop and agentic agents are left as they are."""
    if getattr(answerer, "explores", False) or not isinstance(answerer, single_shot.ModelAnswerer):
        return answerer
    asked = 0

    def ask(task, variant):
        nonlocal asked
        answer = answerer(task, variant)
        asked += 1
        what = f"error: {answer.error}" if answer.error else f"{answer.seconds:.1f}s"
        stderr.print(f"· {label} answered {asked}/{total}: {task.id} ({escape(what)})")
        return answer

    return ask


def _print(result: RunResult, records: list[TrialResult], summary: GenerateTables | None) -> None:
    """The track's leaderboard (results/stats/generate_track.py, as the report shows it)."""
    if summary is not None:
        console.print(generate_table([(r.agent, r) for r in records], summary))
    errors = result.summary.total.errors
    console.print(f"run directory: {result.dir}" + (f" ({errors} errors)" if errors else ""))
