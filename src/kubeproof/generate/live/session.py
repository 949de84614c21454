"""A judge session: one cluster judging answers one after another with exact cleanup.

Per answer: S0 and S1 (no cluster); the task's fixtures made as admin (kept while the next
answer is for the same task and the last one left them untouched); S2 as the evaluation
identity; S3 and S4 read back as admin; then exactly what the apply created (and the probe
bindings S4 made) is deleted. A namespace being deleted is awaited only when a later answer
or fixture needs its name again. An answer that changed an object the judge did not make
(a system ClusterRole, the identity's own binding) taints the cluster, which is then
recycled, as it is every `recycle_every` answers when the session starts its own clusters."""

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Self

from lightkube import Client
from lightkube.codecs import from_dict

from kubeproof.cluster.base import Cluster
from kubeproof.generate.live import access, objects
from kubeproof.generate.live.apply import Applied, apply, delete
from kubeproof.generate.live.command import command_stage, diff
from kubeproof.generate.live.identity import Evaluator
from kubeproof.generate.live.identity import manifests as identity_manifests
from kubeproof.generate.live.judge import (
    LiveJudgement,
    apply_stage,
    checks_stage,
    identity_label,
    objects_stage,
)
from kubeproof.generate.model import EvaluationIdentity, GeneratedTask, ObjectRef, Operation
from kubeproof.generate.offline import StageResult, extract_stage, schema_stage
from kubeproof.generate.offline_ops import command_s0, command_s1

FIXTURE_MANAGER = "kubeproof-fixture"
GONE_TIMEOUT = 120.0  # seconds a deleted object may take to go (a namespace: its content first)
SAR_THREADS = 8
_HARMLESS = ("Namespace", "ServiceAccount")  # left when the session ends: they grant nothing


def _needed(docs: list[dict]) -> set[tuple]:
    """Keys of these objects and of the namespaces they live in: what must not be on its
    way out when they are applied."""
    out: set[tuple] = {("Namespace", name, None) for name in _namespaces(docs)}
    for doc in docs:
        try:
            out.add(objects.key(objects.ref_of(doc)))
        except ValueError:
            continue  # a kind the apiserver will refuse anyway
    return out


def _namespaces(docs: list[dict]) -> set[str]:
    """The namespaces these objects live in or are."""
    out = set()
    for doc in docs:
        meta = doc.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        if doc.get("kind") == "Namespace" and isinstance(meta.get("name"), str):
            out.add(meta["name"])
        elif isinstance(meta.get("namespace"), str):
            out.add(meta["namespace"])
    return out


