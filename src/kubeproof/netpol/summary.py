"""A netpol run summarized as NetArena reports it and ours, per agent and fault type, agents
in NetArena's leaderboard order. The rows are computed in
`kubeproof.results.stats.netpol_track`, where the HTML report reads them too (the report
may not import the track); this module is the track's name for them."""

from kubeproof.results.stats.netpol_track import ALL, Row, row, summarize

__all__ = ["ALL", "Row", "row", "summarize"]
