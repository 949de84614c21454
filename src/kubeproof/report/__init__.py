"""The static HTML report of one or more runs (`kubeproof report`, and `<run>/report/` at
the end of every `kubeproof run`): a directory of pages that opens from the file system
with no network. docs/results.md, "Report".

view.py: the view model and how verdicts read; load.py: run directories into it;
numbers.py: rates and comparisons from `kubeproof.results.stats`; detail.py: a trial's
trajectory, turns, logs and evidence chain; charts.py: inline SVG; pages.py: the pages.
"""

from kubeproof.report.pages import write_report as build_report

__all__ = ["build_report"]
