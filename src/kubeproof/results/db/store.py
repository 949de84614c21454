"""Runs and trials into the database and back out, one transaction per change.

A trial is written when it finishes, in a transaction of its own: a run killed later keeps
it. Writing a trial again (a retried or resumed trial, a run imported again) replaces its
rows, so the database always says what the files say.
"""

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from kubeproof.bulk import collector_paused
from kubeproof.errors import NotFoundError
from kubeproof.results.db import rows
from kubeproof.results.db.connect import DatabaseError
from kubeproof.results.db.filters import TrialFilter
from kubeproof.results.db.schema import checks, runs, trial_tags, trials
from kubeproof.results.run import RunResult
from kubeproof.results.trial import TrialResult

FEW = 100  # trials whose ids are read back by name; more: every id of the run, filtered here


class Store:
    def __init__(self, engine: Engine):
        self.engine = engine

    # -- writing ---------------------------------------------------------------------

    def save_run(self, name: str, directory: str, run: RunResult) -> int:
        """Insert or update the run named `name`; its id. A different run of that name (it
        started at another time) is refused: rename one directory, or drop the other."""
        row = rows.run_row(name, directory, run)
        with self.engine.begin() as conn:
            return self._upsert_run(conn, row)

    def _upsert_run(self, conn: Connection, row: dict) -> int:
        found = conn.execute(
            sa.select(runs.c.id, runs.c.started_at).where(runs.c.name == row["name"])
        ).first()
        if found is None:
            return int(conn.execute(sa.insert(runs).values(row).returning(runs.c.id)).scalar_one())
        if found.started_at and row["started_at"] and found.started_at != row["started_at"]:
            raise DatabaseError(
                f"the database already holds another run named {row['name']!r} "
                f"(started {found.started_at}, this one {row['started_at']})",
                hint="import it under another name (--name) or delete the other "
                "(kubeproof runs delete)",
            )
        conn.execute(sa.update(runs).where(runs.c.id == found.id).values(row))
        return int(found.id)

    def save_trial(self, run_id: int, rel: str, trial: TrialResult) -> None:
        with self.engine.begin() as conn:
            self._delete_trials(
                conn,
                sa.select(trials.c.id).where(trials.c.run_id == run_id, trials.c.dir == rel),
            )
            self._insert_trials(conn, run_id, [(rel, trial)])

    def import_run(
        self, name: str, directory: str, run: RunResult, found: Iterable[tuple[str, TrialResult]]
    ) -> int:
        """The run and all its trials, replacing what the database held of it, at once."""
        with self.engine.begin() as conn:
            run_id = self._upsert_run(conn, rows.run_row(name, directory, run))
            self._delete_trials(conn, sa.select(trials.c.id).where(trials.c.run_id == run_id))
            self._insert_trials(conn, run_id, list(found))
        return run_id

    def delete_run(self, name: str) -> None:
        with self.engine.begin() as conn:
            run_id = self._run_id(conn, name)
            self._delete_trials(conn, sa.select(trials.c.id).where(trials.c.run_id == run_id))
            conn.execute(sa.delete(runs).where(runs.c.id == run_id))

    def _delete_trials(self, conn: Connection, which: sa.Select) -> None:
        # explicit rather than ON DELETE CASCADE: SQLite enforces it only when asked to
        ids = which.scalar_subquery()
        conn.execute(sa.delete(checks).where(checks.c.trial_id.in_(ids)))
        conn.execute(sa.delete(trial_tags).where(trial_tags.c.trial_id.in_(ids)))
        conn.execute(sa.delete(trials).where(trials.c.id.in_(ids)))

    @collector_paused()  # thousands of rows: kubeproof.bulk
    def _insert_trials(
        self, conn: Connection, run_id: int, found: list[tuple[str, TrialResult]]
    ) -> None:
        """Insert the trials, their checks and tags in three batches (a run of 10,000 trials
        imports in about a second, not one round trip per row). The trials go in as one
        executemany without RETURNING: SQLite cannot return ids in parameter order from a
        multi-row insert, so SQLAlchemy would send one statement a row; their ids are read
        back in one query by the run's unique (run_id, dir) instead."""
        if not found:
            return
        conn.execute(
            sa.insert(trials), [rows.trial_row(run_id, rel, trial) for rel, trial in found]
        )
        wanted = {rel for rel, _ in found}
        query = sa.select(trials.c.id, trials.c.dir).where(trials.c.run_id == run_id)
        if len(wanted) <= FEW:  # a trial landing in a run of thousands reads its own id only
            query = query.where(trials.c.dir.in_(sorted(wanted)))
        ids: dict[str, int] = {r.dir: r.id for r in conn.execute(query) if r.dir in wanted}
        checked, tagged = [], []
        for rel, trial in found:
            checked += rows.check_rows(ids[rel], trial)
            tagged += rows.tag_rows(ids[rel], trial)
        if checked:
            conn.execute(sa.insert(checks), checked)
        if tagged:
            conn.execute(sa.insert(trial_tags), tagged)

    # -- reading ---------------------------------------------------------------------

    def _run_id(self, conn: Connection, name: str) -> int:
        found = conn.execute(sa.select(runs.c.id).where(runs.c.name == name)).scalar()
        if found is None:
            raise NotFoundError(
                f"no run named {name!r} in the database",
                hint="`kubeproof runs list` names them; `kubeproof runs import DIR` adds one",
            )
        return int(found)

    def has_run(self, name: str) -> bool:
        with self.engine.connect() as conn:
            return conn.execute(sa.select(runs.c.id).where(runs.c.name == name)).first() is not None

    def runs(self) -> list[dict[str, Any]]:
        """Every run, oldest first, with its trials counted."""
        counted = (
            sa.select(
                trials.c.run_id,
                sa.func.count().label("trials"),
                sa.func.sum(trials.c.score).label("score"),
                sa.func.count(sa.distinct(trials.c.agent_label)).label("agents"),
                sa.func.count(sa.distinct(trials.c.task)).label("tasks"),
            )
            .group_by(trials.c.run_id)
            .subquery()
        )
        query = sa.select(
            runs.c.name,
            runs.c.kind,
            runs.c.started_at,
            runs.c.ended_at,
            runs.c.timing,
            runs.c.dir,
            sa.func.coalesce(counted.c.trials, 0).label("trials"),
            sa.func.coalesce(counted.c.score, 0).label("score"),
            sa.func.coalesce(counted.c.agents, 0).label("agents"),
            sa.func.coalesce(counted.c.tasks, 0).label("tasks"),
        ).select_from(runs.outerjoin(counted, counted.c.run_id == runs.c.id))
        with self.engine.connect() as conn:
            found = [dict(r._mapping) for r in conn.execute(query)]
        return sorted(found, key=lambda r: (r["started_at"] or "", r["name"]))

    def run(self, name: str) -> dict[str, Any]:
        """The run's row (its `record` is run.json without the trial lines)."""
        with self.engine.connect() as conn:
            run_id = self._run_id(conn, name)
            return dict(conn.execute(sa.select(runs).where(runs.c.id == run_id)).one()._mapping)

    def trials(self, name: str, only: TrialFilter | None = None) -> list[dict[str, Any]]:
        """The run's trials (those `only` lets through) in a fixed order (task, agent,
        repeat), each with its `tags`. Sorted here, not by the database: PostgreSQL sorts text
        by its collation, SQLite by bytes, and both must give the same order."""
        conditions = only.conditions() if only else []
        with self.engine.connect() as conn:
            run_id = self._run_id(conn, name)
            found = [
                dict(r._mapping)
                for r in conn.execute(
                    sa.select(trials).where(trials.c.run_id == run_id, *conditions)
                )
            ]
            found.sort(key=lambda t: (t["task"], t["agent_label"], t["repeat"], t["dir"]))
            tags: dict[int, list[str]] = {}
            for row in conn.execute(
                sa.select(trial_tags.c.trial_id, trial_tags.c.tag)
                .join(trials, trials.c.id == trial_tags.c.trial_id)
                .where(trials.c.run_id == run_id)
                .order_by(trial_tags.c.tag)
            ):
                tags.setdefault(int(row[0]), []).append(str(row[1]))
        for t in found:
            t["tags"] = tags.get(t["id"], [])
        return found
