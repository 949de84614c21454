"""The single-shot agent and the track's scores without a cluster: what the model is asked
and what a call costs, through a real HTTP server speaking OpenAI's API; an endpoint that
fails is the harness's error, judged by no stage; the composite P over the terms present."""

import json

import pytest

from kubeproof.agents.spec import parse
from kubeproof.errors import KubeproofError
from kubeproof.generate import single_shot, trials
from kubeproof.generate.model import Tier
from kubeproof.generate.task import generate
from kubeproof.results import TrialResult, Weights
from kubeproof.results.generate import composite
from tests.agents.fake_llm import FakeLLM

TASK = generate("configmap", Tier.easy, 3)


def test_composite_is_over_the_terms_present_tu_never_imputed():
    even = Weights(ev=1, ov=1, tu=1)
    assert composite(even, 1, 0, None) == 0.5
    assert composite(even, 1, 1, 0.0) == pytest.approx(2 / 3, abs=1e-6)
    assert composite(Weights(ev=0.2, ov=0.3, tu=0.5), 1, 1, 0.5) == 0.75
    assert composite(Weights(ev=0, ov=0, tu=1), 1, 1, None) is None


def test_the_model_is_asked_once_for_the_variant_and_its_cost_recorded():
    reply = {"content": f"```yaml\n{TASK.reference}```", "usage": (300, 40)}
    with FakeLLM([{"status": 429}, reply]) as model:
        spec = parse(f"llm:{model.url}/v1#writer?retry_base_sec=0.01&price_in=1&price_out=2")
        answer = single_shot.answerer(spec)(TASK, "simplified")
        sent = model.requests[-1]["body"]
    assert answer.error is None and answer.text == reply["content"]
    assert sent["messages"] == [
        {"role": "system", "content": single_shot.SYSTEM},
        {"role": "user", "content": TASK.prompts.simplified},
    ]
    usage = answer.usage
    assert (usage.calls, usage.retries, usage.tokens_in, usage.tokens_out) == (2, 1, 300, 40)
    assert usage.cost_usd == pytest.approx((300 * 1 + 40 * 2) / 1e6)
    assert answer.turn["retry_errors"] and answer.transcript[-1]["role"] == "assistant"
    assert answer.info["mode"] == "single-shot" and answer.info["model"] == "writer"


def test_oracle_answers_the_reference_noop_nothing_others_are_refused():
    assert single_shot.answerer(parse("oracle"))(TASK, "full").text == TASK.reference
    assert single_shot.answerer(parse("noop"))(TASK, "terse").text == ""
    with pytest.raises(KubeproofError, match="cannot answer generate tasks"):
        single_shot.answerer(parse("human"))
    with pytest.raises(KubeproofError, match="prompt variant"):
        single_shot.messages(TASK, "verbose")


def test_a_failing_endpoint_is_an_error_trial_and_no_stage_runs(tmp_path):
    with FakeLLM([{"status": 500}] * 2) as model:
        spec = parse(f"llm:{model.url}/v1#down?max_retries=1&retry_base_sec=0.01")
        plan = trials.Plan([TASK], [spec], "full", tmp_path)
        records = trials.run(plan, {spec.label: single_shot.answerer(spec)})
    (record,) = records
    assert record.verdict == "error" and "failed 2 times" in (record.reason or "")
    assert record.generate is None and record.score == 0
    written = tmp_path / "trials" / TASK.id / spec.label / "1"
    assert TrialResult.read(written / "trial.json").verdict == "error"
    assert "HTTP 500" in (written / "error.log").read_text()
    assert json.loads((written / "trial.json").read_text())["track"] == "generate"


def test_two_specs_with_one_label_get_their_own_directories():
    labels = [a.label for a in trials.distinct_labels([parse("oracle"), parse("oracle")])]
    assert labels == ["oracle", "oracle-2"]


def test_a_cluster_that_never_starts_makes_every_unjudged_answer_an_error(tmp_path):
    def start():
        raise KubeproofError("the control plane did not come up")

    agents = [parse("oracle"), parse("noop")]
    plan = trials.Plan([TASK], agents, "full", tmp_path, start=start)
    records = trials.run(plan, {a.label: single_shot.answerer(a) for a in agents})
    assert [r.verdict for r in records] == ["error", "error"]  # the judge never ran
    assert all("did not come up" in (r.reason or "") and r.generate is None for r in records)
    for a in agents:
        written = TrialResult.read(tmp_path / "trials" / TASK.id / a.label / "1" / "trial.json")
        assert written.verdict == "error"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--prompt", "verbose"], "--prompt"),
        (["--weights", "1,1"], "--weights"),
        (["--weights", "1,-1,1"], "--weights"),
        (["--agent", "cli:my-agent"], "cannot answer generate tasks"),
        (["--id", "generate-v1-role-advanced-create-7"], "role tasks are v2"),
    ],
)
def test_generate_run_refuses_what_it_cannot_do_before_any_cluster(tmp_path, args, says):
    from typer.testing import CliRunner

    from kubeproof.cli import app

    done = CliRunner().invoke(app, ["generate", "run", "--out", str(tmp_path / "r"), *args])
    assert done.exit_code != 0 and isinstance(done.exception, KubeproofError)
    assert says in str(done.exception)
    assert not (tmp_path / "r").exists()
