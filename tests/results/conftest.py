"""A real PostgreSQL server for the results database's tests: Debian's `postgresql` package
(installed by .ci/run), initdb'd in a temporary directory and listening on a free loopback
port for this test session. Skipped only when the server's binaries are not installed."""

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def _binaries() -> Path | None:
    """Debian keeps the server's binaries in /usr/lib/postgresql/<major>/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=os.path.getmtime)
    return Path(versions[-1]).parent if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_server_user(cmd: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root: run them as `postgres` (Debian's server
    account) when the tests are root."""
    if os.geteuid() != 0:
        return cmd
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", *cmd]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a running server's `postgres` database, user `kubeproof`, no password."""
    bindir = _binaries()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries not installed (apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="kubeproof-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    port = _free_port()
    subprocess.run(
        _as_server_user(
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "kubeproof",
                "-A",
                "trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ]
        ),
        check=True,
        capture_output=True,
    )
    log = (root / "server.log").open("w")  # opened here, so the server user need not
    server = subprocess.Popen(
        _as_server_user(
            [
                str(bindir / "postgres"),
                "-D",
                str(data),
                "-p",
                str(port),
                "-h",
                "127.0.0.1",
                "-k",
                str(root),
                "-c",
                "fsync=off",
                "-c",
                "full_page_writes=off",
            ]
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"postgresql://kubeproof@127.0.0.1:{port}/postgres"
    try:
        import psycopg

        deadline = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(url, connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if server.poll() is not None or time.monotonic() > deadline:
                    tail = (root / "server.log").read_text()[-2000:]
                    raise RuntimeError(f"PostgreSQL did not start: {tail}") from None
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()  # SIGTERM: a smart shutdown
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_db(postgres_server: str, request) -> str:
    """A fresh, empty database on the session's server, for one test."""
    import psycopg

    name = "kp_" + "".join(c if c.isalnum() else "_" for c in request.node.name.lower())[:50]
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return postgres_server.rsplit("/", 1)[0] + "/" + name
