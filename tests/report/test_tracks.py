"""The leaderboard page's track sections (report/tracks.py, templates/track_*.html.j2) on
runs with known outcomes (tests/report/synth_tracks.py): the numbers as the page shows them,
the sections only when the report holds trials of their track, agent names as text. No
cluster."""

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kubeproof.report import build_report
from kubeproof.report.load import load_site
from kubeproof.report.numbers import comparisons, outcomes
from kubeproof.report.pages import pairs
from kubeproof.report.tracks import track_views
from kubeproof.results.stats import wilson
from tests.report.synth import ATTACK, make_run
from tests.report.synth_tracks import ANSWERS, TERSE, make_generate_run, make_netpol_run

DASH = "\N{EN DASH}"  # what the page shows for a number not known, and between bounds


class Tables(HTMLParser):
    """Every table of a page by id: its body rows as (attributes, cell texts)."""

    def __init__(self, html: str):
        super().__init__()
        self.tables: dict[str, list[tuple[dict, list[str]]]] = {}
        self._table: str | None = None
        self._row: tuple[dict, list[str]] | None = None
        self._cell: list[str] | None = None
        self._head = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id"):
            self._table = a["id"]
            self.tables[self._table] = []
        elif tag == "thead":
            self._head = True
        elif tag == "tr" and self._table and not self._head:
            self._row = (a, [])
            self.tables[self._table].append(self._row)
        elif tag == "td" and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = None
        elif tag == "thead":
            self._head = False
        elif tag == "td" and self._row is not None and self._cell is not None:
            self._row[1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr":
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def pct(low_high: tuple[float, float]) -> str:
    return f"[{low_high[0]:.0%}{DASH}{low_high[1]:.0%}]"


@pytest.fixture
def generate_page(tmp_path) -> str:
    run = make_generate_run(tmp_path / "gen")
    return build_report([run], tmp_path / "site").read_text()


def test_generate_leaderboard_as_shown(generate_page):
    rows = {
        a["data-agent"]: cells for a, cells in Tables(generate_page).tables["generate-leaderboard"]
    }
    assert list(rows) == ["oracle", "model:x", "noop"]  # strict pass first
    # agent, trials, errors, judged, Ev, Ov, Acc, strict [CI], Tu, P (Ev, Ov), P (+Tu), unsafe
    assert rows["model:x"] == [
        "model:x", "6", "1", "5", "0.80", "0.80", "0.40",
        f"2/5 · 40% {pct(wilson(2, 5))}", "0.80 (1 judged)", "0.80", "0.93", "0",
    ]  # fmt: skip
    assert rows["oracle"][7] == f"6/6 · 100% {pct(wilson(6, 6))}"
    assert rows["noop"][8] == "absent" and rows["noop"][10] == DASH  # Tu never imputed
    assert '<span class="absent">absent</span>' in generate_page


def test_generate_grid_ladder_grants_as_shown(generate_page):
    tables = Tables(generate_page).tables
    ladder = {a["data-agent"]: cells for a, cells in tables["generate-ladder"]}
    # judged, S0..S4, passed, S0's categories
    assert ladder["model:x"][1:] == ["5", "1", "0", "0", "0", "2", "2", "invalid_yaml 1"]
    assert ladder["noop"][1:] == ["6", "6", "0", "0", "0", "0", "0", "empty 6"]
    grants = {(a["data-agent"], a["data-type"]): cells for a, cells in tables["generate-grants"]}
    # judged, matrix asked, exact, under, over [CI], cells under, cells over
    assert grants[("model:x", "role")][2:] == [
        "2",
        "2",
        "0",
        "1",
        f"1 · 50% {pct(wilson(1, 2))}",
        "1",
        "2",
    ]
    assert grants[("noop", "all")][2:] == ["3", "0", "0", "0", "0", "0", "0"]
    assert ("model:x", "configmap") not in grants  # no matrix on that type
    assert 'data-cell="role/easy">0/1 · 0%<' in generate_page  # model:x's grid
    assert 'data-cell="all/all">2/5 · 40%<' in generate_page
    assert 'data-cell="secret/intermediate">1/1 · 100%<' in generate_page  # oracle's
    assert "Each agent was asked in one prompt variant" in generate_page


def test_generate_judge_flags_as_shown(tmp_path):
    """S5's table: per agent the answers the judge was asked about, scored, failed on and
    flagged, each flag code counted; the trial page lists each flag in the judge's words,
    as text. Agents the judge never saw have no row."""
    run = make_generate_run(tmp_path / "gen")
    index = build_report([run], tmp_path / "site")
    rows = {a["data-agent"]: c for a, c in Tables(index.read_text()).tables["generate-judge"]}
    # agent, asked, scored, judge failed, flagged, then each code (most raised first)
    assert rows == {"model:x": ["model:x", "2", "1", "1", "1", "1", "1"]}
    assert "<th>missing_label</th><th>style</th>" in index.read_text()
    pages = [p.read_text() for p in (index.parent / "trials").iterdir()]
    flagged = [p for p in pages if 'id="judge"' in p and "missing_label" in p]
    assert len(flagged) == 1
    assert "judged · Tu 0.80 · local/judge" in flagged[0]
    assert "keys unsorted &lt;script&gt;" in flagged[0] and "<script>document" not in flagged[0]
    failed = [p for p in pages if "the reply was not the strict JSON asked" in p]
    assert len(failed) == 1 and "No flag raised." in failed[0]


def test_generate_pairs_reuse_the_comparison_pages(tmp_path, generate_page):
    paired = {
        (a["data-b"], a["data-a"]): cells
        for a, cells in Tables(generate_page).tables["generate-paired"]
    }
    # tasks, A passed, B passed, only A, only B, McNemar p
    assert paired[("model:x", "oracle")][1:7] == ["5", "5", "2", "3", "0", "0.25"]
    assert paired[("noop", "oracle")][1:7] == ["6", "6", "0", "6", "0", "0.0312"]
    assert 'href="compare/0-2.html">model:x vs oracle</a>' in generate_page
    site = load_site([make_generate_run(tmp_path / "again")])
    found = outcomes(site)
    compared = comparisons(site, pairs(site.agents), found)
    views = track_views(site, pairs(site.agents), found, compared)
    assert views.generate is not None
    # generate trials only: the compare pages' results themselves, not computed twice
    assert all(any(p.comparison is c for c in compared.values()) for p in views.generate.pairs)


def test_generate_pairs_of_agents_with_two_tracks_leave_the_other_out(tmp_path):
    site = load_site([make_generate_run(tmp_path / "gen", extra_repair=True)])
    found = outcomes(site)
    compared = comparisons(site, pairs(site.agents), found)
    views = track_views(site, pairs(site.agents), found, compared)
    assert views.generate is not None
    oracle, model = site.agents.index("oracle"), site.agents.index("model:x")
    assert compared[(oracle, model)].overall.tasks == 6  # the repair task too
    (pair,) = [
        p
        for p in views.generate.pairs
        if p.comparison.b == "model:x" and p.comparison.a == "oracle"
    ]
    assert pair.comparison.overall.tasks == 5 and pair.comparison.overall.only_a == 3


def test_generate_robustness_across_runs(tmp_path):
    full = make_generate_run(tmp_path / "full")
    terse = make_generate_run(
        tmp_path / "terse", "terse", {"model:x": {**ANSWERS["model:x"], **TERSE}}
    )
    page = build_report([full, terse], tmp_path / "site").read_text()
    assert (
        'data-agent="model:x"' in page
        and "5 task(s) — passed in every variant 1, in none 2, in some 2" in page
    )
    (table,) = [t for t in page.split('<table class="numbers robustness"')[1:]]
    body = Tables("<table id='r'" + table).tables["r"]
    assert [(a["data-variant"], cells) for a, cells in body] == [
        ("full", ["full", f"2/5 · 40% {pct(wilson(2, 5))}", DASH, DASH, DASH]),
        ("terse", ["terse", f"2/5 · 40% {pct(wilson(2, 5))}", "1", "1", "1"]),
    ]


def test_netpol_sections_as_shown(tmp_path):
    page = build_report([make_netpol_run(tmp_path / "np")], tmp_path / "site").read_text()
    tables = Tables(page).tables
    board = [(a["data-agent"], cells) for a, cells in tables["netpol-leaderboard"]]
    # NetArena's order: oracle and allow-all tie on (correctness + its safety) / 2 = 1, the
    # fewer iterations first; noop 0.5
    assert [agent for agent, _ in board] == ["oracle", "allow-all", "noop"]
    # rank, agent, trials, errors, score, correctness, NetArena safety, ours, iterations, refused
    oracle, allow_all, noop = (cells for _, cells in board)
    assert oracle[:5] == ["1", "oracle", "3", "0", "1.00"]
    assert allow_all[5:7] == [f"3 · 100% {pct(wilson(3, 3))}"] * 2
    assert allow_all[7] == f"0 · 0% {pct(wilson(0, 3))}"  # correct, but opened paths
    assert allow_all[9] == "1.00"
    assert noop[:5] == ["3", "noop", "3", "1", "0.50"]  # its errored trial apart
    assert noop[7] == f"2 · 67% {pct(wilson(2, 3))}" and noop[8] == f"10.00 [10.0{DASH}10.0]"
    faults = [(a["data-fault"], a["data-agent"], a) for a, _ in tables["netpol-faults"]]
    assert [(f, agent) for f, agent, _ in faults] == [
        ("change-port", "oracle"), ("change-port", "allow-all"), ("change-port", "noop"),
        ("remove-ingress", "oracle"), ("remove-ingress", "allow-all"), ("remove-ingress", "noop"),
    ]  # fmt: skip
    noop_ri = next(a for f, agent, a in faults if (f, agent) == ("remove-ingress", "noop"))
    assert (noop_ri["data-trials"], noop_ri["data-correct"], noop_ri["data-safe"]) == (
        "2",
        "0",
        "1",
    )
    assert 'id="generate"' not in page


def test_sections_only_for_tracks_the_report_holds(tmp_path):
    page = build_report([make_run(tmp_path / "repair")], tmp_path / "site").read_text()
    assert 'id="generate"' not in page and 'id="netpol"' not in page and "Tracks:" not in page
    both = build_report(
        [make_generate_run(tmp_path / "gen"), make_netpol_run(tmp_path / "np")], tmp_path / "both"
    ).read_text()
    assert 'href="#generate"' in both and 'href="#netpol"' in both
    assert 'data-agent="gen/model:x"' in both and 'data-agent="np/allow-all"' in both


def test_agent_names_in_track_sections_are_text(tmp_path):
    answers = {f"model:{ATTACK}": ANSWERS["model:x"], "oracle": ANSWERS["oracle"]}
    page = build_report([make_generate_run(tmp_path / "gen", answers=answers)], tmp_path / "s")
    text = page.read_text()
    assert "<script>document" not in text and "<img src=x" not in text
    assert text.count("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;") >= 5


def test_the_cli_prints_the_netpol_rows_the_report_shows(tmp_path):
    """`kubeproof netpol run` prints and `-o json` gives these rows (netpol/summary.py is
    the track's name for results/stats/netpol_track.py)."""
    from kubeproof.netpol.summary import summarize
    from kubeproof.results.stats.netpol_track import summarize as same

    assert summarize is same
    site = load_site([make_netpol_run(Path(tmp_path) / "np")])
    rows = summarize([t.result for t in site.trials])
    assert [r.agent for r in rows if r.fault_type == "all"] == ["oracle", "allow-all", "noop"]


def test_runs_show_gives_the_track_tables_the_report_shows(tmp_path, monkeypatch):
    """`kubeproof runs show` prints the generate and netpol tables of the report's track
    sections (agents by their labels, as its other rows), and -o json gives them; a run
    without trials of a track has none."""
    from typer.testing import CliRunner

    from kubeproof.cli import app
    from kubeproof.cli.output import console

    # rich fixes the width when the console is made if COLUMNS was set then (CI sets it to
    # 80, which wraps the netpol table's rows); the rows are read whole here
    monkeypatch.setattr(console, "_width", 200)

    def show(run: Path, *options: str) -> str:
        args = ["runs", "show", str(run), "--runs-dir", str(tmp_path), *options]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        return result.output

    gen = make_generate_run(tmp_path / "gen", extra_repair=True)
    data = json.loads(show(gen, "-o", "json"))
    board = {r["agent"]: r for r in data["generate_summary"]["leaderboard"]}
    assert list(board) == ["oracle", "model_x", "noop"]  # strict pass first, as the page
    x = board["model_x"]
    assert (x["trials"], x["judged"], x["strict"], x["tu_judged"]) == (6, 5, 2, 1)
    assert (x["ev"], x["ov"], x["acc"]) == pytest.approx((0.8, 0.8, 0.4))
    assert x["strict_ci"] == pytest.approx(wilson(2, 5), abs=1e-9)
    assert board["oracle"]["trials"] == 6  # its repair trial is not the track's
    assert data["netpol_summary"] == []
    text = show(gen)
    assert "GENERATE TRACK" in text and "NETPOL TRACK" not in text
    assert any(line.split()[:3] == ["model_x", "6", "2/5"] for line in text.splitlines())

    net = make_netpol_run(tmp_path / "np")
    data = json.loads(show(net, "-o", "json"))
    rows = [(r["agent"], r["fault_type"]) for r in data["netpol_summary"]]
    assert [a for a, f in rows if f == "all"] == ["oracle", "allow-all", "noop"]
    noop = next(
        r for r in data["netpol_summary"] if (r["agent"], r["fault_type"]) == ("noop", "all")
    )
    assert (noop["trials"], noop["errors"], noop["iterations"]) == (3, 1, 10.0)
    assert data["generate_summary"] is None
    text = show(net)
    assert "NETPOL TRACK" in text and "GENERATE TRACK" not in text
    assert any(line.split()[:3] == ["allow-all", "all", "3"] for line in text.splitlines())
    assert json.loads(show(make_run(tmp_path / "repair"), "-o", "json"))["netpol_summary"] == []
