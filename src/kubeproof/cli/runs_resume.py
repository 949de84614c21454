"""`kubeproof runs resume RUN`: finish a run that was killed or had trials error."""

from pathlib import Path

import typer

from kubeproof.cli.output import Format, console, emit
from kubeproof.cli.run import ERRORED, run_plans, summary_errors, warn
from kubeproof.cli.runs_store import DB
from kubeproof.errors import KubeproofError
from kubeproof.evidence import keys
from kubeproof.results.db import Landing, open_store
from kubeproof.runner.resume import prepare
from kubeproof.runner.run import write_run


def _directory(run: str, db: str | None) -> Path:
    """A run directory, or a run's name in the database (its recorded directory)."""
    if Path(run).is_dir():
        return Path(run)
    found = Path(open_store(db, Path("runs")).run(run)["dir"])
    if not found.is_dir():
        raise KubeproofError(f"run {run}'s directory {found} is not here (import it again?)")
    return found


def resume(
    run: str = typer.Argument(..., help="The run's directory, or its name in the database."),
    jobs: int = typer.Option(
        None, "--jobs", "-j", min=1, help="Trials at once (default: the run's)."
    ),
    retries: int = typer.Option(
        2, "--retries", min=0, help="Retries of a trial that ends in `error`."
    ),
    agents_file: Path = typer.Option(
        None, "--agents-file", help="The agents file, if not where the run found it."
    ),
    evidence_key: Path = typer.Option(
        None, "--evidence-key", help="The key that signed the run (its fingerprint must match)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would run again; run nothing."),
    db: str = DB,
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """Re-run only the trials of a run that errored or never ran, then write run.json.

    The run's plan (plan.json, written when it started; run.json for older runs) is rebuilt
    as the run built it, so the same trial directories are filled; a trial that ended with a
    verdict is kept as it is, one with no trial.json, one cut short or one that ended in
    `error` runs again, signed with the run's key. The final run.json and database rows are
    what an uninterrupted run would have written. Exit codes: 0 done, 1 a trial still ended
    in `error` (or the run cannot be resumed)."""
    out = _directory(run, db)
    found = prepare(out, agents_file)
    todo = [
        {"dir": str(found.plans[i].dir), "trial": found.plans[i].name, "why": why}
        for i, why in found.todo.items()
    ]
    for w in found.warnings:
        warn(w)
    if dry_run:
        if not emit({"run": str(out), "kept": len(found.kept), "todo": todo}, output):
            console.print(f"{out}: {len(found.kept)} trial(s) kept, {len(todo)} to run again")
            for t in todo:
                console.print(f"  {t['trial']}: {t['why']}", highlight=False)
        return
    key = keys.load_signing_key(evidence_key)
    signed_by = found.run.evidence.fingerprint if found.run.evidence else None
    if signed_by and keys.fingerprint(key) != signed_by:
        raise KubeproofError(
            f"{out} was signed with key {signed_by}, not {keys.fingerprint(key)}",
            hint="pass the run's key with --evidence-key",
        )
    landing = Landing.open(db, out, found.run, warn)
    plans = [found.plans[i] for i in found.todo]
    run_ = found.run
    new = (
        run_plans(
            plans,
            run_.cluster or "embedded",
            jobs or run_.jobs or 1,
            retries,
            output is not Format.text,
            key,
            run_.timing or "real",
            landing,
        )
        if plans
        else []
    )
    records = found.merge(new)
    result = write_run(out, found.meta, records, key)
    if landing is not None:
        landing.finish(result, records)
    if not emit(result.record(), output):
        console.print(
            f"{out}: {len(found.kept)} kept, {len(new)} run again", highlight=False, soft_wrap=True
        )
    if summary_errors(result):
        raise typer.Exit(ERRORED)
