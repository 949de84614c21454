"""Generated tasks on disk, the layout a runner loads (docs/generate.md):

DIR/suite.json          the suite, suite seed, generator version and task ids in order
DIR/<task id>/task.json the task (GeneratedTask), reference and mutants included
DIR/<task id>/reference.yaml   the reference answer alone, for people and diff tools
"""

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from kubeproof.generate.model import CANARY, GeneratedTask

TASK_FILE = "task.json"
REFERENCE_FILE = "reference.yaml"
SUITE_FILE = "suite.json"
TASK_LIMIT = 4 * 1024 * 1024  # bytes: a task file is some kilobytes


def task_json(task: GeneratedTask) -> str:
    return task.model_dump_json(indent=2) + "\n"


def digest(task: GeneratedTask) -> str:
    """sha256 of the task file: what a trial records and the LLM judge's cache key holds."""
    return hashlib.sha256(task_json(task).encode()).hexdigest()


def write(out: Path, tasks: Iterable[GeneratedTask], suite: str, seed: int) -> list[Path]:
    """Write every task under `out` (created if missing); the directories written."""
    out.mkdir(parents=True, exist_ok=True)
    written, ids, version = [], [], None
    for task in tasks:
        folder = out / task.id
        folder.mkdir(exist_ok=True)
        (folder / TASK_FILE).write_text(task_json(task))
        (folder / REFERENCE_FILE).write_text(f"# {CANARY}\n{task.reference}")
        written.append(folder)
        ids.append(task.id)
        version = task.generator_version
    index = {
        "suite": suite,
        "seed": seed,
        "generator_version": version,
        "canary": CANARY,
        "count": len(ids),
        "tasks": ids,
    }
    (out / SUITE_FILE).write_text(json.dumps(index, indent=2) + "\n")
    return written


def load(folder: Path) -> GeneratedTask:
    """One task directory (or its task.json) as written by `write`."""
    path = folder / TASK_FILE if folder.is_dir() else folder
    with path.open("rb") as f:
        data = f.read(TASK_LIMIT + 1)
    if len(data) > TASK_LIMIT:
        raise ValueError(f"{path}: over {TASK_LIMIT} bytes")
    return GeneratedTask.model_validate_json(data)


def load_index(out: Path) -> dict:
    """DIR/suite.json as `write` made it; every task id checked to be one (a path part)."""
    from kubeproof.generate.task import parse_id

    data = (out / SUITE_FILE).read_bytes()[: TASK_LIMIT + 1]
    if len(data) > TASK_LIMIT:
        raise ValueError(f"{out / SUITE_FILE}: over {TASK_LIMIT} bytes")
    index = json.loads(data)
    for task_id in index.get("tasks") or []:
        parse_id(str(task_id))
    return index
