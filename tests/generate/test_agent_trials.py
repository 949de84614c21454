"""Single-shot agents on generate tasks, end to end through `kubeproof generate run` on the
shared embedded cluster: a scripted OpenAI-compatible model answers four tasks (a correct
manifest in prose and a fence, a Role missing a verb, a misnamed Namespace, text with no
YAML); oracle and noop answer the same tasks. Each answer must land at its stage, with the
scores, and the run must read back through `kubeproof runs` and the report."""

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


def trial(out: Path, task, label: str) -> dict:
    return json.loads((out / "trials" / task.id / label / "1" / "trial.json").read_text())


@pytest.fixture(scope="module")
def generated_run(tmp_path_factory, cluster):
    out = tmp_path_factory.mktemp("generate-agents") / "run"
    with FakeLLM(REPLIES) as model:
        done = run_cli(
            "generate", "run",
            *(a for t in TASKS for a in ("--id", t.id)),
            "--agent", f"llm:{model.url}/v1#writer?retry_base_sec=0.05",
            "--agent", "oracle", "--agent", "noop",
            "--prompt", "terse", "--weights", "0.5,0.5,1",
            "--cluster", f"kubeconfig:{cluster.admin_kubeconfig}",
            "--out", str(out), "-o", "json",
            timeout=500,
        )  # fmt: skip
        requests = model.requests
    assert done.returncode == 0, done.stderr[-3000:]
    return out, json.loads(done.stdout), requests


def test_the_model_is_asked_once_a_task_with_the_variant(generated_run):
    _, _, requests = generated_run
    assert len(requests) == len(TASKS)
    for request, task in zip(requests, TASKS, strict=True):
        messages = request["body"]["messages"]
        assert messages[-1] == {"role": "user", "content": task.prompts.terse}
        assert "tools" not in request["body"] and request["body"]["temperature"] == 0


def test_each_answer_fails_at_its_stage_with_its_scores(generated_run):
    out, _, _ = generated_run
    right = trial(out, CORRECT, "llm-writer")
    assert (right["verdict"], right["score"]) == ("resolved", 1), right["reason"]
    g = right["generate"]
    assert (g["ev"], g["ov"], g["acc"], g["p"], g["p_terms"]) == (1, 1, 1, 1.0, ["ev", "ov"])
    assert "tu" not in g and [s["stage"] for s in g["stages"]] == ["S0", "S1", "S2", "S3", "S4"]
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

    misnamed = trial(out, MISNAMED, "llm-writer")
    g = misnamed["generate"]
    assert (misnamed["score"], g["failed_at"], g["ev"], g["ov"]) == (0, "S3", 1, 0)
    assert g["p"] == 0.5 and "missing" in g["stages"][-1]["reason"]

    garbled = trial(out, GARBLED, "llm-writer")
    assert (garbled["verdict"], garbled["generate"]["failed_at"]) == ("failed", "S0")
    assert garbled["generate"]["p"] == 0.0 and garbled["reason"].startswith("S0 extract")


def test_oracle_scores_every_task_and_noop_none(generated_run):
    out, result, _ = generated_run
    for task in TASKS:
        assert trial(out, task, "oracle")["score"] == 1
        assert trial(out, task, "noop")["generate"]["failed_at"] == "S0"
    by_agent = result["summary"]["by_agent"]
    assert by_agent["oracle"]["score"] == 4 and by_agent["noop"]["score"] == 0
    spent = sum(a + b for a, b in (r["usage"] for r in REPLIES))
    assert by_agent[result["agents"][0]]["tokens"] == spent
    assert result["generate"]["prompt"] == "terse" and result["generate"]["weights"]["tu"] == 1.0


def test_the_run_reads_back_through_runs_and_the_report(generated_run):
    out, _, _ = generated_run
    listed = run_cli("runs", "list", "--runs-dir", str(out.parent), "-o", "json")
    assert listed.returncode == 0, listed.stderr
    assert [r["trials"] for r in json.loads(listed.stdout) if r["name"] == out.name] == [12]
    shown = run_cli("runs", "show", str(out), "-o", "json")
    assert shown.returncode == 0, shown.stderr
    trials = json.loads(shown.stdout)["trials"]
    assert {t["track"] for t in trials} == {"generate"} and len(trials) == 12
    index = (out / "report" / "index.html").read_text()
    assert CORRECT.id in index or "configmap" in index
