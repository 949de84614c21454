"""S5, the LLM judge, without a cluster: through a real HTTP server speaking OpenAI's API, a
good verdict gives Tu and flags; a hostile reply (garbage, oversize, out of range, keys or
codes not asked for) is a judge failure with its reason, never an exception; verdicts are
cached by content hash so a second run asks nothing; an answer that failed S0 is not
judged; Tu enters P only when present and never changes a stage's verdict."""

import json

import pytest

from kubeproof.agents.spec import parse
from kubeproof.errors import KubeproofError
from kubeproof.generate import trials
from kubeproof.generate.judge_cache import JudgeCache
from kubeproof.generate.live.judge import LiveJudgement
from kubeproof.generate.llm_judge import REPLY_LIMIT, LLMJudge, parse_reply, stage_lines
from kubeproof.generate.model import Operation, Stage, Tier
from kubeproof.generate.offline import StageResult
from kubeproof.generate.task import generate
from kubeproof.results import TrialResult, Weights
from tests.agents.fake_llm import FakeLLM

TASK = generate("role", Tier.intermediate, 5)
ANSWER = f"```yaml\n{TASK.reference}```"
PASSED = [
    StageResult(stage=Stage.s0_extract, passed=True, reason="1 document"),
    StageResult(stage=Stage.s1_schema, passed=True, reason="schema ok"),
    StageResult(stage=Stage.s2_apply, passed=True, reason="1 objects applied"),
    StageResult(stage=Stage.s3_objects, passed=True, reason="missing [], extra []"),
    StageResult(stage=Stage.s4_checks, passed=True, reason="12 cells as asked"),
]
GOOD = {
    "flags": [{"code": "best_practice", "detail": "no app label on the Role"}],
    "quality": 0.75,
}


def judge_at(url: str, cache: JudgeCache | None, options: str = "") -> LLMJudge:
    spec = parse(f"llm:{url}/v1#reviewer?retry_base_sec=0.01&max_retries=1{options}")
    return LLMJudge(spec, cache)


def test_a_good_verdict_gives_tu_flags_and_the_judges_own_cost(tmp_path):
    with FakeLLM([{"content": json.dumps(GOOD), "usage": (900, 50)}]) as model:
        judge = judge_at(model.url, None, "&temperature=0.7&price_in=1&price_out=2")
        judged = judge(TASK, ANSWER, PASSED)
        (request,) = model.requests
    o = judged.outcome
    assert (o.status, o.quality, o.judge, o.cached) == ("judged", 0.75, "openai/reviewer", False)
    assert [(f.code, f.detail) for f in o.flags] == [("best_practice", "no app label on the Role")]
    assert (o.calls, o.tokens_in, o.tokens_out) == (1, 900, 50)
    assert o.cost_usd == pytest.approx((900 * 1 + 50 * 2) / 1e6)
    body = request["body"]
    assert body["temperature"] == 0  # whatever the spec said
    asked = body["messages"][-1]["content"]
    assert TASK.prompts.full in asked and TASK.reference in asked
    assert "S4 (" in asked and "12 cells as asked" in asked
    assert judged.exchange["reply"] == json.dumps(GOOD)


HOSTILE = [
    ("Looks great to me! quality: 1", "not strict JSON"),
    ("", "empty"),
    (json.dumps({**GOOD, "quality": 1.5}), "quality: Input should be less than or equal"),
    (json.dumps({**GOOD, "quality": -0.1}), "greater than or equal"),
    (json.dumps({**GOOD, "quality": "0.9"}), "quality"),
    (json.dumps({**GOOD, "quality": True}), "quality"),
    ('{"flags": [], "quality": NaN}', "not strict JSON"),
    ('{"flags": [], "quality": 0.5, "quality": 1}', "not strict JSON"),
    (json.dumps({"flags": [], "quality": 0.5, "verdict": "pass"}), "verdict"),
    (json.dumps({"flags": [{"code": "pwned", "detail": "x"}], "quality": 0.5}), "code"),
    (json.dumps({"flags": [{"code": "other", "detail": "x"}] * 21, "quality": 0.5}), "flags"),
    (json.dumps({**GOOD, "flags": [{"code": "other", "detail": "x" * 1001}]}), "detail"),
    (json.dumps([GOOD]), "not an object"),
    (json.dumps({**GOOD, "pad": " " * REPLY_LIMIT}), f"over {REPLY_LIMIT}"),
    ("[" * 5000 + "]" * 5000, "nested deeper"),
]


def test_a_hostile_reply_is_a_judge_failure_with_its_reason():
    with FakeLLM([{"content": reply} for reply, _ in HOSTILE]) as model:
        judge = judge_at(model.url, None)  # one client for all (each costs a second here)
        outcomes = [judge(TASK, ANSWER, PASSED).outcome for _ in HOSTILE]
    for (reply, says), o in zip(HOSTILE, outcomes, strict=True):
        assert (o.status, o.quality, o.flags) == ("failed", None, []), reply[:80]
        assert says in (o.reason or ""), (reply[:80], o.reason)
        assert o.calls == 1 and o.tokens_in == 10  # what the failed call cost is recorded


def test_a_verdict_in_one_json_fence_is_read_and_nothing_else_around_it():
    assert parse_reply(f"```json\n{json.dumps(GOOD)}\n```").quality == 0.75
    with pytest.raises(Exception, match="not strict JSON"):
        parse_reply(f"Sure:\n```json\n{json.dumps(GOOD)}\n```")


