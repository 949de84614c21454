"""An answer judged without a cluster: S0, S1, then S3 and S4 over the parsed objects with
the fixtures, the RBAC twin standing in for SubjectAccessReviews. S2 (the apply) needs an
apiserver and is reported as not run. The validity proof uses it to prove references and
mutants before any cluster starts; the live stages (docs/generate.md) must agree with it."""

from pydantic import BaseModel, Field

from kubeproof.generate import checks as typed
from kubeproof.generate import extract, schema
from kubeproof.generate.model import GeneratedTask, ObjectRef, Operation, Stage


class StageResult(BaseModel):
    stage: Stage
    passed: bool
    reason: str
    under_grant: int = Field(default=0, description="Matrix cells asked for but denied.")
    over_grant: int = Field(default=0, description="Matrix cells to deny but allowed.")
    seconds: float | None = Field(default=None, description="Time the stage took (live only).")


class Judgement(BaseModel):
    stages: list[StageResult] = Field(description="The stages run, in order, up to a failure.")
    failed_at: Stage | None = Field(description="The first failing stage; None if all passed.")


def identity_of(obj: dict) -> tuple:
    meta = obj.get("metadata") or {}
    return obj.get("kind"), meta.get("name"), meta.get("namespace") or None


def _ref_identity(r: ObjectRef) -> tuple:
    return r.kind, r.name, r.namespace


def objects_stage(
    task: GeneratedTask, objects: list[dict], world: list[dict] | None = None
) -> StageResult:
    """S3 over the answer's objects; with `world` (UPDATE, DELETE, COMMAND: the fixtures
    after the answer) the expected and absent objects are looked up there."""
    have = {identity_of(o) for o in objects}
    there = have if world is None else {identity_of(o) for o in world}
    missing = [r.name for r in task.expected if _ref_identity(r) not in there]
    allowed = {_ref_identity(r) for r in task.expected} | {identity_of(f) for f in task.fixtures}
    extra = sorted(f"{k} {n}" for k, n, _ in have - allowed)
    kept = [r.name for r in task.absent if _ref_identity(r) in there]
    passed = not missing and not kept and not (extra and task.extra_objects == "forbid")
    return StageResult(
        stage=Stage.s3_objects,
        passed=passed,
        reason=f"missing {missing}, extra {extra}" + (f", still there {kept}" if kept else ""),
    )


def checks_stage(task: GeneratedTask, objects: list[dict]) -> StageResult:
    answered = {identity_of(o) for o in objects}
    world = objects + [f for f in task.fixtures if identity_of(f) not in answered]
    return verdicts_stage([typed.evaluate(c, world) for c in task.checks])


def verdicts_stage(verdicts: list[typed.Verdict]) -> StageResult:
    """S4 from the checks' verdicts, offline or live."""
    failed = [v.reason for v in verdicts if not v.passed]
    judged = [v for v in verdicts if not v.skipped]
    skipped = len(verdicts) - len(judged)
    not_run = f" ({skipped} runtime checks not run)" if skipped else ""
    return StageResult(
        stage=Stage.s4_checks,
        passed=not failed,
        reason=f"{len(judged) - len(failed)}/{len(judged)} checks{not_run}"
        + "".join(f"; {f}" for f in failed[:3]),
        under_grant=sum(v.under_grant for v in verdicts),
        over_grant=sum(v.over_grant for v in verdicts),
    )


def extract_stage(task: GeneratedTask, answer: str) -> tuple[StageResult, list[dict]]:
    """S0, and the answer's objects."""
    got = extract.extract(answer, task.answer_kinds)
    reason = got.failure.value + ": " + got.reason if got.failure else got.reason
    return StageResult(stage=Stage.s0_extract, passed=got.failure is None, reason=reason), (
        got.objects
    )


def schema_stage(objects: list[dict], operation: Operation = Operation.create) -> StageResult:
    """S1. An UPDATE may send only the fields it changes (a server-side apply keeps the
    rest), so required fields are not asked of it; a DELETE's objects need only be
    identified (kind, name), as `kubectl delete -f` reads them."""
    problems = [f"{d.get('kind')}: {p}" for d in objects for p in _problems(d, operation)]
    return StageResult(
        stage=Stage.s1_schema, passed=not problems, reason="; ".join(problems[:5]) or "ok"
    )


def _problems(doc: dict, operation: Operation) -> list[str]:
    found = schema.validate(doc)
    if operation is Operation.delete:
        return [
            p
            for p in found
            if p.startswith(("metadata.name:", "apiVersion", doc.get("apiVersion") or "?"))
        ]
    if operation is Operation.update:
        return [p for p in found if not p.endswith(": required") or p.startswith("metadata.name")]
    return found


def judge(task: GeneratedTask, answer: str) -> Judgement:
    if task.operation is not Operation.create:
        from kubeproof.generate.offline_ops import judge_operation

        return judge_operation(task, answer)
    stages: list[StageResult] = []

    def done(result: StageResult) -> Judgement | None:
        stages.append(result)
        return None if result.passed else Judgement(stages=stages, failed_at=result.stage)

    extracted, objects = extract_stage(task, answer)
    if out := done(extracted):
        return out
    if out := done(schema_stage(objects)):
        return out
    if out := done(objects_stage(task, objects)):
        return out
    if out := done(checks_stage(task, objects)):
        return out
    return Judgement(stages=stages, failed_at=None)
