"""The static HTML report of one or more runs (`kubeproof report`, and `<run>/report/` at
the end of every `kubeproof run`): a directory of pages that opens from the file system
with no network. docs/results.md, "Report".

view.py: the view model and how verdicts read; load.py: run directories into it;
numbers.py: rates and comparisons from `kubeproof.results.stats`; detail.py: a trial's
trajectory, turns, logs and evidence chain; charts.py: inline SVG; pages.py: the pages.
"""

from pathlib import Path

from kubeproof.report.load import load_site
from kubeproof.report.pages import write_site


def build_report(runs: list[Path], out: Path, tasks_dir: Path | None = None) -> Path:
    """Write the report of `runs` into `out`; returns its index.html."""
    return write_site(load_site([Path(r) for r in runs], tasks_dir), Path(out))


__all__ = ["build_report"]
