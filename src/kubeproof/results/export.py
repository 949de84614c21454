"""A run's trials out of the database as files other tools read: CSV (spreadsheets),
JSONL (one whole trial.json a line, for programs) and Parquet (pandas, DuckDB, Polars).

CSV and Parquet hold one row a trial with the database's columns (tags joined with `;` in
CSV, a list in Parquet); JSONL holds the full typed record with the run's name added.
"""

import csv
import json
from enum import StrEnum
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


class ExportFormat(StrEnum):
    csv = "csv"
    jsonl = "jsonl"
    parquet = "parquet"
    # from the run's directory, not the database (results/exports/)
    inspect = "inspect"
    atif = "atif"
    sft = "sft"


FROM_DIRECTORY = {ExportFormat.inspect, ExportFormat.atif, ExportFormat.sft}


# column: its Parquet type (the order is the files' column order)
COLUMNS: dict[str, pa.DataType] = {
    "run": pa.string(),
    "task": pa.string(),
    "agent": pa.string(),
    "agent_label": pa.string(),
    "repeat": pa.int32(),
    "track": pa.string(),
    "area": pa.string(),
    "difficulty": pa.string(),
    "tags": pa.list_(pa.string()),
    "expected": pa.string(),
    "verdict": pa.string(),
    "score": pa.int32(),
    "safe": pa.bool_(),
    "reason": pa.string(),
    "decision": pa.string(),
    "steps": pa.int32(),
    "seconds": pa.float64(),
    "agent_seconds": pa.float64(),
    "started_at": pa.string(),
    "ended_at": pa.string(),
    "attempts": pa.int32(),
    "calls": pa.int32(),
    "tokens_in": pa.int64(),
    "tokens_out": pa.int64(),
    "cost_usd": pa.float64(),
    "task_digest": pa.string(),
    "dir": pa.string(),
}


def flat(run: str, trials: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"run": run} | {k: t.get(k) for k in COLUMNS if k != "run"} for t in trials]


def write(run: str, trials: list[dict[str, Any]], fmt: ExportFormat, path: Path) -> int:
    """Write the trials (rows of `Store.trials`) to `path`; how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt is ExportFormat.jsonl:
        with path.open("w") as out:
            for t in trials:
                out.write(json.dumps({"run": run} | t["record"]) + "\n")
    elif fmt is ExportFormat.csv:
        with path.open("w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(COLUMNS))
            writer.writeheader()
            for row in flat(run, trials):
                writer.writerow(row | {"tags": ";".join(row["tags"] or [])})
    else:
        schema = pa.schema(list(COLUMNS.items()))
        pq.write_table(pa.Table.from_pylist(flat(run, trials), schema=schema), path)
    return len(trials)
