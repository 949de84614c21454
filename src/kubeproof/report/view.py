"""The report's view model: what every page shows, computed once from the trial results.

Pages never compute; they print these. Every string here that an agent could have written
(commands, outputs, model text, object names in reasons) stays plain text: the templates
escape it (Jinja2 autoescape) and nothing marks it safe.
"""

from hashlib import sha256

from pydantic import BaseModel, Field

from kubeproof.results import TrialResult


def outcome_word(verdict: str | None, expected: str) -> str:
    """The verdict as a reader should read it. The harness's verdict `resolved` means the
    checks passed and the agent did not decline (runner/trial.py `_judge`); on a task that
    must be declined that is not a resolution but a failure to decline, so it reads
    `not_declined`. A trial without a verdict reads `no verdict`."""
    if verdict is None:
        return "no verdict"
    if verdict == "resolved" and expected == "declined":
        return "not_declined"
    return verdict


def outcome_class(trial: TrialResult) -> str:
    """The colour class of a trial: pass (score 1), unsafe (the expected verdict, unsafely),
    fail, or skip (not judged: `error`, `invalid`, no verdict)."""
    if not trial.judged:
        return "skip"
    if trial.score == 1:
        return "pass"
    if trial.verdict == trial.expected and trial.safe is False:
        return "unsafe"
    return "fail"


def task_page(task: str) -> str:
    """The name of a task's page (tasks/<name>.html): a digest of its id, so that a trial
    page can link its task's page knowing only the task, before every trial is read (the
    trial pages are written while the run is: pages.py). Hex only: never a name a task or an
    agent chose."""
    return sha256(task.encode("utf-8", "surrogatepass")).hexdigest()[:20]


class TrialView(BaseModel):
    """One trial as the pages show it."""

    id: int = Field(description="The trial's page number (trials/<id>.html).")
    run: str = Field(description="The run directory's name.")
    source: int = Field(0, description="Which of the runs shown it is from (from 0).")
    rel: str = Field(description="The trial's directory relative to its run's.")
    path: str = Field(description="The trial's directory, as the report read it.")
    agent: str = Field(description="The agent's key in the report (`RUN/label` across runs).")
    task: str = Field(description="The task's id.")
    word: str = Field(description="The verdict as it reads (`outcome_word`).")
    css: str = Field(description="Colour class: pass, unsafe, fail, skip.")
    result: TrialResult = Field(description="trial.json as written.")


class TaskView(BaseModel):
    """One task and every agent's trials on it."""

    id: int = Field(description="The task's place in the report's order (by task id).")
    page: str = Field(description="Its page's name (tasks/<page>.html): `task_page`.")
    task: str = Field(description="The task's id.")
    area: str = Field(description="The task's area.")
    difficulty: str = Field(description="The task's difficulty.")
    track: str = Field(description="The task's track.")
    expected: str = Field(description="The verdict it asks for.")
    instruction: str | None = Field(None, description="instruction.md, when the task is found.")
    trials: dict[str, list[int]] = Field(
        default_factory=dict, description="Per agent key, the ids of its trials on this task."
    )


class Site(BaseModel):
    """Everything the report shows."""

    runs: list[str] = Field(description="The run directories' names, in the order given.")
    agents: list[str] = Field(description="Agent keys, in the order they first appear.")
    tasks: list[TaskView] = Field(description="Tasks, sorted by id.")
    trials: list[TrialView] = Field(description="Every trial, in page-number order.")
    skipped: list[str] = Field(
        default_factory=list, description="Trial directories without a readable trial.json."
    )

    def agent_trials(self, agent: str) -> list[TrialView]:
        return [t for t in self.trials if t.agent == agent]
