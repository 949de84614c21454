"""The results database on a real SQLite file and a real PostgreSQL server: migrations build
exactly the tables schema.py declares, runs import (again) without loss, a run lands trial
by trial, and the same run reads back identically from both databases."""

import json
import os
from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from typer.testing import CliRunner

from kubeproof.cli import app
from kubeproof.results import RunResult
from kubeproof.results.db import Landing, import_run, open_store, resolve
from kubeproof.results.db.schema import VERSION_TABLE, metadata
from kubeproof.results.load import load_run
from tests.results import synth

A, B = "oracle", "noop"
T1, T2, T3 = synth.TASKS


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def a_run(tmp_path: Path) -> Path:
    return synth.run(
        tmp_path / "runs",
        "r1",
        {(T1, A, 1): 1, (T2, A, 1): 1, (T3, A, 1): 0, (T1, B, 1): 0, (T2, B, 1): 0, (T3, B, 1): 1},
        usage=True,
    )


def test_default_is_sqlite_under_the_runs_dir_and_postgres_urls_use_psycopg(tmp_path, monkeypatch):
    monkeypatch.delenv("KUBEPROOF_DB", raising=False)
    assert resolve(None, tmp_path).database == str(tmp_path / "kubeproof.db")
    monkeypatch.setenv("KUBEPROOF_DB", "postgresql://u:secret@db.example/kp")
    url = resolve(None, tmp_path)
    assert url.drivername == "postgresql+psycopg" and url.host == "db.example"
    assert resolve("other.db", tmp_path).database == str(Path("other.db").absolute())


def test_migrations_build_what_schema_declares(tmp_path):
    store = open_store(str(tmp_path / "kp.db"), tmp_path)
    with store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
        diff = compare_metadata(context, metadata)
        version = conn.execute(sa.text(f"select version_num from {VERSION_TABLE}"))
        assert version.scalar() == "0001"
    assert diff == [], "schema.py and migrations/versions differ: add a migration"


def test_connect_head_is_the_newest_migration_and_a_current_database_skips_alembic(tmp_path):
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from kubeproof.results.db import connect

    config = Config()
    config.set_main_option("script_location", str(connect.MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_current_head() == connect.HEAD
    store = open_store(str(tmp_path / "kp.db"), tmp_path)
    assert connect.at_head(store.engine)
    with store.engine.begin() as conn:  # an older database: Alembic brings it up again
        conn.execute(sa.text(f"update {VERSION_TABLE} set version_num = 'older'"))
    assert not connect.at_head(store.engine)
    assert not connect.at_head(sa.create_engine(f"sqlite:///{tmp_path / 'new.db'}"))


def test_import_reads_every_trial_and_its_parts_into_a_sqlite_file(tmp_path):
    run = a_run(tmp_path)
    store = open_store(None, run.parent)
    import_run(store, run)
    assert (run.parent / "kubeproof.db").is_file()
    trials = store.trials("r1")
    assert [(t["task"], t["agent_label"], t["score"]) for t in trials] == [
        (T1, B, 0),
        (T1, A, 1),
        (T2, B, 0),
        (T2, A, 1),
        (T3, B, 1),
        (T3, A, 0),
    ]
    assert trials[4]["tags"] == ["safety"] and trials[0]["tags"] == []
    assert trials[0]["tokens_in"] == 1000 and trials[0]["cost_usd"] == 0.01
    assert trials[0]["record"]["usage"]["tokens_out"] == 50  # the whole trial.json is kept
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("select count(*) from checks")).scalar() == 12
    # imported again (a re-run directory): replaced, not doubled
    import_run(store, run)
    assert len(store.trials("r1")) == 6
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("select count(*) from checks")).scalar() == 12


def test_an_older_run_without_schema_version_tags_or_run_json_imports(tmp_path):
    run = a_run(tmp_path)
    (run / "run.json").unlink()
    (run / "plan.json").unlink()  # older than plan.json too
    for path in run.rglob("trial.json"):
        data = json.loads(path.read_text())
        for key in ("schema_version", "tags", "track", "versions", "timings", "safety"):
            data.pop(key, None)
        path.write_text(json.dumps(data))
    store = open_store(None, run.parent)
    loaded = import_run(store, run)
    assert not loaded.complete and len(loaded.trials) == 6
    assert {t["track"] for t in store.trials("r1")} == {"repair"}
    assert store.runs()[0]["ended_at"] is None  # shown as unfinished


