"""The offline judge's parts for UPDATE, DELETE and COMMAND: the world after the answer
(fixtures with the answer merged in, or some deleted, or a command emulated), and the S2 that
can be decided without an apiserver (an object to delete or change must exist). The live
stages run the real thing; the validity tests make both agree on every reference and mutant."""

from kubeproof.generate import checks as typed
from kubeproof.generate import command, emulate
from kubeproof.generate.model import CommandOutput, GeneratedTask, Operation, Stage
from kubeproof.generate.offline import (
    Judgement,
    StageResult,
    extract_stage,
    identity_of,
    objects_stage,
    schema_stage,
    verdicts_stage,
)


def merged(fixtures: list[dict], answer: list[dict]) -> list[dict]:
    """The fixtures with each answer object applied over the one of the same identity, maps
    merged and lists replaced (a server-side apply keeps what the answer leaves out);
    new objects appended."""
    world = [dict(f) for f in fixtures]
    for obj in answer:
        same = [i for i, f in enumerate(world) if identity_of(f) == identity_of(obj)]
        if same:
            world[same[0]] = _merge(world[same[0]], obj)
        else:
            world.append(obj)
    return world


def _merge(old, new):
    if isinstance(old, dict) and isinstance(new, dict):
        out = dict(old)
        for key, value in new.items():
            out[key] = _merge(old.get(key), value)
        return out
    return new


def deleted(fixtures: list[dict], answer: list[dict]) -> tuple[StageResult, list[dict]]:
    """S2 of a DELETE answer offline: every object named exists (else kubectl's NotFound);
    the world without them and without what lived in a deleted namespace."""
    have = {identity_of(f) for f in fixtures}
    missing = [f"{k} {n}" for k, n, _ in (identity_of(o) for o in answer) if (k, n, _) not in have]
    gone = {identity_of(o) for o in answer}
    namespaces = {n for k, n, _ in gone if k == "Namespace"}
    world = [
        f for f in fixtures
        if identity_of(f) not in gone and identity_of(f)[2] not in namespaces
    ]  # fmt: skip
    stage = StageResult(
        stage=Stage.s2_apply,
        passed=not missing,
        reason=f"offline: not found {missing}" if missing else f"offline: {len(gone)} deleted",
    )
    return stage, world


def question(task: GeneratedTask) -> bool:
    return any(isinstance(c, CommandOutput) for c in task.checks)


def command_s0(answer: str) -> tuple[StageResult, list[str]]:
    parsed = command.parse(answer)
    reason = f"{parsed.failure.value}: {parsed.reason}" if parsed.failure else parsed.reason
    return StageResult(stage=Stage.s0_extract, passed=parsed.failure is None, reason=reason), (
        parsed.argv
    )


def command_s1() -> StageResult:
    return StageResult(stage=Stage.s1_schema, passed=True, reason="a command has no schema")


def emulated(task: GeneratedTask, argv: list[str]) -> tuple[StageResult | None, emulate.Emulated]:
    """S2 of a command offline; None when the emulator does not know the command's form."""
    got = emulate.run(argv, task.fixtures)
    if not got.supported:
        return None, got
    reason = f"offline: {got.error}" if not got.ok else "offline: exit 0"
    return StageResult(stage=Stage.s2_apply, passed=got.ok, reason=reason), got


def judge_operation(task: GeneratedTask, answer: str) -> Judgement:
    """S0-S4 offline for an UPDATE, DELETE or COMMAND answer (S2 only where it needs no
    apiserver: DELETE's and a command's objects must exist)."""
    stages: list[StageResult] = []

    def done(result: StageResult) -> bool:
        stages.append(result)
        return result.passed

    def verdict() -> Judgement:
        failed = next((s.stage for s in stages if not s.passed), None)
        return Judgement(stages=stages, failed_at=failed)

    output: str | None = None
    answer_objects: list[dict] = []
    if task.answer_format == "command":
        s0, argv = command_s0(answer)
        if not done(s0) or not done(command_s1()):
            return verdict()
        s2, got = emulated(task, argv)
        if s2 is None or not done(s2):
            return verdict()  # not emulated: the live stages judge it
        world, output = got.world, got.output
        if question(task) and (got.changed or got.deleted):
            touched = [r.name for r in got.changed + got.deleted]
            done(StageResult(stage=Stage.s3_objects, passed=False,
                             reason=f"a question changed {touched}"))  # fmt: skip
            return verdict()
    else:
        s0, answer_objects = extract_stage(task, answer)
        if not done(s0) or not done(schema_stage(answer_objects, task.operation)):
            return verdict()
        if task.operation is Operation.delete:
            s2, world = deleted(task.fixtures, answer_objects)
            if not done(s2):
                return verdict()
            answer_objects = []  # deleted, not written
        else:
            world = merged(task.fixtures, answer_objects)
    if not done(objects_stage(task, answer_objects, world)):
        return verdict()
    done(verdicts_stage([typed.evaluate(c, world, output) for c in task.checks]))
    return verdict()
