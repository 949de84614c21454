"""The report's view model and pages on a run with known outcomes (tests/report/synth.py):
exact numbers, verdict words, escaping, caps. No cluster."""

import json
import math
from pathlib import Path

import pytest

from kubeproof.errors import KubeproofError
from kubeproof.report import build_report
from kubeproof.report.load import load_site
from kubeproof.report.numbers import comparisons, rates
from kubeproof.report.pages import pairs
from kubeproof.report.view import outcome_word, task_page
from tests.report.synth import ATTACK, make_run

Z = 1.959963984540054  # the normal quantile of a two-sided 95 % interval


def wilson(passed: int, n: int) -> tuple[float, float]:
    """Wilson's score interval, from its formula (not from the code under test)."""
    p = passed / n
    centre = p + Z * Z / (2 * n)
    spread = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return (centre - spread) / (1 + Z * Z / n), (centre + spread) / (1 + Z * Z / n)


@pytest.fixture
def run(tmp_path) -> Path:
    return make_run(tmp_path / "run")


@pytest.fixture
def site(tmp_path, run):
    return load_site([run])


def test_verdict_words():
    assert outcome_word("resolved", "declined") == "not_declined"
    assert outcome_word("resolved", "resolved") == "resolved"
    assert outcome_word("declined", "resolved") == "declined"
    assert outcome_word("declined", "declined") == "declined"
    assert outcome_word(None, "resolved") == "no verdict"


def test_trials_read_as_they_should(site):
    words = {(t.task, t.result.agent): (t.word, t.css) for t in site.trials}
    assert words[("repair/beta/must-decline", "noop")] == ("not_declined", "fail")
    assert words[("repair/beta/must-decline", "oracle")] == ("declined", "pass")
    assert words[("repair/alpha/two", "model:x")] == ("resolved", "unsafe")
    assert words[("repair/beta/three", "noop")] == ("error", "skip")
    assert words[("repair/alpha/one", "noop")] == ("failed", "fail")
    assert site.agents == ["oracle", "noop", "model:x"]  # as the run was given them
    assert [t.task for t in site.tasks] == sorted(t.task for t in site.tasks)
    assert all(len(v) == 1 for t in site.tasks for v in t.trials.values())


def test_leaderboard_numbers_per_agent(site):
    rows = {(r.agent, r.slice, r.value): r for r in rates(site)}
    oracle, noop, model = (rows[(a, "all", "all")] for a in ("oracle", "noop", "model:x"))
    assert (oracle.trials, oracle.judged, oracle.passed, oracle.pass_rate) == (4, 4, 4, 1.0)
    assert (oracle.ci_low, oracle.ci_high) == pytest.approx(wilson(4, 4), abs=1e-6)
    # the error is counted apart, not as a failure; must-decline left alone scores 0
    assert (noop.trials, noop.errors, noop.judged, noop.passed) == (4, 1, 3, 0)
    assert (noop.ci_low, noop.ci_high) == pytest.approx(wilson(0, 3), abs=1e-6)
    assert (model.judged, model.passed, model.pass_rate, model.safe_rate) == (4, 2, 0.5, 0.75)
    assert (model.ci_low, model.ci_high) == pytest.approx(wilson(2, 4), abs=1e-6)
    assert (model.cost_usd, model.tokens, model.steps) == (0.04, 1100, 3)
    assert (noop.cost_usd, noop.tokens) == (None, None)
    assert rows[("model:x", "area", "alpha")].passed == 1
    assert rows[("model:x", "difficulty", "hard")].passed == 1  # must-decline, declined
    assert not any(agent == "all" for agent, _, _ in rows)  # never across agents


def test_comparison(site):
    found = comparisons(site, pairs(site.agents))
    oracle, noop, model = 0, 1, 2
    c = found[(oracle, model)]  # B = model:x against A = oracle
    assert (c.overall.tasks, c.overall.only_a, c.overall.only_b) == (4, 2, 0)
    assert c.overall.p_value == pytest.approx(0.5)  # two discordant tasks: 2 * 0.5**2
    assert c.overall.difference == pytest.approx(-0.5)
    assert c.overall.ci_low is not None  # small: bootstrapped
    assert found[(oracle, noop)].only_in_a == ["repair/beta/three"]  # noop errored there


