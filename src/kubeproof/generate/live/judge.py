"""The live stages over what S2 applied: S3 Ov (the expected objects exist, read back as
admin; what else the apply wrote is scope creep) and S4 Acc (the typed checks on the live
objects; permission matrices as SubjectAccessReviews), and the judgement they make. The
session (session.py) prepares the cluster, applies and cleans up around them."""

from concurrent.futures import ThreadPoolExecutor

from lightkube import Client
from lightkube.codecs import from_dict
from pydantic import Field, computed_field

from kubeproof.generate import checks as typed
from kubeproof.generate.live import access, objects, runtime
from kubeproof.generate.live.apply import Applied
from kubeproof.generate.model import (
    RUNTIME_CHECKS,
    Check,
    CommandOutput,
    GeneratedTask,
    ObjectRef,
    Permissions,
    Stage,
)
from kubeproof.generate.offline import Judgement, StageResult, verdicts_stage
from kubeproof.generate.offline_ops import question

PROBE_MANAGER = "kubeproof-probe"


class LiveJudgement(Judgement):
    """One answer judged on a live cluster: the stages run, what the apply did, timings."""

    task_id: str
    label: str = Field(description="Which answer: reference, empty, mutant:<operator>, a model's.")
    identity: str = Field(
        description="The evaluation identity's profile, and whether it holds escalate and bind."
    )
    applied: Applied | None = Field(default=None, description="What S2 did; None if not run.")
    extra: list[ObjectRef] = Field(
        default_factory=list, description="Objects written beyond the expected (scope creep)."
    )
    tainted: str | None = Field(
        default=None, description="Why the cluster can no longer be trusted (then recycled)."
    )
    error: str | None = Field(default=None, description="A judge failure, not the answer's.")
    cluster: str = Field(default="", description="The cluster it was judged on.")
    setup_seconds: float = Field(default=0.0, description="Fixtures made or awaited.")
    cleanup_seconds: float = Field(default=0.0, description="The apply's objects deleted.")
    seconds: float = Field(default=0.0, description="The whole judgement.")

    @computed_field(description="Strict pass: S2, S3 and S4 all ran and passed.")  # type: ignore[prop-decorator]
    @property
    def strict_pass(self) -> bool:
        ran = {s.stage for s in self.stages if s.passed}
        wanted = {Stage.s2_apply, Stage.s3_objects, Stage.s4_checks}
        return self.error is None and self.failed_at is None and wanted <= ran


def identity_label(task: GeneratedTask) -> str:
    i = task.identity
    yes = {True: "yes", False: "no"}
    return f"{i.profile} (escalate {yes[i.escalate]}, bind {yes[i.bind]})"


def apply_stage(applied: Applied) -> StageResult:
    refused = [f"{objects.show(r.object)}: {r.message}" for r in applied.refused]
    return StageResult(
        stage=Stage.s2_apply,
        passed=not refused,
        reason="; ".join(refused[:3])
        if refused
        else f"{len(applied.written)} objects applied, {len(applied.deleted)} deleted",
    )


def objects_stage(
    task: GeneratedTask, applied: Applied, admin: Client, fixtures: list[ObjectRef]
) -> tuple[StageResult, list[ObjectRef]]:
    """S3 and the scope creep it found."""
    missing = [objects.show(r) for r in task.expected if not objects.present(admin, r)]
    kept = [objects.show(r) for r in task.absent if objects.present(admin, r)]
    allowed = {objects.key(r) for r in [*task.expected, *fixtures]}
    extra = [r for r in applied.written if objects.key(r) not in allowed]
    if question(task):  # a question's command must change nothing at all
        extra = applied.written + applied.deleted
    passed = not missing and not kept and not (extra and task.extra_objects == "forbid")
    reason = f"missing {missing}, extra {[objects.show(r) for r in extra]}"
    return StageResult(
        stage=Stage.s3_objects,
        passed=passed,
        reason=reason + (f", still there {kept}" if kept else ""),
    ), extra


def checks_stage(
    task: GeneratedTask,
    admin: Client,
    pool: ThreadPoolExecutor,
    probes: list[ObjectRef],
    output: str | None = None,
    runtime_truth: bool = True,
) -> StageResult:
    """S4 on the live objects (and a question's on what the command printed). A probe
    binding a matrix needs is created as admin and appended to `probes` for the session to
    delete. Runtime checks wait for the pods (live/runtime.py), so they run last and only
    when every other check passed (S4 has failed otherwise, and waiting would add only
    detail); with `runtime_truth` off they are reported as not run."""
    skip = (Permissions, CommandOutput, *RUNTIME_CHECKS)
    read = [c.target for c in task.checks if not isinstance(c, skip)]
    targets = {objects.key(t): t for t in read}
    world = [o for o in (objects.read(admin, t) for t in targets.values()) if o is not None]
    matrices = [c for c in task.checks if isinstance(c, Permissions)]
    for check in matrices:
        if check.probe_binding:
            doc = typed.probe_binding(check)
            admin.apply(from_dict(doc), field_manager=PROBE_MANAGER, force=True)
            probes.append(objects.ref_of(doc))
    if matrices:
        access.barrier(admin, PROBE_MANAGER)

    def static(check: Check) -> typed.Verdict:
        if isinstance(check, Permissions):
            return access.matrix(admin, check, pool)
        return typed.evaluate(check, world, output)

    verdicts = {
        i: static(c) for i, c in enumerate(task.checks) if not isinstance(c, RUNTIME_CHECKS)
    }
    failed = any(not v.passed for v in verdicts.values())
    for i, later in enumerate(task.checks):
        if isinstance(later, RUNTIME_CHECKS):
            if not runtime_truth:
                verdicts[i] = typed.not_run(later, "runtime truth off")
            elif failed:
                verdicts[i] = typed.not_run(later, "a static check failed")
            else:
                verdicts[i] = runtime.evaluate(admin, later)
    return verdicts_stage([verdicts[i] for i in range(len(task.checks))])
