"""Alembic's environment for the results database: always run from
`kubeproof.results.db.migrate` with an open connection (never from an alembic.ini)."""

from alembic import context

from kubeproof.results.db.schema import VERSION_TABLE, metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    render_as_batch=True,  # SQLite alters tables by copying them
)
with context.begin_transaction():
    context.run_migrations()
