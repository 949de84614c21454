"""Choosing tasks for a run: task directories, folders of them, glob patterns over task
ids (`repair/**`, `repair/rbac-*/*`), or a suite file listing any of those, one per line."""

import fnmatch
from pathlib import Path

from kubeproof.errors import KubeproofError
from kubeproof.tasks.loader import Task, TaskInvalid, discover, inspect, task_id

LIBRARY = Path("tasks")


def _expand(pattern: str, library: Path) -> list[Path]:
    path = Path(pattern)
    if path.is_file() and path.suffix == ".txt":  # a suite
        lines = [ln.split("#")[0].strip() for ln in path.read_text().splitlines()]
        return [p for ln in lines if ln for p in _expand(ln, library)]
    if path.exists():
        return discover([path])
    if not library.is_dir():
        raise KubeproofError(f"{pattern}: not a path, and no task library at {library}/")
    matched = [r for r in discover([library]) if fnmatch.fnmatchcase(task_id(r), pattern)]
    if not matched:
        raise KubeproofError(f"no task under {library}/ matches {pattern!r}")
    return matched


def select(patterns: list[str], library: Path = LIBRARY) -> list[Task]:
    """The tasks, loaded and checked; any problem in any of them stops everything."""
    roots: list[Path] = []
    for pattern in patterns or [str(library)]:
        roots += [r for r in _expand(pattern, library) if r not in roots]
    tasks, problems = [], []
    for root in roots:
        task, found = inspect(root)
        problems += found
        if task:
            tasks.append(task)
    if problems:
        raise TaskInvalid(problems)
    return tasks
