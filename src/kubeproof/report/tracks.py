"""The leaderboard page's track sections, computed once per report: the generate track's
tables (docs/generate.md, "Reports") with the paired comparison of its agents, and the
netpol track's NetArena-ordered leaderboard and per-fault-type table (docs/netpol.md,
"Scores"). A section is there only when the report holds trials of its track.

The numbers are `kubeproof.results.stats`' (`generate_track`, `netpol_track`, `compare`),
the functions behind `kubeproof generate run` and `kubeproof netpol run`, so the report and
the terminal agree.
"""

from pydantic import BaseModel, Field

from kubeproof.report.numbers import Budget, comparisons
from kubeproof.report.view import Site
from kubeproof.results.stats import Comparison, Outcome
from kubeproof.results.stats.generate_track import Cell, GenerateTables, tables
from kubeproof.results.stats.judge_flags import JudgeFlags, judge_flags
from kubeproof.results.stats.netpol_track import Row, by_fault_type, summarize_keyed
from kubeproof.results.stats.tracks import by_track


class PairView(BaseModel):
    """Two agents compared on the generate tasks both answered."""

    page: str = Field(description="The pair's comparison page (compare/<i>-<j>.html).")
    comparison: Comparison = Field(description="B against A, generate trials only.")


class GenerateView(BaseModel):
    tables: GenerateTables = Field(description="The track's tables.")
    grid: dict[str, dict[str, dict[str, Cell]]] = Field(
        description="Per agent, type and tier (`all` for totals), its cell."
    )
    pairs: list[PairView] = Field(description="Agent pairs that share generate tasks.")
    judge: JudgeFlags | None = Field(None, description="S5's flags; absent: no judge asked.")


class NetpolView(BaseModel):
    leaderboard: list[Row] = Field(description="Per agent, in NetArena's leaderboard order.")
    fault_types: list[tuple[str, list[Row]]] = Field(
        description="Per fault type, every agent's row (leaderboard order)."
    )


class Tracks(BaseModel):
    generate: GenerateView | None = Field(None, description="Absent: no generate trial.")
    netpol: NetpolView | None = Field(None, description="Absent: no netpol trial.")


def _generate_pairs(
    site: Site,
    pairs: list[tuple[int, int]],
    found: dict[str, list[Outcome]],
    compared: dict[tuple[int, int], Comparison],
    budget: Budget,
) -> list[PairView]:
    """The comparison pages' pairs, on generate trials only. A pair whose agents have
    generate trials only was compared so already (its page's comparison is reused, never
    bootstrapped twice); the others are bootstrapped while what the pages left of the
    report's budget lasts."""
    mine = {a: [o for o in found[a] if o.track == "generate"] for a in site.agents}
    wanted = [(i, j) for i, j in pairs if mine[site.agents[i]] and mine[site.agents[j]]]
    mixed = {a for a in site.agents if len(mine[a]) < len(found[a])}
    own = [(i, j) for i, j in wanted if {site.agents[i], site.agents[j]} & mixed]
    fresh = comparisons(site, own, mine, budget) if own else {}
    out = []
    for i, j in wanted:
        c = fresh.get((i, j)) or compared[(i, j)]
        if c.overall.tasks:
            out.append(PairView(page=f"compare/{i}-{j}.html", comparison=c))
    return out


def track_views(
    site: Site,
    pairs: list[tuple[int, int]],
    found: dict[str, list[Outcome]],
    compared: dict[tuple[int, int], Comparison],
    budget: Budget | None = None,
) -> Tracks:
    """Both tracks' sections from one pass over the trials. `found` and `compared` are the
    site's outcomes and the comparison pages' results (pages.py computes them once),
    `budget` what those left of the report's bootstrap budget."""
    generate, netpol = by_track((t.agent, t.result) for t in site.trials)
    out = Tracks()
    got = tables(generate) if generate else None
    if got is not None:
        grid: dict[str, dict[str, dict[str, Cell]]] = {}
        for c in got.grid:
            grid.setdefault(c.agent, {}).setdefault(c.type, {})[c.tier] = c
        out.generate = GenerateView(
            tables=got,
            grid=grid,
            pairs=_generate_pairs(site, pairs, found, compared, budget or Budget()),
            judge=judge_flags(generate),
        )
    rows = summarize_keyed(netpol) if netpol else []
    if rows:
        out.netpol = NetpolView(
            leaderboard=[r for r in rows if r.fault_type == "all"],
            fault_types=by_fault_type(rows),
        )
    return out
