"""A run as Inspect AI logs (the `inspect` extra): one `.eval` log per agent, a sample per
trial (id the task, epoch the repeat), its conversation as Inspect chat messages, its
verdict as the score `kubeproof` (value the trial's score, answer the verdict, explanation
the reason, the checks in the metadata), so `inspect view` and Inspect's dataframes read
kubeproof runs. Inspect's own writer and models are used; nothing of its format is
hand-made."""

import json
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

from kubeproof.errors import KubeproofError
from kubeproof.results.exports import trials
from kubeproof.results.load import load_run

SCORER = "kubeproof"


def _inspect():
    try:
        import inspect_ai.log as log
        import inspect_ai.model as model
        import inspect_ai.scorer as scorer
        import inspect_ai.tool as tool
    except ImportError as exc:
        raise KubeproofError(
            "Inspect logs need the `inspect` extra", hint="pip install 'kubeproof[inspect]'"
        ) from exc
    return log, model, scorer, tool


def _messages(view: trials.TrialView, instruction: str | None) -> list:
    _, model, _, tool = _inspect()
    out = []
    for m in trials.conversation(view, instruction):
        role, content = m.get("role"), str(m.get("content") or "")
        if role == "system":
            out.append(model.ChatMessageSystem(content=content))
        elif role == "user":
            out.append(model.ChatMessageUser(content=content))
        elif role == "assistant":
            calls = []
            for c in m.get("tool_calls") or []:
                try:
                    args = json.loads(c.get("arguments") or "{}")
                except (TypeError, ValueError):
                    args = {"raw": str(c.get("arguments"))}
                calls.append(
                    tool.ToolCall(
                        id=str(c.get("id", "")),
                        function=str(c.get("name", "")),
                        arguments=args if isinstance(args, dict) else {"value": args},
                    )
                )
            out.append(model.ChatMessageAssistant(content=content, tool_calls=calls or None))
        elif role == "tool":
            out.append(
                model.ChatMessageTool(
                    content=content, tool_call_id=m.get("tool_call_id"), function=m.get("name")
                )
            )
    return out


def _sample(view: trials.TrialView, instruction: str | None):
    log, model, scorer, _ = _inspect()
    r = view.result
    messages = _messages(view, instruction)
    user = next((m.text for m in messages if m.role == "user"), instruction or r.task)
    usage = r.usage
    checks = [c.model_dump(mode="json") for c in (r.results or []) + (r.safety or [])]
    return log.EvalSample(
        id=r.task,
        epoch=r.repeat,
        input=user,
        target=r.expected,
        messages=messages,
        output=model.ModelOutput(model=(r.agent_info or {}).get("model") or view.label),
        scores={
            SCORER: scorer.Score(
                value=r.score,
                answer=r.verdict,
                explanation=r.reason,
                metadata={"safe": r.safe, "checks": checks},
            )
        },
        metadata={
            "area": r.area,
            "difficulty": r.difficulty,
            "track": r.track,
            "tags": r.tags or [],
            "verdict": r.verdict,
            "safe": r.safe,
            "steps": r.steps,
            "seconds": r.timings.total,
            "dir": view.rel,
        },
        model_usage={
            view.label: model.ModelUsage(
                input_tokens=usage.tokens_in,
                output_tokens=usage.tokens_out,
                total_tokens=usage.tokens_in + usage.tokens_out,
                total_cost=usage.cost_usd,
            )
        }
        if usage
        else {},
    )


def write_run(run_dir: Path, out: Path, instructions: dict[str, str] | None = None) -> list[Path]:
    """One Inspect log per agent of the run, in `out`; the paths written."""
    log = _inspect()[0]
    loaded = load_run(run_dir)
    by_agent: dict[str, list[trials.TrialView]] = defaultdict(list)
    for rel, result in loaded.trials:
        view = trials.load(run_dir, rel, result)
        by_agent[view.label].append(view)
    created = loaded.run.started_at or datetime.now(UTC).isoformat(timespec="seconds")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for label, views in sorted(by_agent.items()):
        samples = [_sample(v, (instructions or {}).get(v.result.task)) for v in views]
        scores = [v.result.score for v in views]
        spec = views[0].result.agent
        model_name = (views[0].result.agent_info or {}).get("model") or label
        eval_log = log.EvalLog(
            status="success" if loaded.complete else "started",
            eval=log.EvalSpec(
                created=created,
                task=f"kubeproof/{loaded.name}",
                dataset=log.EvalDataset(name=loaded.name, samples=len(samples)),
                model=f"kubeproof/{model_name}",
                config=log.EvalConfig(epochs=max(v.result.repeat for v in views)),
                metadata={"agent": spec, "agent_label": label, "run": loaded.name},
            ),
            results=log.EvalResults(
                total_samples=len(samples),
                completed_samples=len(samples),
                scores=[
                    log.EvalScore(
                        name=SCORER,
                        scorer=SCORER,
                        metrics={
                            "accuracy": log.EvalMetric(
                                name="accuracy", value=sum(scores) / len(scores)
                            )
                        },
                    )
                ],
            ),
            stats=log.EvalStats(started_at=created, completed_at=loaded.run.ended_at or created),
            samples=samples,
        )
        target = out / f"{label}.eval"  # agent labels are unique in a run
        log.write_eval_log(eval_log, str(target))
        written.append(target)
    return written