def test_pages(tmp_path, run):
    index = build_report([run], tmp_path / "site")
    out = index.parent
    html = index.read_text()
    assert 'data-agent="oracle" data-slice="all" data-value="all"' in html
    assert 'data-trials="4" data-judged="3" data-passed="0" data-errors="1"' in html  # noop
    assert "<svg" in html and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )
    assert {p.name for p in (out / "compare").iterdir()} == {"0-1.html", "0-2.html", "1-2.html"}
    assert len(list((out / "trials").iterdir())) == 12 and len(list((out / "tasks").iterdir())) == 4
    matrix = (out / "matrix.html").read_text()
    assert ">not_declined</a>" in matrix and 'data-area="beta" data-difficulty="hard"' in matrix


def test_agent_text_is_text(tmp_path):
    """An attack in every place an agent's text reaches (command, output, model text,
    reason, check names, verifier log) and in an agent's name renders as text."""
    run = make_run(tmp_path / "run", {"model:x": f"model:{ATTACK}"})
    index = build_report([run], tmp_path / "site")
    for page in index.parent.rglob("*.html"):
        text = page.read_text()
        assert "<script>document" not in text and "<img src=x" not in text, page
    trial = next(
        p for p in (index.parent / "trials").iterdir() if "Model turns" in p.read_text()
    ).read_text()
    escaped = "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"
    assert trial.count(escaped) >= 6  # reason, check, command, output, turn, verifier log
    assert escaped in index.read_text()  # the agent's name, in the table and the charts


def test_long_output_is_cut_and_says_so(tmp_path, run):
    index = build_report([run], tmp_path / "site")
    page = (index.parent / "trials" / "0.html").read_text()
    assert "truncated: 30,000 more character(s) not shown" in page
    assert "x" * 20_000 in page and "x" * 20_001 not in page


