"""Reading a run directory, made here or elsewhere, by this kubeproof or an older one.

A run directory may come from another machine, and its trial directories hold files an
agent could write: everything is read without following symlinks, regular files only, size
limited, strict JSON (`kubeproof.hostile`). A run killed before its end has no run.json;
its trials are found under `trials/<task>/<agent>/<repeat>/trial.json` and the plan, if
any, in plan.json. A trial.json cut short by the kill reads as a trial that never ran.
"""

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from kubeproof import hostile
from kubeproof.errors import KubeproofError
from kubeproof.results.paths import RunPaths
from kubeproof.results.run import RunResult
from kubeproof.results.trial import TrialResult

RUN_LIMIT = 256 * 1024 * 1024  # run.json: ~600 bytes a trial line
TRIAL_LIMIT = 64 * 1024 * 1024  # trial.json: outages and audit violations can be long


class NotARun(KubeproofError):
    """The directory is not a run directory."""


@dataclass
class LoadedRun:
    dir: Path
    run: RunResult  # run.json, else plan.json, else empty (a killed run)
    complete: bool  # run.json was written (the run ended)
    # (the trial's directory relative to the run, its result as the file holds it)
    trials: list[tuple[str, TrialResult]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # trial files that did not read, why

    @property
    def name(self) -> str:
        return self.dir.name


def _json(root: Path, relative: str, limit: int) -> dict | None:
    data = hostile.read_bytes(root, relative, limit)
    if data is None:
        return None
    value = hostile.loads_json(data, f"{root / relative}")
    if not isinstance(value, dict):
        raise hostile.HostileInput(f"{root / relative} is not a JSON object")
    return value


def read_run(directory: Path) -> RunResult | None:
    """run.json, else the plan written when the run started (plan.json), else None."""
    for name in (RunPaths(directory).result.name, RunPaths(directory).plan.name):
        try:
            data = _json(directory, name, RUN_LIMIT)
        except hostile.HostileInput as exc:
            raise NotARun(str(exc)) from None
        if data is not None:
            try:
                return RunResult.from_record(data)
            except ValidationError as exc:
                raise NotARun(f"{directory / name}: {exc.errors()[0]['msg']}") from None
    return None


def read_trial(root: Path, rel: str = "") -> TrialResult | None:
    """The result of the trial at `rel` below `root` (no component of `rel` followed if a
    symlink), or None if it never wrote one or the file is cut short or wrong."""
    return trial_or_why(root, rel)[0]


def trial_or_why(root: Path, rel: str = "") -> tuple[TrialResult | None, str]:
    """read_trial, and when there is no result, why not."""
    try:
        data = _json(root, f"{rel}/trial.json" if rel else "trial.json", TRIAL_LIMIT)
    except (hostile.HostileInput, OSError) as exc:
        return None, f"trial.json not read: {exc}"
    if data is None:
        return None, "no trial.json (never finished)"
    try:
        return TrialResult.from_record(data), ""
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        return None, f"trial.json not a trial result: {where}: {error['msg']}"


def trial_dirs(directory: Path, skipped: list[str]) -> list[str]:
    """Every `trials/<task>/<agent>/<repeat>` directory, relative to the run, sorted; one
    that cannot be listed (a symlink, say) is left out and said in `skipped`."""
    found: list[str] = []
    if not hostile.lexists(directory, "trials"):
        return found

    def below(rel: str) -> list[str]:
        try:
            return [f"{rel}/{name}" for name in hostile.list_dir(directory, rel)]
        except hostile.HostileInput as exc:
            skipped.append(f"{rel}: {exc}")
            return []

    for task in below("trials"):
        for agent in below(task):
            found += below(agent)
    return found


def load_run(directory: Path) -> LoadedRun:
    """The run and every trial result in `directory`."""
    directory = Path(directory)
    if not directory.is_dir() or directory.is_symlink():
        raise NotARun(f"{directory}: not a directory")
    run = read_run(directory)
    complete = hostile.is_file(directory, RunPaths(directory).result.name)
    skipped: list[str] = []
    dirs = trial_dirs(directory, skipped)
    if run is None and not dirs:
        raise NotARun(f"{directory}: no run.json, plan.json or trials/ (not a run directory)")
    loaded = LoadedRun(directory, run or RunResult.model_validate({}), complete, skipped=skipped)
    for rel in dirs:
        trial, why = trial_or_why(directory, rel)
        if trial is None:
            loaded.skipped.append(f"{rel}: {why}")
            continue
        loaded.trials.append((rel, trial))
    return loaded
