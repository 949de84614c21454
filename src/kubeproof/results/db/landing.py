"""A run landing in the database as its trials finish (`kubeproof run`, `runs resume`).

The files are the record; the database is a copy for querying. So a database that fails
(a PostgreSQL server gone away, a locked SQLite file) never fails the run: the failure is
reported once, the run goes on, and `kubeproof runs import DIR` fills the database in later.
"""

import os
from collections.abc import Callable
from pathlib import Path

from kubeproof.results.db.connect import DatabaseError, engine, resolve, shown
from kubeproof.results.db.store import Store
from kubeproof.results.run import RunResult
from kubeproof.results.trial import TrialResult


def relative(trial_dir: str, out: Path) -> str:
    """A trial's directory relative to its run: `trials/<task>/<agent>/<repeat>` as
    RunPaths lays it out, whatever directory the run was started from."""
    parts = Path(trial_dir).parts
    if len(parts) >= 4 and parts[-4] == "trials":
        return "/".join(parts[-4:])
    return os.path.relpath(trial_dir, out)


class Landing:
    def __init__(self, store: Store, run_id: int, out: Path, warn: Callable[[str], None]):
        self.store = store
        self.run_id = run_id
        self.out = Path(out)
        self.warn = warn
        self.broken = False
        self.where = shown(store.engine.url)

    @classmethod
    def open(
        cls, db: str | None, out: Path, run: RunResult, warn: Callable[[str], None]
    ) -> "Landing | None":
        """Record the run (its plan, no trials yet) in the database for `out`; None (and a
        warning) if the database cannot be used."""
        try:
            store = Store(engine(resolve(db, Path(out).parent)))
            return cls(store, store.save_run(Path(out).name, str(out), run), out, warn)
        except Exception as exc:  # the files still hold the run
            warn(f"results database not used: {exc}; `kubeproof runs import {out}` adds it later")
            return None

    def _guard(self, what: str, action: Callable[[], object]) -> None:
        if self.broken:
            return
        try:
            action()
        except Exception as exc:
            self.broken = True
            message = str(exc) if isinstance(exc, DatabaseError) else f"{type(exc).__name__}"
            self.warn(
                f"results database {self.where} failed ({what}: {message}); the run goes on, "
                f"`kubeproof runs import {self.out}` adds it later"
            )

    def trial(self, result: TrialResult) -> None:
        rel = relative(result.dir, self.out)
        self._guard(rel, lambda: self.store.save_trial(self.run_id, rel, result))

    def finish(self, run: RunResult, trials: list[TrialResult] | None = None) -> None:
        """The run's end: run.json's summary and end time; with `trials`, every trial of the
        run too (a resumed run: trials kept from before may never have landed)."""
        if trials is None:
            self._guard("run.json", lambda: self.store.save_run(self.out.name, str(self.out), run))
            return
        found = [(relative(t.dir, self.out), t) for t in trials]
        self._guard(
            "run.json", lambda: self.store.import_run(self.out.name, str(self.out), run, found)
        )
