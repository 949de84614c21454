"""The report in a real browser: Debian's `chromium`, headless, driven by Playwright.

It loads the report of a real run of three agents (oracle, no-op and a replay whose command
prints a script tag) on one small task, made by `kubeproof run` in this module, and of the
synthetic run of tests/report/synth.py: every page renders without a console error, every
link leads to a page, the leaderboard's numbers are those of the trials' trial.json and of
the results database (`kubeproof runs show`), agent text never runs, the matrix filters
filter, and screenshots of the leaderboard and of a trial page are saved (their directory
is printed; $KUBEPROOF_ARTIFACTS moves it).

KUBEPROOF_REPORT_TEST_RUN=DIR uses an existing run directory instead of making one.
"""

import json
import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from kubeproof.report import build_report
from tests.conftest import run_cli
from tests.report.synth import ATTACK, make_run

playwright = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)"
)
TASK = "tasks/repair/rbac-access/pod-report-empty"  # small: one namespace, a quick oracle
JUDGED_OUT = ("error", "invalid", None)


@pytest.fixture(scope="module")
def real_run(tmp_path_factory, request) -> Path:
    if existing := os.environ.get("KUBEPROOF_REPORT_TEST_RUN"):
        return Path(existing)
    request.getfixturevalue("binaries_built")
    tmp = tmp_path_factory.mktemp("report-run")
    replay = tmp / "commands.txt"
    replay.write_text(f'echo "{ATTACK}"\nkubectl get pods -A\nsubmit\n')
    out = tmp / "run"
    result = run_cli(
        "run", "--tasks", TASK, "--agent", "oracle", "--agent", "noop",
        "--agent", f"replay:{replay}", "--out", str(out), "-o", "json", timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (out / "report" / "index.html").is_file()  # every run ends in its report
    assert f"report: {out / 'report' / 'index.html'}" in result.stderr
    return out


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def artifacts(tmp_path) -> Path:
    where = Path(os.environ.get("KUBEPROOF_ARTIFACTS") or tmp_path / "artifacts")
    where.mkdir(parents=True, exist_ok=True)
    print(f"report screenshots: {where}")
    return where


def expected_rows(run: Path) -> dict[str, tuple[int, int, int]]:
    """Per agent (trials, judged, passed), read from the trial.json files themselves."""
    rows: dict[str, list[int]] = {}
    for path in (run / "trials").glob("*/*/*/trial.json"):
        trial = json.loads(path.read_text())
        row = rows.setdefault(trial["agent"], [0, 0, 0])
        row[0] += 1
        judged = trial.get("verdict") not in JUDGED_OUT
        row[1] += judged
        row[2] += judged and trial["score"] == 1
    return {agent: tuple(row) for agent, row in rows.items()}


def database_rows(run: Path, db: Path) -> dict[str, tuple[int, int, int]]:
    """Per agent (trials, judged, passed) as the results database has them (`kubeproof runs
    show -o json`, which imports the run); its agents are labels (the trial directories'
    names), mapped back to the specs the report shows."""
    result = run_cli("runs", "show", str(run), "--db", str(db), "-o", "json")
    assert result.returncode == 0, result.stderr
    spec = {
        path.parent.parent.name: json.loads(path.read_text())["agent"]
        for path in (run / "trials").glob("*/*/*/trial.json")
    }
    return {
        spec[row["agent"]]: (row["trials"], row["judged"], row["passed"])
        for row in json.loads(result.stdout)["stats"]
        if row["slice"] == "all"
    }


def crawl(browser, index: Path) -> tuple[set[Path], list[str]]:
    """Every page reachable from index.html, and every console error, failed request or
    broken link met on the way."""
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    seen: set[Path] = set()
    queue = [index.resolve()]
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        if not path.is_file():
            problems.append(f"broken link: {path}")
            continue
        page.goto(path.as_uri())
        if page.title() == "pwned" or not page.title():
            problems.append(f"{path}: title {page.title()!r}")
        for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
            url = urlparse(href)
            if url.scheme != "file":
                problems.append(f"{path}: a link out of the report: {href}")
            else:
                queue.append(Path(unquote(url.path)))
    page.close()
    return seen, problems


def check_report(browser, run: Path, out: Path, artifacts: Path, name: str) -> None:
    index = build_report([run], out)
    pages, problems = crawl(browser, index)
    assert problems == []
    assert len(pages) == len(list(out.rglob("*.html")))  # every page is linked
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.goto(index.as_uri())
    shown = {}
    for row in page.locator("#leaderboard tr[data-slice='all']").all():
        cells = row.locator("td").all_inner_texts()  # what a reader sees
        shown[cells[0]] = (int(cells[2]), int(cells[4]), int(cells[5]))
    assert shown == expected_rows(run) == database_rows(run, out.parent / "results.db")
    page.screenshot(path=str(artifacts / f"{name}-leaderboard.png"), full_page=True)
    page.goto((out / "matrix.html").as_uri())
    rows = page.locator("#matrix tbody tr")
    area = page.locator("#filter-area option").all_inner_texts()[-1]
    page.select_option("#filter-area", area)
    visible = [r.get_attribute("data-area") for r in rows.all() if r.is_visible()]
    assert visible and set(visible) == {area}
    trial = max((out / "trials").iterdir(), key=lambda p: p.stat().st_size)
    page.goto(trial.as_uri())
    assert page.title() != "pwned" and page.locator("#verdict").inner_text()
    page.screenshot(path=str(artifacts / f"{name}-trial.png"), full_page=True)
    page.close()
    assert (artifacts / f"{name}-leaderboard.png").stat().st_size > 10_000


def test_synthetic_run_in_browser(browser, tmp_path, artifacts):
    check_report(browser, make_run(tmp_path / "run"), tmp_path / "site", artifacts, "synthetic")


@pytest.mark.cluster
@pytest.mark.timeout(1800)  # the module's run (three trials, one at a time) is made in it
def test_real_run_in_browser(browser, real_run, tmp_path, artifacts):
    check_report(browser, real_run, tmp_path / "site", artifacts, "real")
    page = browser.new_page()
    seen = set()
    for trial in (tmp_path / "site" / "trials").iterdir():
        page.goto(trial.as_uri())
        seen.add(page.locator("#chain").inner_text().split(":")[0])
        assert page.title() != "pwned"
    page.close()
    assert seen == {"chain verified"}  # every real trial's evidence chain verifies


def test_track_sections_in_browser(browser, tmp_path, artifacts):
    """The generate and netpol sections (synthetic runs of tests/report/synth_tracks.py)
    render without a console error, their links lead to pages of the report, and a reader
    sees the numbers: NetArena's order, strict pass, Tu absent. (The other pages are
    crawled by the tests above: here the leaderboard page only, a page load being seconds
    on a loaded machine.)"""
    from tests.report.synth_tracks import make_generate_run, make_netpol_run

    runs = [make_generate_run(tmp_path / "gen"), make_netpol_run(tmp_path / "np")]
    index = build_report(runs, tmp_path / "site")
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(m.text))
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(index.as_uri())
    links = page.eval_on_selector_all(
        "#generate a[href], #generate ~ * a[href]", "els => els.map(e => e.href)"
    )
    assert any("/compare/" in link for link in links)
    for link in links:
        url = urlparse(link)
        assert url.scheme == "file" and Path(unquote(url.path)).is_file(), link
    board = page.locator("#netpol-leaderboard tbody tr")
    assert [r.locator("td").nth(1).inner_text() for r in board.all()] == [
        "np/oracle", "np/allow-all", "np/noop",
    ]  # fmt: skip
    model = page.locator("#generate-leaderboard tr[data-agent='gen/model:x'] td")
    assert model.nth(7).inner_text().startswith("2/5 · 40%")
    noop = page.locator("#generate-leaderboard tr[data-agent='gen/noop'] td")
    assert noop.nth(8).inner_text() == "absent"
    page.locator("a[href='#netpol']").click()
    assert page.locator("#netpol-faults").is_visible()
    page.screenshot(path=str(artifacts / "tracks-leaderboard.png"), full_page=True)
    page.close()
    assert problems == []
