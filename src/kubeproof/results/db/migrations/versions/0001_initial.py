"""The first results database: runs, trials, checks, trial tags.

Revision ID: 0001
Revises:
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a frozen copy of schema.py as it was: later changes are later revisions
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(255), nullable=False, unique=True),
        sa.Column("dir", sa.Text, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("started_at", sa.String(40)),
        sa.Column("ended_at", sa.String(40)),
        sa.Column("repeats", sa.Integer),
        sa.Column("timing", sa.String(16)),
        sa.Column("cluster", sa.Text),
        sa.Column("kubeproof_version", sa.String(64)),
        sa.Column("git_commit", sa.String(64)),
        sa.Column("kubernetes", sa.String(32)),
        sa.Column("fingerprint", sa.String(128)),
        sa.Column("record", sa.JSON, nullable=False),
    )
    op.create_table(
        "trials",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("dir", sa.Text, nullable=False),
        sa.Column("task", sa.Text, nullable=False),
        sa.Column("agent", sa.Text, nullable=False),
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
        sa.Column("seconds", sa.Float),
        sa.Column("agent_seconds", sa.Float),
        sa.Column("started_at", sa.String(40)),
        sa.Column("ended_at", sa.String(40)),
        sa.Column("attempts", sa.Integer),
        sa.Column("calls", sa.Integer),
        sa.Column("tokens_in", sa.Integer),
        sa.Column("tokens_out", sa.Integer),
        sa.Column("cost_usd", sa.Float),
        sa.Column("task_digest", sa.String(64)),
        sa.Column("record", sa.JSON, nullable=False),
        sa.UniqueConstraint("run_id", "dir", name="uq_trials_run_dir"),
    )
    op.create_index("ix_trials_task", "trials", ["task"])
    op.create_index("ix_trials_agent", "trials", ["agent_label"])
    op.create_table(
        "checks",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "trial_id",
            sa.Integer,
            sa.ForeignKey("trials.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("passed", sa.Boolean, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
    )
    op.create_index("ix_checks_trial", "checks", ["trial_id"])
    op.create_table(
        "trial_tags",
        sa.Column(
            "trial_id",
            sa.Integer,
            sa.ForeignKey("trials.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("tag", sa.String(64), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("trial_tags")
    op.drop_table("checks")
    op.drop_table("trials")
    op.drop_table("runs")
