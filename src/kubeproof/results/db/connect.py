"""Which database, and an engine on it with its tables migrated to the newest revision.

`--db URL`, else `$KUBEPROOF_DB`, else SQLite in `<runs dir>/kubeproof.db` (nothing to
start). A PostgreSQL URL (`postgresql://user@host/db`) is driven by psycopg 3 (the
`postgres` extra); SQLAlchemy's other URLs work as SQLAlchemy accepts them.
"""

import os
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError

from kubeproof.errors import KubeproofError
from kubeproof.results.db.schema import VERSION_TABLE

ENV = "KUBEPROOF_DB"
FILE = "kubeproof.db"
MIGRATIONS = Path(__file__).parent / "migrations"


class DatabaseError(KubeproofError):
    """The results database cannot be reached, or holds something it should not."""


def resolve(db: str | None, runs_dir: Path) -> URL:
    """The database URL: `db` (a URL or a file path), $KUBEPROOF_DB, or SQLite under
    `runs_dir`."""
    given = db or os.environ.get(ENV) or ""
    if not given:
        return make_url(f"sqlite:///{Path(runs_dir).absolute() / FILE}")
    if "://" not in given:  # a path: an SQLite file
        return make_url(f"sqlite:///{Path(given).absolute()}")
    try:
        url = make_url(given)
    except ArgumentError as exc:
        raise DatabaseError(f"not a database URL: {exc}") from None
    if url.drivername in ("postgresql", "postgres"):  # psycopg 3, not SQLAlchemy's psycopg2
        url = url.set(drivername="postgresql+psycopg")
    return url


def shown(url: URL) -> str:
    """The URL without its password, for messages."""
    return url.render_as_string(hide_password=True)


def engine(url: URL) -> Engine:
    """An engine on `url` whose tables are at the newest migration."""
    options: dict = {}
    if url.get_backend_name() == "sqlite":
        if url.database:
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        # another process (a second run, a `runs list`) may hold the write lock a moment
        options["connect_args"] = {"timeout": 30}
    try:
        eng = sa.create_engine(url, **options)
        migrate(eng)
    except ModuleNotFoundError as exc:
        raise DatabaseError(
            f"{shown(url)}: driver {exc.name} is not installed "
            "(PostgreSQL: pip install 'kubeproof[postgres]')"
        ) from None
    except sa.exc.SQLAlchemyError as exc:
        cause = getattr(exc, "orig", None) or exc  # the driver's own words, when it has them
        raise DatabaseError(f"{shown(url)}: {type(exc).__name__}: {cause}") from None
    return eng


# The newest revision under migrations/versions (tests/results/test_db.py keeps it so): a
# database already there is not handed to Alembic, whose import alone costs ~0.8 s of CPU
# at every command that opens the database.
HEAD = "0001"


def at_head(eng: Engine) -> bool:
    with eng.connect() as connection:
        if not sa.inspect(connection).has_table(VERSION_TABLE):
            return False
        found = connection.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}"))
        return list(found.scalars()) == [HEAD]


def migrate(eng: Engine) -> None:
    """Bring the tables to the newest revision (a new database gets them all)."""
    if at_head(eng):
        return
    from alembic import command  # imported when a database needs it, not by every command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    with eng.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
