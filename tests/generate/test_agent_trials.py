"""Single-shot agents on generate tasks, end to end through `kubeproof generate run` on the
shared embedded cluster: a scripted OpenAI-compatible model answers four tasks (a correct
manifest in prose and a fence, a Role missing a verb, a misnamed Namespace, text with no
YAML); oracle and noop answer the same tasks. Each answer must land at its stage, with the
scores, and the run must read back through `kubeproof runs` and the report. An LLM judge (S5,
another scripted server) reviews every answer past S0: a good verdict on one task, a quality
out of range on another, prose on a third; Tu enters P only where it came, no verdict moves,
and a second run takes the judge's verdict from the cache."""

import json
from pathlib import Path

import pytest

from kubeproof.generate.model import Tier
from kubeproof.generate.task import generate
from tests.agents.fake_llm import FakeLLM
from tests.conftest import run_cli

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(600)]

CORRECT = generate("configmap", Tier.easy, 3)
DROP_VERB = generate("role", Tier.intermediate, 5)
MISNAMED = generate("namespace", Tier.advanced, 1)  # its objects move with it (generator v2)
GARBLED = generate("secret", Tier.easy, 2)
TASKS = [CORRECT, DROP_VERB, MISNAMED, GARBLED]


def _mutant(task, operator):
    return next(m.answer for m in task.mutants if m.operator == operator)


REPLIES = [
    {"content": f"Here it is:\n```yaml\n{CORRECT.reference}```\nApply it.", "usage": (210, 60)},
    {"content": _mutant(DROP_VERB, "drop_verb"), "usage": (230, 80)},
    {"content": f"```yaml\n{_mutant(MISNAMED, 'wrong_name')}```", "usage": (250, 150)},
    {"content": "I cannot write YAML: kind: {{ unclosed", "usage": (190, 12)},
]


def judge_reply(body: dict) -> dict:
    """The judge's verdict by the task it is shown (its order of asking is the workers')."""
    asked = body["messages"][-1]["content"]
    if CORRECT.prompts.full in asked:
        verdict = {"flags": [{"code": "best_practice", "detail": "no labels"}], "quality": 0.8}
        return {"content": json.dumps(verdict), "usage": (700, 30)}
    if DROP_VERB.prompts.full in asked:
        return {"content": json.dumps({"flags": [], "quality": 1.5}), "usage": (700, 20)}
    return {"content": "The manifest looks fine to me.", "usage": (700, 10)}


def trial(out: Path, task, label: str) -> dict:
    return json.loads((out / "trials" / task.id / label / "1" / "trial.json").read_text())


@pytest.fixture(scope="module")
def generated_run(tmp_path_factory, cluster):
    out = tmp_path_factory.mktemp("generate-agents") / "run"
    with FakeLLM(REPLIES) as model, FakeLLM(judge_reply) as judge:
        done = run_cli(
            "generate", "run",
            *(a for t in TASKS for a in ("--id", t.id)),
            "--agent", f"llm:{model.url}/v1#writer?retry_base_sec=0.05",
            "--agent", "oracle", "--agent", "noop",
            "--prompt", "terse", "--weights", "0.5,0.5,1",
            "--judge", f"llm:{judge.url}/v1#reviewer?price_in=1&price_out=2",
            "--cluster", f"kubeconfig:{cluster.admin_kubeconfig}",
            "--out", str(out), "-o", "json",
            timeout=500,
        )  # fmt: skip
        requests, judged = model.requests, judge.requests
    assert done.returncode == 0, done.stderr[-3000:]
    return out, json.loads(done.stdout), requests, judged


def test_the_model_is_asked_once_a_task_with_the_variant(generated_run):
    _, _, requests, _ = generated_run
    assert len(requests) == len(TASKS)
    for request, task in zip(requests, TASKS, strict=True):
        messages = request["body"]["messages"]
        assert messages[-1] == {"role": "user", "content": task.prompts.terse}
        assert "tools" not in request["body"] and request["body"]["temperature"] == 0