class JudgeSession:
    """Judge answers on `cluster` (yours to stop), or on clusters the session starts with
    `start` and stops itself, recycled every `recycle_every` answers (0: never)."""

    def __init__(
        self,
        cluster: Cluster | None = None,
        *,
        start: Callable[[], Cluster] | None = None,
        recycle_every: int = 0,
        runtime_truth: bool = True,
    ):
        if (cluster is None) == (start is None):
            raise ValueError("give a cluster or a way to start one, not both")
        self._given, self._start = cluster, start
        self.recycle_every = recycle_every
        # off: runtime checks are reported as not run (a cluster without nodes, knowingly)
        self.runtime_truth = runtime_truth
        self.cluster: Cluster | None = None
        self.clusters_used = 0
        self._pool = ThreadPoolExecutor(SAR_THREADS, thread_name_prefix="judge-sar")

    # -- cluster life --------------------------------------------------------------

    def __enter__(self) -> Self:
        self._open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _open(self) -> None:
        self.cluster = self._given or self._start()  # type: ignore[misc]
        self.clusters_used += 1
        self.admin: Client = self.cluster.client()
        self._ca = self.cluster.ca_pem()
        self._evaluators: dict[str, Evaluator] = {}
        # the live fixtures: key -> (ref, the manifest as made); an answer that changed one
        # makes it dirty (remade before the next answer)
        self._fixtures: dict[tuple, tuple[ObjectRef, str]] = {}
        self._dirty: set[tuple] = set()
        self._pending: dict[tuple, ObjectRef] = {}  # deleted, maybe not gone yet
        # the answer's workloads deleted in the foreground: awaited before the next answer,
        # so their pods, ReplicaSets and EndpointSlices are gone too
        self._draining: set[tuple] = set()
        self._judged = 0
        self.tainted: str | None = None
        access.barrier(self.admin, FIXTURE_MANAGER)  # its objects stay: part of the baseline

    def close(self) -> None:
        if self.cluster is None:
            return
        try:
            if self._given is not None:
                self.finish()
                self._revoke()
        finally:
            if self._given is None:
                self.cluster.stop()
            self.cluster = None
            self._pool.shutdown()

    def _revoke(self) -> None:
        """On a cluster the session did not start (an external one, a shared test cluster):
        delete the rights it granted, the identities' and the barrier's. Their
        ServiceAccounts and namespace stay, holding nothing."""
        docs = [d for e in self._evaluators.values() for d in identity_manifests(e.identity)]
        rbac = [d for d in docs + access.barrier_docs() if d["kind"] not in _HARMLESS]
        for doc in rbac:
            objects.delete(self.admin, objects.ref_of(doc))

    def _recycle(self) -> None:
        assert self.cluster is not None
        self.cluster.stop()
        self._open()

    def evaluator(self, identity: EvaluationIdentity) -> Evaluator:
        """The identity made on the cluster (once per cluster), with a client acting as it."""
        key = identity.model_dump_json()
        if key not in self._evaluators:
            assert self.cluster is not None
            self._evaluators[key] = Evaluator(self.admin, self.cluster.server, self._ca, identity)
        return self._evaluators[key]

    # -- fixtures and namespaces ---------------------------------------------------

    def _await_gone(self, needed: set[tuple] | None = None) -> None:
        """Wait until the deleted objects among `needed` (all if None) are gone: a namespace
        once its content is deleted, a PVC once its protection finalizer is lifted."""
        for key in sorted(
            self._pending if needed is None else self._pending.keys() & needed, key=str
        ):
            ref = self._pending.pop(key)
            deadline = time.monotonic() + GONE_TIMEOUT
            while objects.read(self.admin, ref) is not None:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"{objects.show(ref)} still there {GONE_TIMEOUT:.0f}s after its deletion"
                    )
                time.sleep(0.05)

    def _delete(
        self,
        refs: list[ObjectRef],
        finalizers: frozenset | set = frozenset(),
        drain: bool = False,
    ) -> None:
        """Delete these objects, namespaces last; they are awaited when needed again. With
        `drain`, workloads go in the foreground and are awaited before the next answer."""
        for ref in sorted(refs, key=lambda r: r.kind == "Namespace"):
            workload = drain and ref.kind in objects.WORKLOADS
            objects.delete(self.admin, ref, foreground=workload)
            if objects.key(ref) in finalizers:
                objects.drop_finalizers(self.admin, ref)
            self._pending[objects.key(ref)] = ref
            if workload:
                self._draining.add(objects.key(ref))

    def _remove_fixtures(self, keep: frozenset | set = frozenset()) -> None:
        """Delete the fixtures but those in `keep` (a namespace's content goes with it)."""
        gone = {
            ref.name
            for k, (ref, _) in self._fixtures.items()
            if ref.kind == "Namespace" and k not in keep
        }
        doomed = [ref for k, (ref, _) in self._fixtures.items() if k not in keep]
        self._delete([r for r in doomed if r.namespace not in gone])
        self._fixtures = {k: v for k, v in self._fixtures.items() if k in keep}
        self._dirty.clear()

    def _prepare(self, task: GeneratedTask, docs: list[dict]) -> None:
        """The task's fixtures, and no other: identical live ones (an unchanged namespace of
        the same name) are kept, the rest removed and made."""
        wanted = {
            objects.key(objects.ref_of(d)): (objects.ref_of(d), json.dumps(d, sort_keys=True))
            for d in task.fixtures
        }
        keep = {k for k, v in self._fixtures.items() if wanted.get(k) == v} - self._dirty
        # a namespace made again takes its content with it: nothing in it can be kept
        remade = {ref.name for k, (ref, _) in self._fixtures.items()
                  if ref.kind == "Namespace" and k not in keep}  # fmt: skip
        keep = {k for k in keep if self._fixtures[k][0].namespace not in remade}
        self._remove_fixtures(keep)
        self._await_gone(_needed(docs) | _needed(task.fixtures) | self._draining)
        self._draining.clear()
        for doc in sorted(task.fixtures, key=lambda d: d.get("kind") != "Namespace"):
            k = objects.key(objects.ref_of(doc))
            if k not in keep:
                self.admin.apply(from_dict(doc), field_manager=FIXTURE_MANAGER, force=True)
                self._fixtures[k] = wanted[k]

    # -- an agentic agent's look before it answers -------------------------------

    def explore(self, task: GeneratedTask, look: Callable[[Evaluator], str | None]) -> str | None:
        """`look` at the task's fixtures as its evaluation identity before answering (the
        agentic agent, generate/agentic.py). Exploring is read-only and dry-run by
        construction; if the cluster changed anyway, the session is tainted (then recycled)
        and the touched fixtures are made again."""
        if self.cluster is None:
            self._open()
        self._prepare(task, [])
        evaluator = self.evaluator(task.identity)
        before = objects.snapshot(self.admin)
        seen = look(evaluator)
        changed = diff(before, objects.snapshot(self.admin))
        touched = changed.created + changed.changed + changed.deleted
        if touched:
            self.tainted = f"exploring changed {', '.join(map(objects.show, touched))}"
            self._dirty |= {objects.key(r) for r in touched} & set(self._fixtures)
        return seen

    # -- judging -------------------------------------------------------------------

    def judge(self, task: GeneratedTask, answer: str, label: str = "answer") -> LiveJudgement:
        """Every stage of one answer; the cluster is left as the task's fixtures made it."""
        started = time.monotonic()
        out = LiveJudgement(
            stages=[], failed_at=None, task_id=task.id, label=label, identity=identity_label(task)
        )
        clock = time.monotonic()
        argv: list[str] | None = None
        if task.answer_format == "command":
            s0, argv = command_s0(answer)
            docs: list[dict] = []
            if self._record(out, s0, clock) and self._record(out, command_s1(), clock):
                self._live(task, docs, out, argv)
        else:
            s0, docs = extract_stage(task, answer)
            s1 = schema_stage(docs, task.operation)
            if self._record(out, s0, clock) and self._record(out, s1, clock):
                self._live(task, docs, out)
        out.seconds = round(time.monotonic() - started, 4)
        return out

    def _record(self, out: LiveJudgement, stage: StageResult, since: float) -> bool:
        stage.seconds = round(time.monotonic() - since, 4)
        out.stages.append(stage)
        if not stage.passed:
            out.failed_at = stage.stage
        return stage.passed

    def _live(
        self,
        task: GeneratedTask,
        docs: list[dict],
        out: LiveJudgement,
        argv: list[str] | None = None,
    ) -> None:
        if self.cluster is None:
            self._open()
        assert self.cluster is not None
        out.cluster = self.cluster.name
        applied, probes = Applied(), []  # type: tuple[Applied, list[ObjectRef]]
        try:
            clock = time.monotonic()
            self._prepare(task, docs)
            evaluator = self.evaluator(task.identity)
            out.setup_seconds = round(time.monotonic() - clock, 4)
            clock = time.monotonic()
            output: str | None = None
            if argv is not None:
                applied, s2, output = command_stage(evaluator, self.admin, argv)
            elif task.operation is Operation.delete:
                applied = delete(evaluator.client, docs)
                s2 = apply_stage(applied)
            else:
                applied = apply(evaluator.client, self.admin, docs)
                s2 = apply_stage(applied)
            out.applied = applied
            if self._record(out, s2, clock):
                clock = time.monotonic()
                fixtures = [ref for ref, _ in self._fixtures.values()]
                s3, out.extra = objects_stage(task, applied, self.admin, fixtures)
                if self._record(out, s3, clock):
                    clock = time.monotonic()
                    s4 = checks_stage(
                        task, self.admin, self._pool, probes, output, self.runtime_truth
                    )
                    self._record(out, s4, clock)
        except Exception as exc:  # the judge's failure, recorded; the cluster is suspect
            out.error = f"{type(exc).__name__}: {exc}"
            self.tainted = out.error
        clock = time.monotonic()
        try:
            self._after(task, docs, applied, probes, out)
        except Exception as exc:
            out.error = out.error or f"cleanup: {type(exc).__name__}: {exc}"
            self.tainted = out.error
        out.cleanup_seconds = round(time.monotonic() - clock, 4)
        out.tainted = self.tainted
        self._judged += 1
        due = self.recycle_every and self._judged >= self.recycle_every
        if self._given is None and (self.tainted or due):
            self._recycle()

    def _after(
        self,
        task: GeneratedTask,
        docs: list[dict],
        applied: Applied,
        probes: list[ObjectRef],
        out: LiveJudgement,
    ) -> None:
        fixtures = set(self._fixtures)
        finalized = {
            objects.key(objects.ref_of(d))
            for d in docs
            if isinstance(d.get("metadata"), dict) and d["metadata"].get("finalizers")
        }
        self._delete(probes + applied.created, finalized, drain=True)
        touched = applied.changed + applied.deleted
        changed = [r for r in touched if objects.key(r) not in fixtures]
        if changed:
            self.tainted = f"the answer changed {', '.join(map(objects.show, changed))}"
        # a fixture the answer changed or deleted is made again for the next answer
        self._dirty |= {objects.key(r) for r in touched} & fixtures

    def finish(self) -> None:
        """Remove the last task's fixtures and wait until every deleted namespace is gone."""
        self._remove_fixtures()
        self._await_gone()
        self._draining.clear()

    def inventory(self) -> set[tuple]:
        """(kind, namespace, name) of every object of the kinds the tasks write."""
        return objects.inventory(self.admin)
