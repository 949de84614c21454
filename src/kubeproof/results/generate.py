"""What a trial of the generate track adds to trial.json: the staged judgement of the
agent's answer and its scores, KubeBench's composite `P = w1*Ev + w2*Ov + w3*Tu` among them,
and the optional LLM judge's verdict (S5, Tu) (docs/generate.md, "Agents and scores", "S5").
Filled by the track; this package imports none of it."""

from typing import ClassVar, Literal

from pydantic import Field

from kubeproof.results.base import ResultModel


class StageOutcome(ResultModel):
    """One stage the answer went through (S0 extract ... S4 checks), in order."""

    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"seconds"})

    stage: str = Field(
        "", description="`S0` extract, `S1` schema, `S2` apply, `S3` objects, `S4` checks."
    )
    passed: bool = Field(False, description="Whether the answer passed it.")
    reason: str = Field("", description="Why, in words a person can read.")
    under_grant: int = Field(0, description="Permission-matrix cells asked for but denied.")
    over_grant: int = Field(0, description="Permission-matrix cells to deny but allowed.")
    seconds: float | None = Field(None, description="Time the stage took.")


class Weights(ResultModel):
    """The composite's weights (KubeBench's w1, w2, w3; its own are not published)."""

    ev: float = Field(1 / 3, ge=0, description="w1, the weight of Ev (S2 passed).")
    ov: float = Field(1 / 3, ge=0, description="w2, the weight of Ov (S3 passed).")
    tu: float = Field(1 / 3, ge=0, description="w3, the weight of Tu (the judge's quality).")


def composite(weights: Weights, ev: float, ov: float, tu: float | None) -> float | None:
    """`w1*Ev + w2*Ov + w3*Tu` over the sum of the weights of the terms present: with no
    judge, Tu is absent (never imputed) and P is over Ev and Ov alone; None if no weight."""
    terms = [(weights.ev, ev), (weights.ov, ov)] + ([(weights.tu, tu)] if tu is not None else [])
    total = sum(w for w, _ in terms)
    return round(sum(w * x for w, x in terms) / total, 6) if total else None


class JudgeFlag(ResultModel):
    """One thing the LLM judge found (it adds to the report; it never changes a verdict)."""

    code: str = Field("", description="What kind of finding, from the judge prompt's list.")
    detail: str = Field("", description="The judge's own words on where and why.")


class JudgeOutcome(ResultModel):
    """S5: what the optional LLM judge said about one answer, or why it said nothing."""

    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"quality", "reason", "cost_usd", "seconds"})

    status: Literal["judged", "failed", "skipped"] = Field(
        "skipped",
        description="`judged`: quality and flags hold; `failed`: the endpoint kept failing or "
        "its reply was not the strict JSON asked for (Tu absent, `reason` says why); "
        "`skipped`: nothing to judge (the answer failed S0).",
    )
    reason: str | None = Field(None, description="Why the judge failed or was skipped.")
    judge: str = Field("", description="The judge's model, `provider/model`.")
    prompt_version: str = Field("", description="The judge prompt's version (in the cache key).")
    key: str = Field(
        "",
        description="The cache key: sha256 over the task digest, the answer's, the stage "
        "results', the judge model and the prompt version.",
    )
    quality: float | None = Field(None, description="Tu, the quality score in [0, 1].")
    flags: list[JudgeFlag] = Field(default_factory=list, description="What the judge found.")
    cached: bool = Field(False, description="The verdict came from the cache: no call made.")
    calls: int = Field(0, description="Judge API calls made in this run, retries included.")
    tokens_in: int = Field(0, description="The judge's input tokens in this run.")
    tokens_out: int = Field(0, description="The judge's output tokens in this run.")
    cost_usd: float | None = Field(
        None, description="The judge's cost in this run (apart from the agent's); null if unknown."
    )
    seconds: float | None = Field(None, description="Time the judge call took.")


class GenerateOutcome(ResultModel):
    """A generate-track answer judged in stages (the trial's `score` is its strict pass)."""

    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"failed_at", "tu", "p", "tainted", "judge"})

    prompt: str = Field(
        "", description="The prompt variant asked: `full`, `simplified` or `terse`."
    )
    identity: str = Field(
        "",
        description="The evaluation identity S2 applied as; whether it holds escalate, bind.",
    )
    stages: list[StageOutcome] = Field(
        default_factory=list, description="The stages run, in order, up to the first failure."
    )
    failed_at: str | None = Field(
        None, description="The first failing stage; absent if none failed."
    )
    strict_pass: bool = Field(False, description="S2, S3 and S4 all ran and passed (the headline).")
    ev: int = Field(0, description="Ev: 1 if the answer applied as the evaluation identity (S2).")
    ov: int = Field(0, description="Ov: 1 if every expected object was there, no scope creep (S3).")
    acc: int = Field(0, description="Acc: 1 if every typed check held on the live objects (S4).")
    tu: float | None = Field(
        None,
        description="Tu: the LLM judge's quality score in [0, 1]; absent (never imputed) when "
        "no judge ran, the answer failed S0 or the judge's reply was refused.",
    )
    weights: Weights = Field(default_factory=Weights, description="The composite's weights.")
    p: float | None = Field(
        None,
        description="The composite over the terms present (`p_terms`); a P without Tu and one "
        "with it are different figures.",
    )
    p_terms: list[str] = Field(
        default_factory=list, description="The terms P is over: `ev`, `ov`, `tu`."
    )
    under_grant: int = Field(0, description="Permission-matrix cells asked for but denied.")
    over_grant: int = Field(0, description="Permission-matrix cells to deny but allowed.")
    extra: list[str] = Field(
        default_factory=list,
        description="Objects the apply wrote beyond the expected (scope creep).",
    )
    tainted: str | None = Field(
        None,
        description="The answer changed an object the judge did not make (the trial is unsafe).",
    )
    judge: JudgeOutcome | None = Field(
        None, description="S5, the LLM judge's verdict; absent when no judge was asked for."
    )


class GenerateRun(ResultModel):
    """How a generate-track run asked its agents and scored them (run.json)."""

    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset(
        {"suite", "seed", "judge", "judge_prompt_version"}
    )

    mode: str = Field(
        "single-shot",
        description="`single-shot`: the model is asked once; `agentic`: model agents may read "
        "the fixtures and dry-run manifests as the evaluation identity before they submit.",
    )
    prompt: str = Field("", description="The prompt variant: `full`, `simplified` or `terse`.")
    suite: str | None = Field(None, description="The suite the tasks came from, if one.")
    seed: int | None = Field(None, description="The suite seed.")
    generator_version: int = Field(0, description="The task generator's version (in every id).")
    weights: Weights = Field(default_factory=Weights, description="The composite's weights.")
    judge: str | None = Field(
        None, description="The LLM judge's agent spec (S5, Tu); absent when none ran."
    )
    judge_prompt_version: str | None = Field(None, description="The judge prompt's version.")
