"""Writing the report's pages: Jinja2 templates (package data, autoescape on) over the view
model, into a directory that opens from the file system with no network.

Layout: index.html (leaderboard and plots), matrix.html (+ matrix-N.html: the task-by-agent
matrix, `MATRIX_PAGE` tasks a page), compare.html and compare/<a>-<b>.html (two agents,
paired), tasks/<digest of the task id>.html, trials/<n>.html, assets/ (CSS and the filters'
script). File names are numbers and digests, never anything an agent or a task named.
"""

import gc
import multiprocessing
import os
import shutil
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import combinations
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, Template
from markupsafe import Markup

from kubeproof import hostile
from kubeproof.errors import KubeproofError
from kubeproof.report import charts, fragments, trialpage
from kubeproof.report.detail import load_detail
from kubeproof.report.load import agent_key, load_site, trial_view
from kubeproof.report.numbers import Budget, comparisons, outcomes, rates
from kubeproof.report.tracks import track_views
from kubeproof.report.view import Site, TrialView
from kubeproof.results.load import (
    Listing,
    LoadedRun,
    TrialDirs,
    list_trials,
    load_run,
    read_in,
)
from kubeproof.results.stats import Rates

MATRIX_PAGE = 250  # tasks per matrix page: 10,000 cells stay a few hundred kB
PARALLEL_FROM = 500  # trials: below this, forking costs more than it saves
MAX_WORKERS = 8
NONE = "\N{EN DASH}"  # what a number not known shows
COMPARE_AGENTS = 12  # agents beyond this are compared with the first only (66 pairs at most)


@cache  # one per process: each template compiled once, and inherited by the forked workers
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("kubeproof.report", "templates"),
        autoescape=True,  # every template, whatever its name: agent text is hostile
        undefined=StrictUndefined,
        auto_reload=False,  # package data: no stat of the base template at every page
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pre"] = fragments.pre
    env.filters["steps"] = fragments.steps
    env.filters["results"] = fragments.results
    env.globals["task_rows"] = fragments.task_rows
    env.globals["cells"] = fragments.cells
    env.globals["pair_rows"] = fragments.pair_rows
    env.globals["matrix_rows"] = fragments.matrix_rows
    env.filters["pct"] = lambda v: NONE if v is None else f"{v:.0%}"
    env.filters["num"] = lambda v, d=1: NONE if v is None else f"{v:,.{d}f}"
    env.filters["usd"] = lambda v: NONE if v is None else f"${v:,.4f}"
    # an interval (low, high) after its figure: as rates, or as numbers with d decimals
    env.filters["ci"] = lambda v: "" if v is None else f"[{v[0]:.0%}{NONE}{v[1]:.0%}]"
    env.filters["nci"] = lambda v, d=1: "" if v is None else f"[{v[0]:,.{d}f}{NONE}{v[1]:,.{d}f}]"
    return env


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _assets(out: Path) -> None:
    target = out / "assets"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("report.css", "report.js"):
        source = resources.files("kubeproof.report").joinpath("assets", name)
        with resources.as_file(source) as path:
            shutil.copyfile(path, target / name)


def pairs(agents: list[str]) -> list[tuple[int, int]]:
    """Which agents are compared: every pair of the first `COMPARE_AGENTS`, and each later
    agent against the first."""
    first = list(combinations(range(min(len(agents), COMPARE_AGENTS)), 2))
    return first + [(0, j) for j in range(COMPARE_AGENTS, len(agents))]


def _plots(site: Site, rows: list[Rates]) -> dict:
    index = {a: i for i, a in enumerate(site.agents)}

    def by(slice_: str) -> list:
        groups: dict[str, list] = defaultdict(list)
        for r in rows:
            if r.slice == slice_:
                groups[r.value].append((index[r.agent], r.pass_rate, r.ci_low, r.ci_high))
        return sorted(groups.items())

    overall = [r for r in rows if r.slice == "all"]
    priced = [
        (index[r.agent], r.cost_usd / r.trials, r.pass_rate or 0.0)
        for r in overall
        if r.cost_usd is not None and r.trials
    ]
    timed = [
        (index[r.agent], r.seconds, r.pass_rate or 0.0) for r in overall if r.seconds is not None
    ]
    steps: dict[str, list[int]] = defaultdict(list)
    for t in site.trials:
        if t.result.judged and t.result.steps is not None:
            steps[t.agent].append(t.result.steps)
    return {
        "legend": charts.legend(site.agents),
        "area": charts.rate_bars("Pass rate by area (Wilson 95 % interval)", by("area")),
        "difficulty": charts.rate_bars("Pass rate by difficulty", by("difficulty")),
        "cost": charts.scatter("Pass rate vs cost", "USD per trial", priced) if priced else None,
        "unpriced": [r.agent for r in overall if r.cost_usd is None],
        "time": charts.scatter("Pass rate vs time", "mean seconds per trial", timed),
        "steps": [
            charts.histogram(f"Steps: {a}", index[a], steps[a]) for a in site.agents if steps[a]
        ],
    }