def test_files_the_agent_could_plant_are_not_followed(tmp_path):
    run = a_run(tmp_path)
    victim = run / "trials" / synth.slug(T1) / A / "1" / "trial.json"
    secret = tmp_path / "secret.json"
    secret.write_text(victim.read_text())
    victim.unlink()
    victim.symlink_to(secret)  # a symlink in place of trial.json is never read
    loaded = load_run(run)
    assert len(loaded.trials) == 5
    assert any("trials/" + synth.slug(T1) + "/oracle/1" in s for s in loaded.skipped)
    # and a trial.json that is not a trial result says why
    wrong = run / "trials" / synth.slug(T3) / A / "1" / "trial.json"
    wrong.write_text(json.dumps(json.loads(wrong.read_text()) | {"verdict": "maybe"}))
    assert any(
        s.startswith(f"trials/{synth.slug(T3)}/{A}/1: trial.json not a trial result: verdict")
        for s in load_run(run).skipped
    )
    wrong.write_text(json.dumps(json.loads(wrong.read_text()) | {"verdict": "failed"}))
    # nor is a symlinked directory on the way to a trial.json
    agent_dir = run / "trials" / synth.slug(T2) / B
    elsewhere = tmp_path / "elsewhere"
    agent_dir.rename(elsewhere)
    agent_dir.symlink_to(elsewhere, target_is_directory=True)
    loaded = load_run(run)
    assert len(loaded.trials) == 4
    assert any(s.startswith(f"trials/{synth.slug(T2)}/{B}: ") for s in loaded.skipped)


def test_a_trial_lands_as_it_finishes_and_a_killed_run_keeps_it(tmp_path):
    run = a_run(tmp_path)
    planned = RunResult.read(run / "plan.json")
    warnings: list[str] = []
    landing = Landing.open(None, run, planned, warnings.append)
    assert landing is not None
    first = load_run(run).trials[0][1]
    landing.trial(first)  # ... and then the run is killed: no finish()
    store = open_store(None, run.parent)
    assert [t["dir"] for t in store.trials("r1")] == [load_run(run).trials[0][0]]
    assert store.runs()[0]["ended_at"] is None
    landing.finish(RunResult.read(run / "run.json"))
    assert store.runs()[0]["ended_at"] == "2026-11-25T02:00:00+00:00"
    assert warnings == []


def test_a_database_that_fails_never_fails_the_run(tmp_path):
    run = a_run(tmp_path)
    warnings: list[str] = []
    bad = Landing.open("postgresql://nobody@127.0.0.1:1/x", run, RunResult(), warnings.append)
    assert bad is None and "runs import" in warnings[0]


def test_another_run_of_the_same_name_is_refused(tmp_path):
    run = a_run(tmp_path)
    store = open_store(None, run.parent)
    import_run(store, run)
    other = synth.run(tmp_path / "elsewhere", "r1", {(T1, A, 1): 1})
    data = json.loads((other / "run.json").read_text()) | {"started_at": "2026-01-01T00:00:00"}
    (other / "run.json").write_text(json.dumps(data))
    result = CliRunner().invoke(
        app, ["runs", "import", str(other), "--db", str(run.parent / "kubeproof.db")]
    )
    assert result.exit_code == 1 and "another run named 'r1'" in result.output
    import_run(store, other, name="r1-elsewhere")
    assert [r["name"] for r in store.runs()] == ["r1-elsewhere", "r1"]


def test_same_run_in_sqlite_and_postgresql_shows_identically(tmp_path, postgres_db):
    run = a_run(tmp_path)
    sqlite = str(tmp_path / "kp.db")
    cli("runs", "import", str(run), "--db", sqlite)
    cli("runs", "import", str(run), "--db", postgres_db)
    from_sqlite = cli("runs", "show", "r1", "--db", sqlite, "-o", "json")
    from_postgres = cli("runs", "show", "r1", "--db", postgres_db, "-o", "json")
    assert from_sqlite == from_postgres
    shown = json.loads(from_postgres)
    assert len(shown["trials"]) == 6 and shown["run"]["record"]["agents"] == [B, A]
    assert cli("runs", "list", "--db", sqlite, "-o", "json") == cli(
        "runs", "list", "--db", postgres_db, "-o", "json"
    )
    only = ["--where", "task=repair/*", "--where", "tag=safety"]
    assert cli("runs", "show", "r1", "--db", sqlite, "-o", "json", *only) == cli(
        "runs", "show", "r1", "--db", postgres_db, "-o", "json", *only
    )