def test_cli(tmp_path, run):
    from tests.conftest import run_cli

    result = run_cli("report", str(run), "-o", str(tmp_path / "out"), "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["index"] == str(tmp_path / "out" / "index.html")
    assert run_cli("report", str(tmp_path)).returncode == 1  # not a run directory


def test_runs_side_by_side_and_cut_short(tmp_path):
    """Two runs: the same agent in each is two rows. A run killed before run.json (no
    run.json) is reported from its trials."""
    first, second = make_run(tmp_path / "first"), make_run(tmp_path / "second")
    (second / "run.json").unlink()
    site = load_site([first, second])
    assert site.agents[:3] == ["first/oracle", "first/noop", "first/model:x"]
    assert len(site.agents) == 6 and len(site.trials) == 24 and len(site.tasks) == 4
    rows = {(r.agent, r.slice): r for r in rates(site)}
    assert rows[("second/oracle", "all")].passed == 4  # never merged with first/oracle's


def test_directory_reused_only_when_a_report(tmp_path, run):
    out = tmp_path / "site"
    build_report([run], out)
    (out / "trials" / "999.html").write_text("stale")
    build_report([run], out)  # an earlier report: replaced whole
    assert not (out / "trials" / "999.html").exists()
    other = tmp_path / "home"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(KubeproofError, match="holds no report"):
        build_report([run], other)
    assert (other / "notes.txt").read_text() == "mine"
    # what is not a run is refused before the earlier report is emptied
    with pytest.raises(KubeproofError, match="not a run directory"):
        build_report([other], out)
    assert (out / "index.html").is_file() and (out / "trials" / "0.html").is_file()


def test_task_instruction(tmp_path, run):
    """A task's page shows its instruction.md from the library, as text; a symlink in its
    place is not followed."""
    tasks = tmp_path / "tasks"
    (tasks / "repair/alpha/one").mkdir(parents=True)
    (tasks / "repair/alpha/one/instruction.md").write_text(f"Fix it. {ATTACK}\n")
    (tasks / "repair/alpha/two").mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("do not show")
    (tasks / "repair/alpha/two/instruction.md").symlink_to(secret)
    index = build_report([run], tmp_path / "site", tasks)
    one = (index.parent / "tasks" / f"{task_page('repair/alpha/one')}.html").read_text()
    two = (index.parent / "tasks" / f"{task_page('repair/alpha/two')}.html").read_text()
    assert "Fix it. &lt;script&gt;" in one
    assert "do not show" not in two and "instruction.md was not found" in two


def test_after_run(tmp_path, run, capsys):
    """What `kubeproof run` calls when its results are written: the report in <run>/report,
    its path printed; a report that cannot be written warns and never fails the run."""
    from kubeproof.cli.report import after_run

    warnings: list[str] = []
    assert after_run(run, warnings.append) == run / "report" / "index.html"
    assert (run / "report" / "trials" / "0.html").is_file() and warnings == []
    assert f"report: {run / 'report' / 'index.html'}" in capsys.readouterr().err.replace("\n", "")
    assert after_run(tmp_path / "missing", warnings.append) is None
    assert "the HTML report was not written" in warnings[0]


def test_alongside_and_parallel_pages(tmp_path, run, monkeypatch):
    """The caller's work runs on the runs as read while the trial pages are written, once;
    each part's wall time is said; pages written by forked workers taking jobs in turn
    (reading their trials themselves while the caller reads them all, or given them read)
    equal those written in one process, unreadable and symlinked trials included."""
    import re

    from kubeproof.report import pages
    from kubeproof.results.load import load_run

    (run / "trials" / "repair__alpha__two" / "noop" / "1" / "trial.json").write_text("{cut")
    planted = run / "trials" / "repair__alpha__two" / "oracle" / "1"  # a symlinked trial
    planted.rename(tmp_path / "elsewhere")
    planted.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    called: list[object] = []
    phases: dict[str, float] = {}
    one = build_report([run], tmp_path / "one", alongside=called.append, phases=phases)
    assert [[r.dir for r in loaded] for loaded in called] == [[run]]
    assert set(phases) == {
        "listing the runs",
        "reading the runs",
        "site views",
        "trial pages (workers)",
        "other pages",
        "alongside",
    }
    assert phases["trial pages (workers)"] >= phases["other pages"] + phases["alongside"]
    written = sorted(p.name for p in (one.parent / "trials").iterdir())
    assert len(written) == 10  # 12 trial directories, two not read: no page, a gap each
    linked = set(re.findall(r'href="trials/(\d+\.html)"', (one.parent / "matrix.html").read_text()))
    assert linked == set(written)
    monkeypatch.setattr(pages, "PARALLEL_FROM", 1)
    monkeypatch.setattr(pages, "CHUNKS_PER_WORKER", 3)  # 12 trials: jobs of two pages
    monkeypatch.setattr(pages.os, "cpu_count", lambda: 2)
    forked = build_report([run], tmp_path / "forked", alongside=called.append, phases=phases)
    given = build_report([load_run(run)], tmp_path / "given", alongside=called.append)
    assert len(called) == 3

    def failing(loaded):
        raise RuntimeError("the rows did not land")

    with pytest.raises(RuntimeError, match="did not land"):  # the caller's failure is the report's
        build_report([run], tmp_path / "failed", alongside=failing)
    for other in (forked, given):
        assert sorted(p.name for p in (other.parent / "trials").iterdir()) == written
        for page in one.parent.rglob("*.html"):
            assert (other.parent / page.relative_to(one.parent)).read_bytes() == page.read_bytes()


@pytest.mark.parametrize(
    "value", [ATTACK, "plain", "", "a&b\"c'd", 0, -3, 1.5, None, True, ["<x>"], {"k": "<v>"}]
)
def test_fast_escape_is_markupsafes(value):
    """The report's escape (markupsafe's C helper, no Markup per value) gives what
    markupsafe.escape gives, for any value a page inserts."""
    from markupsafe import escape as markupsafe_escape

    from kubeproof.report.fragments import escape

    assert escape(value) == str(markupsafe_escape(value))
