"""The results database's tables (SQLAlchemy Core).

One row a run, one a trial, one a check/contract/safety result, one a tag of a trial.
Columns hold what people filter and aggregate by (agent, task, track, area, difficulty,
tags, verdict, score, safe, steps, time, tokens, cost); `record` holds the whole typed JSON
(trial.json, run.json without its trial lines), so nothing the files say is lost and a newer
field needs no migration to be kept.

Times are ISO 8601 strings as the files hold them (no time-zone conversion by a driver), and
JSON is `JSON` rather than PostgreSQL's `jsonb`, which reorders keys: the same run reads back
identically from SQLite and PostgreSQL. Changing a table needs a migration in
`migrations/versions/` (a test compares these tables with what the migrations build).
"""

import sqlalchemy as sa

metadata = sa.MetaData()

# Alembic's record of the revision; not its default name, as a shared PostgreSQL database may
# hold another application's
VERSION_TABLE = "kubeproof_schema_version"

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    # the run directory's name: how commands name a run (unique in one database)
    sa.Column("name", sa.String(255), nullable=False, unique=True),
    sa.Column("dir", sa.Text, nullable=False),  # where it was written or imported from
    sa.Column("kind", sa.String(16), nullable=False),  # `run` or `validate`
    sa.Column("started_at", sa.String(40)),
    sa.Column("ended_at", sa.String(40)),  # null: running, or killed before run.json
    sa.Column("repeats", sa.Integer),
    sa.Column("timing", sa.String(16)),
    sa.Column("cluster", sa.Text),
    sa.Column("kubeproof_version", sa.String(64)),
    sa.Column("git_commit", sa.String(64)),
    sa.Column("kubernetes", sa.String(32)),
    sa.Column("fingerprint", sa.String(128)),  # the key that signed its evidence chains
    sa.Column("record", sa.JSON, nullable=False),
)

trials = sa.Table(
    "trials",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    sa.Column("dir", sa.Text, nullable=False),  # relative to the run directory
    sa.Column("task", sa.Text, nullable=False),
    sa.Column("agent", sa.Text, nullable=False),  # the spec as written
    sa.Column("agent_label", sa.String(255), nullable=False),
    sa.Column("repeat", sa.Integer, nullable=False),
    sa.Column("track", sa.String(32), nullable=False),
    sa.Column("area", sa.String(64), nullable=False),
    sa.Column("difficulty", sa.String(32), nullable=False),
    sa.Column("expected", sa.String(16), nullable=False),
    sa.Column("verdict", sa.String(16)),
    sa.Column("score", sa.Integer, nullable=False),
    sa.Column("safe", sa.Boolean),
    sa.Column("reason", sa.Text),
    sa.Column("decision", sa.String(16)),
    sa.Column("steps", sa.Integer),
    sa.Column("seconds", sa.Float),  # the whole trial
    sa.Column("agent_seconds", sa.Float),  # the agent's turn
    sa.Column("started_at", sa.String(40)),
    sa.Column("ended_at", sa.String(40)),
    sa.Column("attempts", sa.Integer),
    sa.Column("calls", sa.Integer),
    sa.Column("tokens_in", sa.Integer),
    sa.Column("tokens_out", sa.Integer),
    sa.Column("cost_usd", sa.Float),  # null: not a model agent, or no price known
    sa.Column("task_digest", sa.String(64)),
    sa.Column("record", sa.JSON, nullable=False),
    sa.UniqueConstraint("run_id", "dir", name="uq_trials_run_dir"),
)
sa.Index("ix_trials_task", trials.c.task)
sa.Index("ix_trials_agent", trials.c.agent_label)

checks = sa.Table(
    "checks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "trial_id", sa.Integer, sa.ForeignKey("trials.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("phase", sa.String(16), nullable=False),  # broken_state, results or safety
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # check, contract or safety
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("passed", sa.Boolean, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
)
sa.Index("ix_checks_trial", checks.c.trial_id)

trial_tags = sa.Table(
    "trial_tags",
    metadata,
    sa.Column(
        "trial_id",
        sa.Integer,
        sa.ForeignKey("trials.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("tag", sa.String(64), primary_key=True),
)
