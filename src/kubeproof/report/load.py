"""Run directories into the report's view model (view.Site).

Run directories are read by `kubeproof.results.load` (no symlinks, size limits, strict
JSON); a trial.json that does not read is listed as skipped, not fatal. Task instructions
come from the task library when it is at hand (`tasks_dir`), read the same careful way.
"""

from collections.abc import Sequence
from pathlib import Path

from kubeproof import hostile
from kubeproof.bulk import collector_paused
from kubeproof.report.view import (
    Site,
    TaskView,
    TrialView,
    outcome_class,
    outcome_word,
    task_page,
)
from kubeproof.results import TrialResult
from kubeproof.results.load import LoadedRun, load_run

INSTRUCTION_LIMIT = 256 * 1024  # an instruction is a page of prose


def agent_key(run: str, agent: str, several: bool) -> str:
    """An agent's name in the report: its spec, prefixed by its run when several runs are
    shown (the same spec in two runs is two rows, never merged)."""
    return f"{run}/{agent}" if several else agent


def instruction(tasks_dir: Path | None, task: str) -> str | None:
    if tasks_dir is None or not task or ".." in task.split("/"):
        return None
    try:
        return hostile.read_text(tasks_dir, f"{task}/instruction.md", INSTRUCTION_LIMIT)
    except (hostile.HostileInput, OSError):
        return None


def trial_view(
    number: int, source: int, directory: Path, rel: str, result: TrialResult, agent: str
) -> TrialView:
    """A trial as the pages show it: of the `source`th run shown, in `directory`; `agent`:
    its key in the report (`agent_key`)."""
    return TrialView(
        id=number,
        run=directory.name,
        source=source,
        rel=rel,
        path=str(directory / rel),
        agent=agent,
        task=result.task,
        word=outcome_word(result.verdict, result.expected),
        css=outcome_class(result),
        result=result,
    )


def load_site(runs: Sequence[Path | LoadedRun], tasks_dir: Path | None = None) -> Site:
    """Every trial of every run (a directory, or a run loaded already), numbered for their
    pages, grouped by task and agent."""
    loaded = [r if isinstance(r, LoadedRun) else load_run(Path(r)) for r in runs]
    with collector_paused():  # thousands of views: kubeproof.bulk
        return _site(loaded, tasks_dir)


def _site(loaded: list[LoadedRun], tasks_dir: Path | None) -> Site:
    several = len(loaded) > 1
    trials: list[TrialView] = []
    agents: list[str] = []
    tasks: dict[str, TaskView] = {}
    skipped: list[str] = []
    first = 0  # the page number of the run's first trial directory
    for source, run in enumerate(loaded):
        skipped += [f"{run.name}/{s}" for s in run.skipped]
        # a trial's page number is its directory's place in the listing of every run, read
        # or not: the numbers the pages are written under before the run is read (pages.py)
        listed = run.listed or [rel for rel, _ in run.trials]
        page = {rel: first + n for n, rel in enumerate(listed)}
        first += len(listed)
        # the order the run was given its agents in (run.json), then any other it holds
        agents += [agent_key(run.name, a, several) for a in run.run.agents or []]
        for rel, result in run.trials:
            key = agent_key(run.name, result.agent, several)
            if key not in agents:
                agents.append(key)
            view = trial_view(page[rel], source, run.dir, rel, result, key)
            trials.append(view)
            task = tasks.get(result.task)
            if task is None:
                task = tasks[result.task] = TaskView(
                    id=0,
                    page=task_page(result.task),
                    task=result.task,
                    area=result.area,
                    difficulty=result.difficulty,
                    track=result.track,
                    expected=result.expected,
                    instruction=instruction(tasks_dir, result.task),
                )
            task.trials.setdefault(key, []).append(view.id)
    ordered = sorted(tasks.values(), key=lambda t: t.task)
    for place, task in enumerate(ordered):
        task.id = place
    return Site(
        runs=[r.name for r in loaded],
        agents=[a for a in dict.fromkeys(agents) if any(a in t.trials for t in ordered)],
        tasks=ordered,
        trials=trials,
        skipped=skipped,
    )