def test_a_second_run_is_answered_from_the_cache_and_asks_nothing(tmp_path):
    cache = JudgeCache(tmp_path / "cache")
    with FakeLLM([{"content": json.dumps(GOOD), "usage": (900, 50)}]) as model:
        first = judge_at(model.url, cache)(TASK, ANSWER, PASSED).outcome
    with FakeLLM([]) as model:  # another run, another port: the same judge model
        again = judge_at(model.url, cache)(TASK, ANSWER, PASSED)
        assert model.requests == []
    o = again.outcome
    assert (o.status, o.quality, o.cached, o.key) == ("judged", 0.75, True, first.key)
    assert (o.calls, o.tokens_in, o.tokens_out, o.cost_usd) == (0, 0, 0, 0.0)
    assert again.exchange is None and o.flags == first.flags
    with FakeLLM([{"content": json.dumps(GOOD)}] * 2) as model:
        judge = judge_at(model.url, cache)
        other_answer = judge(TASK, ANSWER + "\n# changed", PASSED).outcome
        other_stages = judge(TASK, ANSWER, PASSED[:4]).outcome
        assert len(model.requests) == 2  # a different answer or stage result is asked again
    assert len({first.key, other_answer.key, other_stages.key}) == 3


def test_a_corrupt_cache_entry_is_a_miss_and_a_down_endpoint_is_not_cached(tmp_path):
    cache = JudgeCache(tmp_path)
    with FakeLLM([{"status": 500}] * 2 + [{"content": json.dumps(GOOD)}]) as model:
        judge = judge_at(model.url, cache)
        down = judge(TASK, ANSWER, PASSED).outcome
        assert down.status == "failed" and "endpoint failed" in (down.reason or "")
        entry = next(tmp_path.rglob("*.json"), None)
        assert entry is None  # nothing cached: the next run asks again
        assert judge(TASK, ANSWER, PASSED).outcome.quality == 0.75
    (entry,) = tmp_path.rglob("*.json")
    entry.write_text('{"status": "judged", "quality": 7')
    with FakeLLM([{"content": json.dumps({**GOOD, "quality": 0.5})}]) as model:
        assert judge_at(model.url, cache)(TASK, ANSWER, PASSED).outcome.quality == 0.5


def test_an_answer_that_failed_s0_is_not_judged(tmp_path):
    failed = [StageResult(stage=Stage.s0_extract, passed=False, reason="empty: no text")]
    with FakeLLM([]) as model:
        judged = judge_at(model.url, JudgeCache(tmp_path))(TASK, "", failed)
        assert model.requests == []
    assert judged.outcome.status == "skipped" and "S0" in (judged.outcome.reason or "")
    assert "S1 (" in stage_lines(failed) and "not run" in stage_lines(failed)


def test_only_a_model_can_judge():
    with pytest.raises(KubeproofError, match="not a model"):
        LLMJudge(parse("oracle"), None)


def _judgement(stages: list[StageResult]) -> LiveJudgement:
    failed = next((s.stage for s in stages if not s.passed), None)
    return LiveJudgement(
        task_id=TASK.id, label="llm-writer", identity="escalate-allowed", stages=stages,
        failed_at=failed,
    )  # fmt: skip


def test_tu_enters_p_only_when_present_and_never_changes_the_verdict(tmp_path):
    weights = Weights(ev=0.5, ov=0.5, tu=1)
    strict = _judgement(PASSED)
    dropped = _judgement([*PASSED[:4], StageResult(stage=Stage.s4_checks, passed=False, reason="")])
    with FakeLLM(lambda body: {"content": json.dumps({"flags": [], "quality": 0.0})}) as model:
        judge = judge_at(model.url, None)
        harsh = judge(TASK, ANSWER, PASSED).outcome
    g = trials.outcome(strict, "full", weights, harsh)
    assert (g.tu, g.p, g.p_terms, g.strict_pass) == (0.0, 0.5, ["ev", "ov", "tu"], True)
    assert trials.outcome(strict, "full", weights, None).p == 1.0  # no judge: over Ev, Ov
    failed = harsh.model_copy(update={"status": "failed", "quality": None, "reason": "garbage"})
    g = trials.outcome(dropped, "full", weights, failed)
    assert (g.tu, g.p, g.p_terms, g.acc, g.strict_pass) == (None, 1.0, ["ev", "ov"], 0, False)
    assert "tu" not in g.record() and g.record()["judge"]["reason"] == "garbage"

    plan = trials.Plan([TASK], [parse("oracle")], "full", tmp_path, weights)
    for judgement, verdict in ((strict, "resolved"), (dropped, "failed")):
        record = TrialResult(task=TASK.id, agent="oracle")
        trials._verdict(record, judgement, plan, harsh)  # quality 0 passes a strict pass
        assert (record.verdict, record.score) == (verdict, int(verdict == "resolved"))


def test_a_command_answer_is_judged_as_a_command():
    """A COMMAND answer's stages say what they mean for a command (S0 found one command,
    S2 ran it), and the judge is told it reviews a kubectl command, not a manifest."""
    task = generate("deployment", Tier.advanced, 3, Operation.command)
    assert task.answer_format == "command"
    with FakeLLM([{"content": json.dumps(GOOD)}]) as model:
        judged = judge_at(model.url, None)(task, f"`{task.reference.strip()}`", PASSED)
        [request] = model.requests
    assert judged.outcome.status == "judged"
    system, user = (m["content"] for m in request["body"]["messages"])
    assert system.startswith("You review a kubectl command ")
    assert "S0 (one kubectl command found" in user and "S2 (the command ran" in user
    assert "manifests found" not in user
    assert "S0 (the manifests found" in stage_lines(PASSED)
    with FakeLLM([]) as model:
        failed = [StageResult(stage=Stage.s0_extract, passed=False, reason="not_kubectl: sudo")]
        skipped = judge_at(model.url, None)(task, "sudo kubectl", failed)
    assert skipped.outcome.reason == "not judged: the answer failed S0, it has no kubectl command"
