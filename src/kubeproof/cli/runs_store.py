"""What every `kubeproof runs` command that reads the results database shares: which
database, and which run a RUN argument names."""

from pathlib import Path

import typer

from kubeproof.errors import NotFoundError
from kubeproof.results.db import ENV, Store, import_run, open_store

DB = typer.Option(
    None,
    "--db",
    help=f"Results database: a PostgreSQL URL (postgresql://user@host/db) or an SQLite file. "
    f"Default: ${ENV}, else RUNS_DIR/kubeproof.db.",
)
RUNS_DIR = typer.Option(
    None,
    "--runs-dir",
    help="Where runs are written; its kubeproof.db is the default database. Default: the "
    "parent of a RUN given as a directory, else ./runs.",
)
WHERE = typer.Option(
    None,
    "--where",
    help="Only trials with FIELD=VALUE, repeatable (all must hold); FIELD is agent (its "
    "label), task (`*` a wildcard), track, area, difficulty, tag or verdict.",
)
RUN_HELP = (
    "A run: its name in the database (`kubeproof runs list`) or its directory (imported, "
    "or imported again, first)."
)


def store_for(db: str | None, runs_dir: Path | None, *runs: str) -> Store:
    """The database for these RUN arguments: --db, $KUBEPROOF_DB, --runs-dir, else the
    directory holding a RUN given as a path, else ./runs."""
    if runs_dir is None:
        dirs = [Path(r) for r in runs if Path(r).is_dir()]
        runs_dir = dirs[0].absolute().parent if dirs else Path("runs")
    return open_store(db, runs_dir)


def is_run_dir(path: Path) -> bool:
    return path.is_dir() and any((path / n).exists() for n in ("run.json", "plan.json", "trials"))


def named(store: Store, run: str) -> str:
    """The name in the database of the run RUN names; a directory is imported first, so
    what is shown is what its files say now."""
    path = Path(run)
    if is_run_dir(path):
        return import_run(store, path).name
    if store.has_run(run):
        return run
    raise NotFoundError(
        f"no run {run!r}: not in the database, and not a run directory",
        hint="`kubeproof runs list` names the runs in the database",
    )