def test_each_answer_fails_at_its_stage_with_its_scores(generated_run):
    out, _, _, _ = generated_run
    right = trial(out, CORRECT, "llm-writer")
    assert (right["verdict"], right["score"]) == ("resolved", 1), right["reason"]
    g = right["generate"]
    assert (g["ev"], g["ov"], g["acc"], g["tu"]) == (1, 1, 1, 0.8)
    assert (g["p"], g["p_terms"]) == (0.9, ["ev", "ov", "tu"])  # (0.5 + 0.5 + 0.8) / 2
    assert [s["stage"] for s in g["stages"]] == ["S0", "S1", "S2", "S3", "S4"]
    assert right["usage"]["tokens_in"] == 210 and right["usage"]["cost_usd"] == 0.0
    assert (
        (out / "trials" / CORRECT.id / "llm-writer" / "1" / "answer.txt")
        .read_text()
        .startswith("Here it is")
    )

    dropped = trial(out, DROP_VERB, "llm-writer")
    g = dropped["generate"]
    assert (dropped["score"], g["failed_at"], g["ev"], g["ov"], g["acc"]) == (0, "S4", 1, 1, 0)
    assert g["under_grant"] > 0 == g["over_grant"] and g["p"] == 1.0  # P has no Acc term
    assert "tu" not in g and g["p_terms"] == ["ev", "ov"]  # the judge's 1.5 was refused

    misnamed = trial(out, MISNAMED, "llm-writer")
    g = misnamed["generate"]
    assert (misnamed["score"], g["failed_at"], g["ev"], g["ov"]) == (0, "S3", 1, 0)
    assert g["p"] == 0.5 and "missing" in g["stages"][-1]["reason"]

    garbled = trial(out, GARBLED, "llm-writer")
    assert (garbled["verdict"], garbled["generate"]["failed_at"]) == ("failed", "S0")
    assert garbled["generate"]["p"] == 0.0 and garbled["reason"].startswith("S0 extract")


def test_the_judge_adds_to_the_report_and_moves_no_verdict(generated_run):
    out, result, _, judged = generated_run
    asked = [r["body"]["messages"][-1]["content"] for r in judged]
    # every answer past S0 once: the writer's three and the oracle's four (a call retried
    # after a dropped connection is counted in its trial's `calls`)
    calls = {
        (t.id, label): trial(out, t, label)["generate"]["judge"]["calls"]
        for t in TASKS
        for label in ("llm-writer", "oracle", "noop")
    }
    skipped = {(GARBLED.id, "llm-writer")} | {(t.id, "noop") for t in TASKS}
    assert {k for k, n in calls.items() if n == 0} == skipped, calls
    assert sum(calls.values()) == len(judged)
    for task_id, label in set(calls) - skipped:
        answer = (out / "trials" / task_id / label / "1" / "answer.txt").read_text()
        assert any(answer in a for a in asked), (task_id, label)
    assert all(r["body"]["temperature"] == 0 for r in judged)
    right = trial(out, CORRECT, "llm-writer")["generate"]["judge"]
    assert (right["status"], right["quality"], right["judge"]) == ("judged", 0.8, "openai/reviewer")
    assert right["flags"] == [{"code": "best_practice", "detail": "no labels"}]
    assert (right["tokens_in"], right["cost_usd"]) == (700, pytest.approx(760 / 1e6))
    assert (
        "S5 judged by openai/reviewer"
        in (out / "trials" / CORRECT.id / "llm-writer" / "1" / "verifier.log").read_text()
    )
    failures = [
        (DROP_VERB, "llm-writer", "less than or equal to 1"),
        (DROP_VERB, "oracle", "less than or equal to 1"),
        (MISNAMED, "llm-writer", "not strict JSON"),
        (MISNAMED, "oracle", "not strict JSON"),
        (GARBLED, "oracle", "not strict JSON"),
    ]
    for task, label, says in failures:
        judge = trial(out, task, label)["generate"]["judge"]
        assert judge["status"] == "failed" and says in judge["reason"], judge
    oracle = trial(out, DROP_VERB, "oracle")
    assert oracle["score"] == 1 and oracle["generate"]["p_terms"] == ["ev", "ov"]
    for label in ("llm-writer", "noop"):
        assert trial(out, GARBLED, label)["generate"]["judge"]["status"] == "skipped"
    assert (
        result["generate"]["judge"].startswith("llm:")
        and result["generate"]["judge_prompt_version"]
    )
    spent = sum(a + b for a, b in (r["usage"] for r in REPLIES))
    assert result["summary"]["by_agent"][result["agents"][0]]["tokens"] == spent  # agent's only