def _matrix_pages(env: Environment, site: Site, out: Path) -> list[str]:
    trials = {t.id: t for t in site.trials}
    chunks = [site.tasks[i : i + MATRIX_PAGE] for i in range(0, len(site.tasks), MATRIX_PAGE)]
    names = [f"matrix{'' if n == 0 else f'-{n + 1}'}.html" for n in range(max(1, len(chunks)))]
    areas = sorted({t.area for t in site.tasks})
    difficulties = sorted({t.difficulty for t in site.tasks})
    template = env.get_template("matrix.html.j2")
    for n, name in enumerate(names):
        _write(
            out / name,
            template.render(
                root="",
                site=site,
                trials=trials,
                tasks=chunks[n] if chunks else [],
                pages=names,
                page=n,
                areas=areas,
                difficulties=difficulties,
            ),
        )
    return names


@dataclass
class _Pages:
    """The trial pages to write: what the forked workers inherit (never pickled)."""

    out: Path
    runs: list[str]  # the run directories' names, for the navigation
    dirs: list[Path]  # the run directories
    several: bool  # several runs: agent keys carry their run's name (load.agent_key)
    jobs: list[tuple[int, int, str]]  # (page number, run index, trial directory in the run)
    # the trials, when they were read before the workers started; else each worker reads
    # the trials of its pages itself, while the caller reads them all for the other pages
    views: dict[int, TrialView] | None = None


_SHARED: _Pages | None = None
_PAGE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC


def _view(shared: _Pages, number: int, run: int, trial: int, rel: str) -> TrialView | None:
    """The trial of page `number`; `trial`: its directory's descriptor."""
    if shared.views is not None:
        return shared.views.get(number)
    result, _ = read_in(trial, shared.dirs[run], rel)  # unread: the caller lists it skipped
    if result is None:
        return None
    key = agent_key(shared.runs[run], result.agent, shared.several)
    return trial_view(number, run, shared.dirs[run], rel, result, key)


