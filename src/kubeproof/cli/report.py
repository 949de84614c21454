"""`kubeproof report`: the static HTML report of one or more runs (docs/results.md,
"Report"); also written into `<run>/report/` at the end of every `kubeproof run`.

Exit codes: 0 success, 1 an error the message explains (a directory that is not a run),
2 bad usage."""

import webbrowser
from collections.abc import Callable
from pathlib import Path

import typer

from kubeproof.cli.output import Format, emit, stderr
from kubeproof.errors import KubeproofError
from kubeproof.report import build_report

DEFAULT_TASKS = Path("tasks")


def _tasks_dir(tasks: Path | None) -> Path | None:
    """Where instructions are read from: the option, else ./tasks when it exists."""
    if tasks is not None:
        if not tasks.is_dir():
            raise KubeproofError(f"--tasks {tasks}: not a directory")
        return tasks
    return DEFAULT_TASKS if DEFAULT_TASKS.is_dir() else None


def report(
    runs: list[Path] = typer.Argument(
        ..., help="Run directories (each with run.json, or trials/ of a run cut short)."
    ),
    out: Path = typer.Option(
        None,
        "--out",
        "-o",
        help="The report's directory. Default: RUN/report for one run; required for several.",
    ),
    tasks: Path = typer.Option(
        None, "--tasks", help="The task library, for the tasks' instructions (default: ./tasks)."
    ),
    open_: bool = typer.Option(False, "--open", help="Open the leaderboard in a browser."),
    output: Format = typer.Option(
        Format.text, "--format", help="What to print: text, or json/yaml for programs."
    ),
) -> None:
    """Write the HTML report of runs: leaderboard (per agent and track, Wilson 95 %
    intervals, safety, cost), task-by-agent matrix, a page per task and per trial
    (trajectory, model turns, checks, verifier log, evidence chain), paired comparisons of
    agents and plots. The directory opens from the file system and needs no network."""
    if out is None:
        if len(runs) != 1:
            raise KubeproofError("several runs: name the report's directory with -o DIR")
        out = runs[0] / "report"
    index = build_report(runs, out, _tasks_dir(tasks))
    if not emit({"report": str(out), "index": str(index)}, output):
        stderr.print(f"report: {index}", highlight=False, soft_wrap=True)  # a path: never wrapped
    if open_:
        webbrowser.open(index.resolve().as_uri())


def after_run(run_dir: Path, warn: Callable[[str], None]) -> Path | None:
    """The report of a run that just ended, into `<run>/report/`; a report that fails
    warns and never fails the run (its results are written already)."""
    try:
        index = build_report([run_dir], run_dir / "report", _tasks_dir(None))
    except Exception as exc:  # the run's results stand; the report is a view of them
        warn(f"the HTML report was not written: {exc}")
        return None
    stderr.print(f"report: {index}", highlight=False, soft_wrap=True)  # a path: never wrapped
    return index
