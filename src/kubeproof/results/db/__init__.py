"""The results database: every run's trials, queryable (SQLAlchemy Core, Alembic migrations).

SQLite in `<runs dir>/kubeproof.db` by default, PostgreSQL (or another SQLAlchemy URL) with
`--db URL` or $KUBEPROOF_DB. The run and trial files stay the record; the database is their
copy for listing, filtering, comparing and exporting (docs/results.md, "Database").
"""

from pathlib import Path

from kubeproof.results.db.connect import ENV, DatabaseError, engine, resolve, shown
from kubeproof.results.db.landing import Landing
from kubeproof.results.db.store import Store
from kubeproof.results.load import LoadedRun, load_run


def open_store(db: str | None, runs_dir: Path) -> Store:
    return Store(engine(resolve(db, runs_dir)))


def import_run(store: Store, directory: Path, name: str | None = None) -> LoadedRun:
    """Load a run directory into the database (again: its rows are replaced)."""
    loaded = load_run(directory)
    store.import_run(name or loaded.name, str(loaded.dir), loaded.run, loaded.trials)
    return loaded


__all__ = [
    "ENV",
    "DatabaseError",
    "Landing",
    "Store",
    "engine",
    "import_run",
    "open_store",
    "resolve",
    "shown",
]