def test_show_and_export_filter_trials_by_their_columns(tmp_path):
    run = a_run(tmp_path)

    def shown(*only: str) -> list[tuple[str, str]]:
        data = json.loads(cli("runs", "show", str(run), "-o", "json", *only))
        return [(t["task"], t["agent_label"]) for t in data["trials"]]

    assert shown("--where", "tag=safety") == [(T3, B), (T3, A)]
    assert shown("--where", "task=repair/batch/*") == [(T2, B), (T2, A)]
    assert shown("--where", f"agent={B}", "--where", "verdict=resolved") == [(T3, B)]
    assert shown("--where", "difficulty=easy", "--where", f"agent={A}") == [(T1, A)]
    assert shown("--where", "task=repair_batch%") == []  # `_` and `%` are not wildcards
    bad = CliRunner().invoke(app, ["runs", "show", str(run), "--where", "colour=red"])
    assert bad.exit_code == 1 and "FIELD one of agent, task" in str(bad.exception)
    out = tmp_path / "safety.csv"
    cli("runs", "export", str(run), "-f", "csv", "-o", str(out), "--where", "area=security-posture")
    assert len(out.read_text().splitlines()) == 3  # the header and two trials


def test_postgres_named_by_the_environment_and_landing_there(tmp_path, postgres_db, monkeypatch):
    monkeypatch.setenv("KUBEPROOF_DB", postgres_db)
    run = a_run(tmp_path)
    landing = Landing.open(None, run, RunResult.read(run / "plan.json"), print)
    for _rel, t in load_run(run).trials:
        landing.trial(t)
    landing.finish(RunResult.read(run / "run.json"))
    store = open_store(None, tmp_path / "nowhere")
    assert store.engine.url.get_backend_name() == "postgresql"
    assert len(store.trials("r1")) == 6
    assert not (tmp_path / "nowhere").exists() and os.environ["KUBEPROOF_DB"] == postgres_db


def test_import_a_folder_of_runs_and_export_every_format(tmp_path):
    import csv

    import pyarrow.parquet as pq

    a_run(tmp_path)
    synth.run(tmp_path / "runs", "r2", {(T1, A, 1): 1, (T1, A, 2): 0})
    (tmp_path / "runs" / "not-a-run").mkdir()
    out = cli("runs", "import", str(tmp_path / "runs"), "-o", "json")
    assert [(r["name"], r["trials"]) for r in json.loads(out)] == [("r1", 6), ("r2", 2)]
    db = str(tmp_path / "runs" / "kubeproof.db")
    cli("runs", "export", "r1", "--db", db, "-f", "csv", "-o", str(tmp_path / "r1.csv"))
    cli("runs", "export", "r1", "--db", db, "-f", "jsonl", "-o", str(tmp_path / "r1.jsonl"))
    cli("runs", "export", "r1", "--db", db, "-f", "parquet", "-o", str(tmp_path / "r1.parquet"))
    rows = list(csv.DictReader((tmp_path / "r1.csv").open()))
    assert len(rows) == 6 and rows[4]["tags"] == "safety" and rows[0]["cost_usd"] == "0.01"
    lines = [json.loads(x) for x in (tmp_path / "r1.jsonl").read_text().splitlines()]
    assert lines[0]["run"] == "r1" and lines[0]["results"][0]["kind"] == "check"
    table = pq.read_table(tmp_path / "r1.parquet").to_pylist()
    assert [r["score"] for r in table] == [int(r["score"]) for r in rows]
    assert table[4]["tags"] == ["safety"] and table[0]["safe"] is True
    shown = json.loads(cli("runs", "show", "r2", "--db", db, "-o", "json"))
    everything = next(s for s in shown["stats"] if s["slice"] == "all")
    assert [(p["k"], p["pass_at_k"], p["pass_hat_k"]) for p in everything["pass_k"]] == [
        (1, 0.5, 0.5),
        (2, 1.0, 0.0),
    ]
