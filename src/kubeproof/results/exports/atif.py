"""Trajectories in Harbor's Agent Trajectory Interchange Format (ATIF v1.4, Harbor's RFC
0001 "trajectory-format"): `trajectory.json` per trial, read by Harbor's viewer and other
ATIF tools. Steps are numbered from 1; the user's instruction is the first step; each agent
step carries its tool calls and, as the observation, what each call gave back; model turns
carry their token counts and cost, and `final_metrics` the totals."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kubeproof.results.exports import trials
from kubeproof.results.load import load_run

SCHEMA_VERSION = "ATIF-v1.4"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Agent(_Strict):
    name: str = Field(description="The agent system's name.")
    version: str = Field(description="Its version.")
    model_name: str | None = Field(None, description="The model, for model agents.")
    extra: dict[str, Any] | None = None


class ToolCall(_Strict):
    tool_call_id: str
    function_name: str
    arguments: dict[str, Any]


class ObservationResult(_Strict):
    source_call_id: str | None = None
    content: str | None = None


class Observation(_Strict):
    results: list[ObservationResult]


class Metrics(_Strict):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None


class Step(_Strict):
    step_id: int = Field(ge=1)
    timestamp: str | None = None
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    message: str
    tool_calls: list[ToolCall] | None = None
    observation: Observation | None = None
    metrics: Metrics | None = None
    extra: dict[str, Any] | None = None


class FinalMetrics(_Strict):
    total_prompt_tokens: int | None = None
    total_completion_tokens: int | None = None
    total_cost_usd: float | None = None
    total_steps: int | None = None
    extra: dict[str, Any] | None = None


class Trajectory(_Strict):
    schema_version: str = SCHEMA_VERSION
    session_id: str
    agent: Agent
    steps: list[Step]
    notes: str | None = None
    final_metrics: FinalMetrics | None = None
    extra: dict[str, Any] | None = None


def _arguments(raw: object) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(str(raw))
    except ValueError:
        return {"raw": str(raw)}
    return value if isinstance(value, dict) else {"value": value}


def _when(epoch: object) -> str | None:
    if not isinstance(epoch, int | float):
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")


def trajectory(view: trials.TrialView, instruction: str | None = None) -> Trajectory:
    """One trial as an ATIF trajectory."""
    r = view.result
    info = r.agent_info or {}
    model = info.get("model")
    messages = trials.conversation(view, instruction)
    turns = iter(view.turns)
    steps: list[Step] = []
    pending: Step | None = None
    for m in messages:
        role, text = m.get("role"), str(m.get("content") or "")
        if role in ("system", "user"):
            steps.append(Step(step_id=len(steps) + 1, source=role, message=text))
        elif role == "assistant":
            turn = next(turns, None) if view.turns else None
            calls = [
                ToolCall(
                    tool_call_id=str(c.get("id", "")),
                    function_name=str(c.get("name", "")),
                    arguments=_arguments(c.get("arguments")),
                )
                for c in m.get("tool_calls") or []
            ]
            pending = Step(
                step_id=len(steps) + 1,
                source="agent",
                model_name=model,
                message=text,
                tool_calls=calls or None,
                timestamp=_when(turn.get("started")) if turn else None,
                metrics=Metrics(
                    prompt_tokens=turn.get("tokens_in"),
                    completion_tokens=turn.get("tokens_out"),
                    cost_usd=turn.get("cost_usd"),
                )
                if turn
                else None,
            )
            steps.append(pending)
        elif role == "tool" and pending is not None:
            result = ObservationResult(
                source_call_id=m.get("tool_call_id"), content=str(m.get("content") or "")
            )
            if pending.observation is None:
                pending.observation = Observation(results=[])
            pending.observation.results.append(result)
    usage = r.usage
    return Trajectory(
        session_id=f"{r.task}/{view.label}/{r.repeat}",
        agent=Agent(
            name=f"kubeproof:{view.label}",
            version=(r.versions.kubeproof if r.versions else "") or "unknown",
            model_name=model,
            extra={"spec": r.agent},
        ),
        steps=steps,
        notes=f"verdict {r.verdict} (expected {r.expected}), score {r.score}, safe {r.safe}: "
        f"{r.reason or ''}".strip(),
        final_metrics=FinalMetrics(
            total_prompt_tokens=usage.tokens_in if usage else None,
            total_completion_tokens=usage.tokens_out if usage else None,
            total_cost_usd=usage.cost_usd if usage else None,
            total_steps=len(steps),
            extra={"commands": r.steps},
        ),
        extra={"task": r.task, "verdict": r.verdict, "score": r.score, "safe": r.safe},
    )


def write_run(run_dir: Path, out: Path, instructions: dict[str, str] | None = None) -> list[Path]:
    """`trajectory.json` (ATIF) for every trial, under `out` as the trials are under the run."""
    loaded = load_run(run_dir)
    written = []
    for rel, result in loaded.trials:
        view = trials.load(run_dir, rel, result)
        target = Path(out) / rel / "trajectory.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        doc = trajectory(view, (instructions or {}).get(result.task))
        target.write_text(doc.model_dump_json(indent=2, exclude_none=True))
        written.append(target)
    return written