def test_a_second_run_takes_the_judges_verdict_from_the_cache(generated_run, cluster):
    out, _, _, _ = generated_run
    again = out.parent / "again"
    with FakeLLM([]) as judge:  # another port: the cache key names the model, not the URL
        done = run_cli(
            "generate", "run", "--id", CORRECT.id, "--agent", "oracle",
            "--judge", f"llm:{judge.url}/v1#reviewer",
            "--cluster", f"kubeconfig:{cluster.admin_kubeconfig}",
            "--out", str(again), "-o", "json",
            timeout=200,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        assert judge.requests == []
    verdict = trial(again, CORRECT, "oracle")["generate"]["judge"]
    assert (verdict["status"], verdict["quality"], verdict["cached"]) == ("judged", 0.8, True)
    assert (verdict["calls"], verdict["tokens_in"]) == (0, 0)
    assert list((out.parent / "cache" / "generate-judge").rglob("*.json"))


def test_oracle_scores_every_task_and_noop_none(generated_run):
    out, result, _, _ = generated_run
    for task in TASKS:
        assert trial(out, task, "oracle")["score"] == 1
        assert trial(out, task, "noop")["generate"]["failed_at"] == "S0"
    by_agent = result["summary"]["by_agent"]
    assert by_agent["oracle"]["score"] == 4 and by_agent["noop"]["score"] == 0
    spent = sum(a + b for a, b in (r["usage"] for r in REPLIES))
    assert by_agent[result["agents"][0]]["tokens"] == spent
    assert result["generate"]["prompt"] == "terse" and result["generate"]["weights"]["tu"] == 1.0


def test_the_run_reads_back_through_runs_and_the_report(generated_run):
    out, _, _, _ = generated_run
    listed = run_cli("runs", "list", "--runs-dir", str(out.parent), "-o", "json")
    assert listed.returncode == 0, listed.stderr
    assert [r["trials"] for r in json.loads(listed.stdout) if r["name"] == out.name] == [12]
    shown = run_cli("runs", "show", str(out), "-o", "json")
    assert shown.returncode == 0, shown.stderr
    trials = json.loads(shown.stdout)["trials"]
    assert {t["track"] for t in trials} == {"generate"} and len(trials) == 12
    index = (out / "report" / "index.html").read_text()
    assert CORRECT.id in index or "configmap" in index


def test_the_run_prints_the_reports_leaderboard(generated_run):
    """`-o json` holds the track's tables (results/stats/generate_track.py), the figures
    the text table and the HTML report show."""
    _, result, _, _ = generated_run
    summary = result["generate_summary"]
    board = {row["agent"].split(":")[0]: row for row in summary["leaderboard"]}
    writer, oracle, noop = board["llm"], board["oracle"], board["noop"]
    assert summary["leaderboard"][0]["agent"] == "oracle"  # strict pass first
    # the correct answer passes; drop_verb fails S4, the misnamed Namespace S3, garble S0
    assert (writer["judged"], writer["strict"], writer["ev"], writer["ov"], writer["acc"]) == (
        4, 1, 0.75, 0.5, 0.25,
    )  # fmt: skip
    assert writer["p"] == (1 + 1 + 0.5 + 0) / 4  # P over Ev and Ov, weights 0.5, 0.5
    assert (oracle["strict"], noop["strict"], noop["tu"], noop["tu_judged"]) == (4, 0, None, 0)
    ladder = {row["agent"].split(":")[0]: row for row in summary["ladder"]}
    assert ladder["llm"]["failed_at"] == {"S0": 1, "S1": 0, "S2": 0, "S3": 1, "S4": 1}
    assert ladder["noop"]["s0"] == {"empty": 4}
    grants = {(g["agent"].split(":")[0], g["type"]): g for g in summary["grants"]}
    assert grants[("llm", "role")]["under"] == 1 and grants[("llm", "role")]["over"] == 0