def _trial_chunk(first: int, last: int) -> None:
    """Trial pages [first, last) of the jobs: the work of one process."""
    shared = _SHARED
    assert shared is not None
    template = environment().get_template("trial.html.j2")  # compiled before the fork
    layout = _layout(template, {"runs": shared.runs})  # all the layout shows of the site
    with ExitStack() as opened:
        # each run's directory opened once, and a trial's directory once for all its files
        # (no path walked from / per file), and a page written by name in trials/
        runs: dict[int, TrialDirs] = {}
        pages = os.open(shared.out / "trials", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        opened.callback(os.close, pages)
        for number, run, rel in shared.jobs[first:last]:
            if run not in runs:
                fd = opened.enter_context(hostile.directory(shared.dirs[run]))
                runs[run] = opened.enter_context(TrialDirs(fd))
            try:
                with runs[run].open(rel) as trial:
                    page = _page(shared, layout, number, run, trial, rel)
            except (OSError, hostile.HostileInput):  # gone or planted: no page, as unread
                continue
            if page is None:
                continue
            fd = os.open(f"{number}.html", _PAGE_FLAGS, 0o644, dir_fd=pages)
            try:
                data = memoryview(page.encode())
                while data:  # os.write may write less than asked
                    data = data[os.write(fd, data) :]
            finally:
                os.close(fd)


_TITLE, _BODY = "\x00title\x00", "\x00body\x00"  # where a trial page's parts go


def _layout(template: Template, nav: dict) -> tuple[str, str, str]:
    """The trial page's layout around its title and its body, rendered once."""
    page = template.render(root="../", site=nav, title=Markup(_TITLE), body=Markup(_BODY))
    head, _, rest = page.partition(_TITLE)
    mid, _, tail = rest.partition(_BODY)
    return head, mid, tail


def _page(
    shared: _Pages, layout: tuple[str, str, str], number: int, run: int, trial: int, rel: str
) -> str | None:
    view = _view(shared, number, run, trial, rel)
    if view is None:
        return None
    r = view.result
    detail = load_detail(
        Path(view.path),
        r.collateral_per_step or [],
        r.evidence.fingerprint if r.evidence else None,
        within=(trial, "."),
    )
    head, mid, tail = layout
    return "".join((head, trialpage.title(view), mid, trialpage.body(view, r, detail), tail))


WORKER_NICENESS = 5  # CFS weight 335 against the caller's 1024


def _yield_to_caller() -> None:
    """A worker runs at a lower priority than the process that forked it: the caller's part
    (reading every trial, the other pages, the rows alongside) is the longest single line of
    work, and with the workers and the caller sharing the cores equally it would get two
    thirds of a core on two; this way it keeps a core, and the workers share the rest."""
    os.nice(WORKER_NICENESS)


def _workers() -> int:
    return min(os.cpu_count() or 1, MAX_WORKERS)


CHUNKS_PER_WORKER = 8  # small jobs: a worker that was slowed (by the caller's work) takes fewer


@contextmanager
def _trial_pages(shared: _Pages) -> Iterator[None]:
    """A page per trial: most of a report's work (each reads its trial's files and verifies
    its chain). With many trials, forked workers write them over the machine's cores while
    the caller does the rest (reads the runs, writes the other pages); leaving the block
    waits for them."""
    global _SHARED
    _SHARED = shared
    (shared.out / "trials").mkdir(parents=True, exist_ok=True)
    workers = _workers()
    try:
        if len(shared.jobs) < PARALLEL_FROM or workers < 2:
            _trial_chunk(0, len(shared.jobs))
            yield
            return
        # jobs of a few hundred pages, taken in turn: the caller's process competes with the
        # workers for the cores while it does its part, so equal shares fixed up front
        # would leave a core idle at the end while one worker finishes its share
        step = -(-len(shared.jobs) // (workers * CHUNKS_PER_WORKER))
        environment().get_template("trial.html.j2")  # compiled here once, not in each worker
        # what is built so far leaves the collector's generations, so that neither this
        # process nor the workers it forks scan it again at every full collection (and the
        # workers' copies of its pages stay shared)
        gc.freeze()
        # fork: the workers inherit the jobs as they are (nothing pickled); a fork-context
        # pool starts them all at the first submit
        context = multiprocessing.get_context("fork")
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_yield_to_caller)
        with pool:
            starts = range(0, len(shared.jobs), step)
            jobs = [pool.submit(_trial_chunk, i, i + step) for i in starts]
            try:
                yield
            except BaseException:  # the caller's part failed (or was interrupted): no more pages
                for job in jobs:
                    job.cancel()
                raise
            for job in jobs:
                job.result()  # a worker's exception is the report's
    finally:
        _SHARED = None
        gc.unfreeze()  # collectable again once the report is written


MARKER = ".kubeproof-report"  # a directory with it holds a report and only that


def prepare(out: Path) -> None:
    """An empty directory, or an earlier report's, emptied of its pages (a run with fewer
    trials must not leave the last one's pages behind). Any other directory is refused:
    `-o ~` must not mix a report into, or delete from, what is there."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise KubeproofError(f"{out}: not a directory")
    if out.is_dir() and any(out.iterdir()):
        if not (out / MARKER).is_file():
            raise KubeproofError(
                f"{out} is not empty and holds no report: name a new or empty directory"
            )
        for name in ("trials", "tasks", "compare", "assets"):
            if (out / name).is_dir() and not (out / name).is_symlink():
                shutil.rmtree(out / name)
        for page in out.glob("*.html"):
            page.unlink()
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by kubeproof report; its pages are replaced each time\n")


def write_report(
    runs: Sequence[Path | LoadedRun],
    out: Path,
    tasks_dir: Path | None = None,
    alongside: Callable[[list[LoadedRun]], object] | None = None,
    phases: dict[str, float] | None = None,
) -> Path:
    """Every page of the report of `runs` into `out`; returns index.html. A run is its
    directory, or the run as a caller loaded it already. `alongside`: work of the caller's
    on the runs as read (their database rows, say), done in this process while the trial
    pages' workers run. `phases`: filled with the wall seconds of each part (docs/
    results.md, "Size").

    Runs given as directories are listed first; with many trials the workers then start at
    once and read the trials of their own pages, while this process reads every trial for
    the other pages: no core waits for the reading to end."""
    clock = Clock(phases)
    several = len(runs) > 1
    dirs = [r.dir if isinstance(r, LoadedRun) else Path(r) for r in runs]
    names = [d.name for d in dirs]
    listings: list[Listing | None] = [None] * len(runs)
    # what is not a run is refused before `out` is emptied (an earlier report stays)
    if not any(isinstance(r, LoadedRun) for r in runs):
        with clock("listing the runs"):
            listings = [list_trials(d) for d in dirs]
        if sum(len(x.rels) for x in listings if x) >= PARALLEL_FROM and _workers() > 1:
            prepare(out)
            jobs = [
                (number, run, rel)
                for number, (run, rel) in enumerate(
                    (run, rel) for run, x in enumerate(listings) if x for rel in x.rels
                )
            ]
            shared = _Pages(out, names, dirs, several, jobs)
            with clock("trial pages (workers)"), _trial_pages(shared):
                _rest(runs, listings, out, tasks_dir, alongside, clock)
            return out / "index.html"
    with clock("reading the runs"):
        loaded = [_load(r, x) for r, x in zip(runs, listings, strict=True)]
    with clock("site views"):
        site = load_site(loaded, tasks_dir)
    prepare(out)
    jobs = [(t.id, t.source, t.rel) for t in site.trials]
    shared = _Pages(out, names, dirs, several, jobs, {t.id: t for t in site.trials})
    with clock("trial pages (workers)"), _trial_pages(shared):
        _others_and_alongside(site, out, loaded, alongside, clock)
    return out / "index.html"


def _load(run: Path | LoadedRun, listing: Listing | None) -> LoadedRun:
    return run if isinstance(run, LoadedRun) else load_run(Path(run), listing)


def _rest(
    runs: Sequence[Path | LoadedRun],
    listings: list[Listing | None],
    out: Path,
    tasks_dir: Path | None,
    alongside: Callable[[list[LoadedRun]], object] | None,
    clock: "Clock",
) -> list[LoadedRun]:
    """What this process does while the workers write the trial pages."""
    with clock("reading the runs"):
        loaded = [_load(r, x) for r, x in zip(runs, listings, strict=True)]
    with clock("site views"):
        site = load_site(loaded, tasks_dir)
    _others_and_alongside(site, out, loaded, alongside, clock)
    return loaded


_SITE: tuple[Site, Path] | None = None  # what the other pages' process inherits


def _other_pages_inherited() -> None:
    assert _SITE is not None
    _other_pages(*_SITE)


def _others_and_alongside(
    site: Site,
    out: Path,
    loaded: list[LoadedRun],
    alongside: Callable[[list[LoadedRun]], object] | None,
    clock: "Clock",
) -> None:
    """The pages other than trials', and the caller's work on the runs. For a large report
    with work alongside, a forked process writes the pages while this one does the work:
    each is a core's worth (the statistics, thousands of task pages; the rows), and they
    need nothing of each other. The trial pages' workers, at a lower priority, fill in."""
    global _SITE
    if alongside is None or len(site.trials) < PARALLEL_FROM or _workers() < 2:
        with clock("other pages"):
            _other_pages(site, out)
        if alongside is not None:
            with clock("alongside"):
                alongside(loaded)
        return
    _SITE = site, out
    try:
        with clock("other pages"):
            gc.freeze()  # the site stays shared with the fork, never scanned
            # forked beside the trial pages' pool, whose manager thread holds no lock
            # while it waits on its workers (Python 3.11's ProcessPoolExecutor)
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(1, mp_context=context) as pool:
                pages = pool.submit(_other_pages_inherited)
                with clock("alongside"):
                    alongside(loaded)
                pages.result()  # its exception is the report's
    finally:
        _SITE = None


