"""The generate and netpol tracks' tables in the terminal, as the HTML report shows them
(`kubeproof.results.stats.generate_track` and `netpol_track` compute the rows):
`kubeproof generate run`, `kubeproof netpol run` and `kubeproof runs show` print them."""

from rich.table import Column, Table

from kubeproof.results import TrialResult
from kubeproof.results.stats.generate_track import GenerateTables
from kubeproof.results.stats.netpol_track import ALL, Row


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def generate_table(keyed: list[tuple[str, TrialResult]], summary: GenerateTables) -> Table:
    """The track's leaderboard: strict pass with its Wilson 95 % interval, Ev, Ov, Acc, P
    over Ev and Ov for every answer; with a judge, Tu and the P that holds it over the
    answers it scored (never averaged together) and the judge's tokens. `keyed`: each
    trial with its agent's key in `summary`."""
    judged = any(r.generate and r.generate.judge for _, r in keyed)
    extra = ("TU", "P+TU", "JUDGE-TOK") if judged else ()
    headers = ("TRIALS", "STRICT", "95% CI", "EV", "OV", "ACC", "P", *extra, "TOKENS")
    table = Table("AGENT", *headers, box=None)
    for row in summary.leaderboard:
        mine = [r for agent, r in keyed if agent == row.agent]
        tokens = sum(r.usage.tokens_in + r.usage.tokens_out for r in mine if r.usage)
        spent = sum(
            r.generate.judge.tokens_in + r.generate.judge.tokens_out
            for r in mine
            if r.generate and r.generate.judge
        )
        low, high = row.strict_ci or (None, None)
        columns = (f"{_num(row.tu)} ({row.tu_judged})", _num(row.p_tu), f"{spent:,}")
        table.add_row(
            row.agent,
            str(row.trials),
            f"{row.strict}/{row.judged}",
            f"{_num(low)}-{_num(high)}" if low is not None else "-",
            _num(row.ev),
            _num(row.ov),
            _num(row.acc),
            _num(row.p),
            *(columns if judged else ()),
            f"{tokens:,}" if tokens else "",
        )
    return table


def netpol_table(rows: list[Row]) -> Table:
    """Per agent (NetArena's leaderboard order) and per fault type: correctness with its
    95 % interval, NetArena's safety, ours with its interval, mean iterations with theirs."""
    headers = ["N", "CORRECT", "95% CI", "NA-SAFE", "SAFE", "95% CI", "ITER", "95% CI"]
    table = Table("AGENT", Column("FAULT TYPE", overflow="fold"), *headers, box=None)
    for r in rows:
        style = "bold" if r.fault_type == ALL else None
        table.add_row(
            r.agent if r.fault_type == ALL else "",
            r.fault_type,
            str(r.trials),
            f"{r.correct:.2f}",
            f"{r.correct_ci[0]:.2f}-{r.correct_ci[1]:.2f}",
            f"{r.netarena_safe:.2f}",
            f"{r.safe:.2f}",
            f"{r.safe_ci[0]:.2f}-{r.safe_ci[1]:.2f}",
            f"{r.iterations:.1f}",
            f"{r.iterations_ci[0]:.1f}-{r.iterations_ci[1]:.1f}" if r.iterations_ci else "-",
            style=style,
        )
    return table
