"""The static HTML report of one or more runs (`kubeproof report`, and `<run>/report/` at
the end of every `kubeproof run`): a directory of pages that opens from the file system
with no network. docs/results.md, "Report".

view.py: the view model and how verdicts read; load.py: run directories into it;
numbers.py: rates and comparisons from `kubeproof.results.stats`; detail.py: a trial's
trajectory, turns, logs and evidence chain; charts.py: inline SVG; pages.py: the pages.
"""

from collections.abc import Callable, Sequence
from pathlib import Path

from kubeproof.report.load import load_site
from kubeproof.report.pages import Clock, write_site
from kubeproof.results.load import LoadedRun


def build_report(
    runs: Sequence[Path | LoadedRun],
    out: Path,
    tasks_dir: Path | None = None,
    *,
    alongside: Callable[[], object] | None = None,
    phases: dict[str, float] | None = None,
) -> Path:
    """Write the report of `runs` into `out`; returns its index.html. A run is its directory,
    or the run as a caller loaded it already (`load_run`, `import_run`): not read twice.
    `alongside`: the caller's work to do while the trial pages are written over the other
    cores (a loaded run's database rows: `Store.import_run`); `phases`: filled with the wall
    seconds of each part of the build."""
    with Clock(phases)("site views"):
        site = load_site(runs, tasks_dir)
    return write_site(site, Path(out), alongside, phases)


__all__ = ["build_report"]