class Clock:
    """Wall seconds of named parts into `phases` (nothing when None)."""

    def __init__(self, phases: dict[str, float] | None):
        self.phases = phases

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.monotonic()
        try:
            yield
        finally:
            if self.phases is not None:
                self.phases[name] = self.phases.get(name, 0.0) + time.monotonic() - start


def _other_pages(site: Site, out: Path) -> None:
    env = environment()
    _assets(out)
    found = outcomes(site)  # once: the rates, the comparisons and the track sections
    rows = rates(site, found)
    per_agent: dict[str, list[Rates]] = defaultdict(list)
    for r in rows:
        per_agent[r.agent].append(r)
    compared = pairs(site.agents)
    budget = Budget()  # the bootstrap's, shared by the pages and the generate section
    results = comparisons(site, compared, found, budget)
    matrix = _matrix_pages(env, site, out)
    _write(
        out / "index.html",
        env.get_template("index.html.j2").render(
            root="",
            site=site,
            per_agent=per_agent,
            plots=_plots(site, rows),
            matrix=matrix,
            tracks=track_views(site, compared, found, results, budget),
        ),
    )
    by_id: dict[int, TrialView] = {t.id: t for t in site.trials}
    task_template = env.get_template("task.html.j2")
    for task in site.tasks:
        _write(
            out / "tasks" / f"{task.page}.html",
            task_template.render(root="../", site=site, task=task, trials=by_id),
        )
    compare_template = env.get_template("compare.html.j2")
    for (i, j), pair in results.items():
        a, b = site.agents[i], site.agents[j]
        _write(
            out / "compare" / f"{i}-{j}.html",
            compare_template.render(
                root="../",
                site=site,
                a=a,
                b=b,
                c=pair,
                tasks=site.tasks,
                trials=by_id,
            ),
        )
    _write(
        out / "compare.html",
        env.get_template("compare_index.html.j2").render(root="", site=site, pairs=compared),
    )
