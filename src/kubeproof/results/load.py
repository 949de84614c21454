"""Reading a run directory, made here or elsewhere, by this kubeproof or an older one.

A run directory may come from another machine, and its trial directories hold files an
agent could write: everything is read without following symlinks, regular files only, size
limited, strict JSON (`kubeproof.hostile`). A run killed before its end has no run.json;
its trials are found under `trials/<task>/<agent>/<repeat>/trial.json` and the plan, if
any, in plan.json. A trial.json cut short by the kill reads as a trial that never ran.
"""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from kubeproof import hostile
from kubeproof.bulk import collector_paused
from kubeproof.errors import KubeproofError
from kubeproof.results.paths import RunPaths
from kubeproof.results.run import RunResult
from kubeproof.results.trial import TrialResult

RUN_LIMIT = 256 * 1024 * 1024  # run.json: ~600 bytes a trial line
TRIAL_LIMIT = 64 * 1024 * 1024  # trial.json: outages and audit violations can be long


class NotARun(KubeproofError):
    """The directory is not a run directory."""


NOT_A_RUN = "{}: no run.json, plan.json or trials/ (not a run directory)"


@dataclass
class LoadedRun:
    dir: Path
    run: RunResult  # run.json, else plan.json, else empty (a killed run)
    complete: bool  # run.json was written (the run ended)
    # (the trial's directory relative to the run, its result as the file holds it)
    trials: list[tuple[str, TrialResult]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # trial files that did not read, why
    # every trial directory found, read or not, in order (the report's trial page numbers)
    listed: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.dir.name


@dataclass
class Listing:
    """The trial directories of a run (`trials/<task>/<agent>/<repeat>`, sorted), and the
    directories that could not be listed, each with why."""

    rels: list[str]
    skipped: list[str]


def _object(data: bytes, what: str) -> dict:
    value = hostile.loads_json(data, what)
    if not isinstance(value, dict):
        raise hostile.HostileInput(f"{what} is not a JSON object")
    return value


def _json(root: Path, relative: str, limit: int) -> dict | None:
    data = hostile.read_bytes(root, relative, limit)
    return None if data is None else _object(data, f"{root / relative}")


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
    name = f"{rel}/trial.json" if rel else "trial.json"
    try:
        data = hostile.read_bytes(root, name, TRIAL_LIMIT)
    except (hostile.HostileInput, OSError) as exc:
        return None, f"trial.json not read: {exc}"
    return _trial(data, root, name)


def _trial(data: bytes | None, root: Path, name: str) -> tuple[TrialResult | None, str]:
    """The trial in `data` (trial.json at `name` below `root`), or why there is none."""
    if data is None:
        return None, "no trial.json (never finished)"
    try:
        record = _object(data, f"{root / name}")
    except hostile.HostileInput as exc:
        return None, f"trial.json not read: {exc}"
    try:
        return TrialResult.from_record(record), ""
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        return None, f"trial.json not a trial result: {where}: {error['msg']}"


def _listed(parent: int, name: str, rel: str, skipped: list[str]) -> Iterator[tuple[int, str]]:
    """(descriptor of the directory `rel`, each name in it), the directory held open while
    its names are used; one that cannot be listed (a symlink, say) yields nothing and is
    said in `skipped`."""
    try:
        with hostile.directory(parent, name, what=rel) as fd:
            names = hostile.list_dir(fd, what=rel)
            yield from ((fd, child) for child in names)
    except FileNotFoundError:
        skipped.append(f"{rel}: {rel} is gone (the agent removed it)")
    except hostile.HostileInput as exc:
        skipped.append(f"{rel}: {exc}")


def _walk(run: int, skipped: list[str]) -> list[str]:
    """The rel of every `trials/<task>/<agent>/<repeat>` directory, in sorted order. The run
    is walked once, each directory opened below its parent's descriptor without following a
    symlink. A directory that cannot be listed is left out and said in `skipped`."""
    found = []
    for tasks, task in _listed(run, "trials", "trials", skipped):
        for agents, agent in _listed(tasks, task, f"trials/{task}", skipped):
            where = f"trials/{task}/{agent}"
            found += [f"{where}/{r}" for _, r in _listed(agents, agent, where, skipped)]
    return found


def list_trials(directory: Path) -> Listing:
    """Where the trials of the run in `directory` are, before any is read: what `load_run`
    reads when given it, and the order its trials take (the report numbers its trial pages
    by it, and starts writing them while the run is still being read: report/pages.py)."""
    skipped: list[str] = []
    names = (RunPaths(directory).result.name, RunPaths(directory).plan.name)
    try:
        with hostile.directory(Path(directory)) as fd:
            if hostile.lexists(fd, "trials"):
                rels = _walk(fd, skipped)
            elif not any(hostile.is_file(fd, name) for name in names):
                raise NotARun(NOT_A_RUN.format(directory))
            else:
                rels = []
    except (OSError, hostile.HostileInput) as exc:
        raise NotARun(f"{directory}: {exc}") from None
    return Listing(rels, skipped)


class TrialDirs:
    """Opens the trial directories `trials/<task>/<agent>/<repeat>` of a run below its
    descriptor, without following symlinks, keeping the last `trials/<task>` open: the
    trials of a listing come in its order, a task's agents one after another, so each
    costs a walk of two, not of four. Close it (or use it as a context manager) when
    done."""

    def __init__(self, run: int):
        self.run = run
        self.parent: str | None = None
        self.held = ExitStack()
        self.fd = -1

    def __enter__(self) -> "TrialDirs":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.held.close()
        self.parent = None

    @contextmanager
    def open(self, rel: str) -> Iterator[int]:
        """The descriptor of trial directory `rel`, for the block; FileNotFoundError or
        HostileInput (a symlink, not a directory) as `hostile.directory` raises them."""
        parts = rel.split("/")
        head, name = "/".join(parts[:2]), "/".join(parts[2:])
        if not name:  # not trials/<task>/...: walked whole from the run (".": its descriptor)
            head, name = ".", rel
        if head != self.parent:
            self.close()
            self.held = ExitStack()
            self.fd = self.held.enter_context(hostile.directory(self.run, head, what=head))
            self.parent = head
        with hostile.directory(self.fd, name, what=rel) as trial:
            yield trial


def read_listed(dirs: TrialDirs, directory: Path, rel: str) -> tuple[TrialResult | None, str]:
    """The trial at `rel` (a listed trial directory) of the run in `directory`, opened by
    `dirs`; or None and why not."""
    try:
        with dirs.open(rel) as trial:
            return read_in(trial, directory, rel)
    except FileNotFoundError:
        return _trial(None, directory, f"{rel}/trial.json")
    except (hostile.HostileInput, OSError) as exc:
        return None, f"trial.json not read: {exc}"


def read_in(trial: int, directory: Path, rel: str) -> tuple[TrialResult | None, str]:
    """The trial.json in `trial`, the descriptor of the trial directory `rel` of the run in
    `directory` (for messages); or None and why not."""
    name = f"{rel}/trial.json"
    try:
        data = hostile.read_bytes(trial, "trial.json", TRIAL_LIMIT, what=name)
    except (hostile.HostileInput, OSError) as exc:
        return None, f"trial.json not read: {exc}"
    return _trial(data, directory, name)


def load_run(directory: Path, listing: "Listing | None" = None) -> LoadedRun:
    """The run and every trial result in `directory`; `listing`: where its trials are, as
    `list_trials` found them (else they are looked for now)."""
    directory = Path(directory)
    if not directory.is_dir() or directory.is_symlink():
        raise NotARun(f"{directory}: not a directory")
    run = read_run(directory)
    complete = hostile.is_file(directory, RunPaths(directory).result.name)
    skipped: list[str] = []  # directories that did not list, then trials that did not read
    unread: list[str] = []
    trials: list[tuple[str, TrialResult]] = []
    with hostile.directory(directory) as fd, collector_paused():
        if listing is None:
            listing = Listing(_walk(fd, skipped) if hostile.lexists(fd, "trials") else [], [])
        skipped += listing.skipped
        with TrialDirs(fd) as dirs:
            for rel in listing.rels:
                trial, why = read_listed(dirs, directory, rel)
                if trial is None:
                    unread.append(f"{rel}: {why}")
                else:
                    trials.append((rel, trial))
    if run is None and not trials and not unread:
        raise NotARun(NOT_A_RUN.format(directory))
    return LoadedRun(
        directory,
        run or RunResult.model_validate({}),
        complete,
        trials=trials,
        skipped=skipped + unread,
        listed=listing.rels,
    )
